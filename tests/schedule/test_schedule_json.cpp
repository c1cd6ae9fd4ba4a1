// The schedule file format: round trip, defaults, and errors with the JSON pointer of the op.
#include "hiremate/schedule/schedule_json.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "hiremate/common/error.h"
#include "support/tiny_graphs.h"

using namespace hiremate;
using hiremate::testing::diamond;
using hiremate::testing::two_layer;

namespace {

Schedule sample(const Graph& g) {
  auto C = [&](const char* n) { return *g.find_compute(n); };
  auto D = [&](const char* n) { return *g.find_data(n); };
  return {{Op::compute(C("F1"), false), Op::compute(C("F2")), Op::del(D("a")), Op::compute(C("F1")),
           Op::loss_marker(g.loss), Op::compute(C("B2")), Op::del(D("bg")), Op::compute(C("B1"))}};
}

std::string error_of(const Graph& g, const std::string& text) {
  try {
    parse_schedule(g, text, "s.json");
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

std::string with_ops(const std::string& ops) {
  return R"({"format": "hiremate-schedule", "version": 1, "ops": [)" + ops + "]}";
}

}  // namespace

TEST(ScheduleJson, WritesTheDocumentedShape) {
  Graph g = two_layer();
  nlohmann::json j = schedule_to_json(g, sample(g));
  EXPECT_EQ(j["format"], "hiremate-schedule");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["ops"][0], (nlohmann::json{{"op", "compute"}, {"node", "F1"}, {"keep_phantoms", false}}));
  EXPECT_EQ(j["ops"][2], (nlohmann::json{{"op", "delete"}, {"data", "a"}}));
  EXPECT_EQ(j["ops"][4], (nlohmann::json{{"op", "loss"}}));
}

TEST(ScheduleJson, RoundTrip) {
  Graph g = two_layer();
  Schedule s = sample(g);
  EXPECT_EQ(parse_schedule(g, schedule_to_json(g, s).dump(), "s.json"), s);
  std::string text = schedule_to_string(g, s);
  EXPECT_EQ(parse_schedule(g, text, "s.json"), s);
  EXPECT_NE(text.find("\n    {\"op\":\"delete\",\"data\":\"a\"},\n"), std::string::npos) << text;  // one op a line
  std::string path = ::testing::TempDir() + "hiremate_schedule_json.json";
  save_schedule(g, s, path);
  EXPECT_EQ(load_schedule(g, path), s);
  std::filesystem::remove(path);
  EXPECT_EQ(parse_schedule(g, schedule_to_string(g, Schedule{}), "s.json"), Schedule{});
}

TEST(ScheduleJson, KeepPhantomsDefaultsToTrueAndLossFollowsTheGraph) {
  Graph g = two_layer();
  Schedule s = parse_schedule(g, with_ops(R"({"op": "compute", "node": "F1"}, {"op": "loss"})"), "s.json");
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.ops[0], Op::compute(*g.find_compute("F1"), true));
  EXPECT_EQ(s.ops[1], Op::loss_marker(g.loss));
  // A generic DAG has no loss node; a loss op then refers to none (the simulator judges it).
  Graph d = diamond();
  EXPECT_EQ(parse_schedule(d, with_ops(R"({"op": "loss"})"), "s.json").ops[0].node, kNone);
}

TEST(ScheduleJson, Errors) {
  Graph g = two_layer();
  std::string seven_ok;
  for (int i = 0; i < 7; ++i) seven_ok += R"({"op": "compute", "node": "F1"}, )";
  const std::pair<std::string, std::string> cases[] = {
      {with_ops(seven_ok + R"({"op": "compute", "node": "F9"})"),
       "s.json: /ops/7/node: unknown compute node 'F9'"},
      {with_ops(R"({"op": "delete", "data": "zz"})"), "s.json: /ops/0/data: unknown data node 'zz'"},
      {with_ops(R"({"op": "delete", "data": "F1"})"), "/ops/0/data: unknown data node 'F1'"},
      {with_ops(R"({"op": "free", "data": "a"})"), "/ops/0/op: unknown op 'free'; use compute, delete or loss"},
      {with_ops(R"({"op": "compute", "node": 3})"), "/ops/0/node: expected a string, got an integer"},
      {with_ops(R"({"op": "compute", "node": "F1", "keep_phantoms": 1})"), "/ops/0/keep_phantoms: expected true or false"},
      {with_ops(R"({"op": "compute", "data": "a"})"), "/ops/0/data: unknown field 'data'"},
      {with_ops(R"({"node": "F1"})"), "/ops/0: missing required field 'op'"},
      {with_ops(R"("F1")"), "/ops/0: expected an object, got a string"},
      {R"({"format": "hiremate-schedule", "version": 2, "ops": []})", "/version: unknown version 2"},
      {R"({"format": "hiremate-graph", "version": 1, "ops": []})", "/format: format 'hiremate-graph' is not"},
      {R"({"format": "hiremate-schedule", "version": 1, "ops": [)", "s.json: invalid JSON at line 1"},
  };
  for (const auto& [text, fragment] : cases) {
    std::string msg = error_of(g, text);
    EXPECT_NE(msg.find(fragment), std::string::npos) << "input: " << text << "\nmessage: " << msg;
  }
  EXPECT_THROW(load_schedule(g, "/nonexistent-dir/s.json"), BadInput);
}
