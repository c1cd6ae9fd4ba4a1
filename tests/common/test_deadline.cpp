// Deadline with a fake clock (issue 24): the time is what the test says, so every assertion is exact.
#include <gtest/gtest.h>

#include "hiremate/common/deadline.h"

using namespace hiremate;

namespace {

struct FakeClock {
  Deadline::TimePoint t{};
  void advance(double seconds) {
    t += std::chrono::duration_cast<Deadline::Clock::duration>(std::chrono::duration<double>(seconds));
  }
  Deadline::Now now() {
    return [this] { return t; };
  }
};

}  // namespace

TEST(Deadline, LeftElapsedAndExpiredFollowTheClock) {
  FakeClock clock;
  Deadline d(10, clock.now());
  EXPECT_DOUBLE_EQ(d.seconds(), 10);
  EXPECT_DOUBLE_EQ(d.left(), 10);
  EXPECT_FALSE(d.expired());
  clock.advance(4);
  EXPECT_DOUBLE_EQ(d.left(), 6);
  EXPECT_DOUBLE_EQ(d.elapsed(), 4);
  clock.advance(6);
  EXPECT_TRUE(d.expired());
  EXPECT_DOUBLE_EQ(d.left(), 0);
  clock.advance(5);
  EXPECT_DOUBLE_EQ(d.left(), 0) << "never negative";
  EXPECT_DOUBLE_EQ(d.elapsed(), 15);
}

TEST(Deadline, NegativeLimitIsExpiredAtOnce) {
  FakeClock clock;
  Deadline d(-1, clock.now());
  EXPECT_TRUE(d.expired());
  EXPECT_DOUBLE_EQ(d.left(), 0);
}

TEST(Deadline, ShareIsOfWhatIsLeft) {
  FakeClock clock;
  Deadline d(10, clock.now());
  clock.advance(2);
  Deadline half = d.share(0.5);
  EXPECT_DOUBLE_EQ(half.seconds(), 4);
  EXPECT_DOUBLE_EQ(half.elapsed(), 0) << "a child starts when it is made";
  clock.advance(4);
  EXPECT_TRUE(half.expired());
  EXPECT_FALSE(d.expired());
}

TEST(Deadline, ChildrenNeverEndPastTheirParent) {
  FakeClock clock;
  Deadline d(10, clock.now());
  clock.advance(7);
  EXPECT_DOUBLE_EQ(d.within(100).seconds(), 3);
  EXPECT_DOUBLE_EQ(d.share(2).seconds(), 3);
  EXPECT_TRUE(d.within(100).end() == d.end());
  Deadline grandchild = d.within(100).within(100);
  EXPECT_TRUE(grandchild.end() == d.end());
  clock.advance(3);
  EXPECT_TRUE(grandchild.expired());
}

TEST(Deadline, FractionEndsAtAShareOfTheLengthFromTheStart) {
  FakeClock clock;
  Deadline d(10, clock.now());
  clock.advance(3);
  Deadline phase = d.fraction(0.8);  // until 8 s after d's start
  EXPECT_DOUBLE_EQ(phase.left(), 5);
  EXPECT_DOUBLE_EQ(d.fraction(2).left(), 7) << "capped by the parent";
  clock.advance(6);
  EXPECT_TRUE(d.fraction(0.8).expired()) << "made after its end: expired at once";
}

TEST(Deadline, DefaultClockIsSteady) {
  Deadline d(60);
  EXPECT_FALSE(d.expired());
  EXPECT_GT(d.left(), 59);
  EXPECT_LE(d.left(), 60);
}
