// The interval-covering relaxation's dual (schedule/interval_cover.h) on cases solved by hand.
#include "hiremate/schedule/interval_cover.h"

#include <gtest/gtest.h>

using namespace hiremate;

namespace {

const auto kNever = std::chrono::steady_clock::now() + std::chrono::hours(1);

// One tight moment: the LP is a fractional knapsack (cheapest cost per byte first), and the start
// row gives it exactly: 15 bytes to free from items of 2 per 10 bytes and 3 per 10 bytes: 2 + 1.5.
TEST(IntervalCover, OneTightMomentIsTheFractionalKnapsack) {
  IntervalCover c;
  c.floor = {5};
  c.items = {{0, 0, 3.0, 10}, {0, 0, 2.0, 10}};
  const IntervalCoverDual d = interval_cover_dual(c, 10, 0, kNever);  // the start alone
  EXPECT_DOUBLE_EQ(d.bound, 3.5);
}

// Two tight moments that share an item: min 3a + 2b + c with 10a + 100c >= 100 (moment 0) and
// 10a + 10b >= 15 (moment 1): b = 1, a = 0.5, c = 0.95, 4.45, more than either row alone (1 and 3.5).
TEST(IntervalCover, StepsRiseFromTheBestRowTowardsTheLp) {
  IntervalCover c;
  c.floor = {0, 5, 0};
  c.items = {{0, 2, 3.0, 10}, {1, 1, 2.0, 10}, {0, 0, 1.0, 100}};
  const IntervalCoverDual start = interval_cover_dual(c, 10, 0, kNever);
  EXPECT_DOUBLE_EQ(start.bound, 3.5);
  const IntervalCoverDual d = interval_cover_dual(c, 10, 2000, kNever);
  EXPECT_FALSE(d.infeasible);
  EXPECT_LE(d.bound, 4.45 + 1e-9);
  EXPECT_GT(d.bound, 4.3);
}

TEST(IntervalCover, NothingToCoverAndNothingThatFits) {
  IntervalCover c;
  c.floor = {4, 4};
  c.items = {{0, 1, 1.0, 3}};
  const IntervalCoverDual fits = interval_cover_dual(c, 7, 100, kNever);
  EXPECT_EQ(fits.bound, 0);
  EXPECT_EQ(fits.iterations, 0);
  const IntervalCoverDual over = interval_cover_dual(c, 3, 100, kNever);
  EXPECT_TRUE(over.infeasible);
}

}  // namespace
