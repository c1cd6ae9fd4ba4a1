#include <gtest/gtest.h>

#include "hiremate/schedule/budget.h"

using namespace hiremate;

TEST(Budget, PeakAloneOrPeakAndBytesAtTheLoss) {
  const Budget peak_only{100, std::nullopt};
  EXPECT_TRUE(peak_only.admits(100, 1'000'000));  // no save budget: the loss is free
  EXPECT_FALSE(peak_only.admits(101, 0));
  const Budget both{100, 40};
  EXPECT_TRUE(both.admits(100, 40));
  EXPECT_FALSE(both.admits(100, 41));
  EXPECT_FALSE(both.admits(101, 40));
}

TEST(Budget, AnInvalidScheduleNeverFits) {
  SimResult r;
  r.valid = false;
  r.peak = 0;
  EXPECT_FALSE((Budget{100, std::nullopt}.admits(r)));
  r.valid = true;
  EXPECT_TRUE((Budget{100, std::nullopt}.admits(r)));
}
