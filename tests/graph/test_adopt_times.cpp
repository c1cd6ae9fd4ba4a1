// adopt_times copies the times of an earlier profile of the same graph, and refuses a graph whose
// nodes or sizes differ (another model's times would plan this one on fiction).
#include "hiremate/graph/adopt_times.h"

#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"

using namespace hiremate;

TEST(AdoptTimes, CopiesEveryComputeTime) {
  Graph to = generate::chain({6, 100, 1, 2}, {});
  Graph from = generate::chain({6, 100, 1, 2}, {});
  for (size_t i = 0; i < from.compute.size(); ++i) from.compute[i].time = 10.0 + double(i);
  from.time_unit = "ms";
  adopt_times(to, from, "earlier.json");
  for (size_t i = 0; i < to.compute.size(); ++i) EXPECT_EQ(to.compute[i].time, 10.0 + double(i));
  EXPECT_EQ(to.time_unit, "ms");
}

TEST(AdoptTimes, RefusesAnotherGraph) {
  Graph to = generate::chain({6, 100, 1, 2}, {});
  const double before = to.compute[0].time;
  // Another length: the node counts differ.
  EXPECT_THROW(adopt_times(to, generate::chain({7, 100, 1, 2}, {}), "longer.json"), BadInput);
  // Same nodes, other sizes: the message names the first data node that differs and what to do.
  Graph bigger = generate::chain({6, 200, 1, 2}, {});
  try {
    adopt_times(to, bigger, "bigger.json");
    FAIL() << "a graph with other sizes was accepted";
  } catch (const BadInput& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("bigger.json"), std::string::npos) << m;
    EXPECT_NE(m.find("bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("hiremate profile"), std::string::npos) << m;
  }
  // A refused graph leaves the times as they were.
  EXPECT_EQ(to.compute[0].time, before);
}
