// `hiremate train --times-from`: the plan is made on the times of an earlier profile of the same
// model (the benchmark report plans every solver of a model on one profile), and a profile of
// another model is refused before anything is planned.
#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

#include <filesystem>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/solvers/solver.h"
#include "hiremate/torch/train.h"
#include "torch_test_util.h"

namespace hiremate {
namespace {

std::string scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("hiremate_times_from_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

torchbridge::TrainOptions one_step(const std::string& times_from) {
  torchbridge::TrainOptions o;
  o.profile = torchtest::test_options();
  o.profile.runs = 3;
  o.budget = "1.0";
  o.solver = "autograd";
  o.steps = 1;
  o.times_from = times_from;
  return o;
}

TEST(TrainTimesFrom, PlansOnTheGivenTimes) {
  // Times no profile would measure (three times the earlier ones): the keep-all time reported is
  // theirs, not this run's.
  Graph g = torchtest::profiled("mlp").graph;
  for (auto& c : g.compute) c.time *= 3;
  const std::string path = scratch("mlp_x3.json");
  save_graph(g, path);
  auto r = torchbridge::train_model(torchtest::model_path("mlp"), torchtest::inputs_path("mlp"), one_step(path));
  const double expected = baseline(g).time;
  EXPECT_NEAR(r.keep_all_time, expected, 1e-9 * expected);
  EXPECT_EQ(r.steps.size(), 1u);
}

TEST(TrainTimesFrom, RefusesAnotherModelsProfile) {
  const std::string path = scratch("dropout.json");
  save_graph(torchtest::profiled("dropout").graph, path);
  EXPECT_THROW(torchbridge::train_model(torchtest::model_path("mlp"), torchtest::inputs_path("mlp"), one_step(path)),
               BadInput);
}

}  // namespace
}  // namespace hiremate
