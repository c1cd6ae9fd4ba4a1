// One wall-clock deadline for a whole solve (DESIGN §3): created once at the top from the user's
// time limit and handed down. A component that gives part of its time to another hands it a child
// (share, within, fraction): a child never ends past its parent, so no composition can overrun the
// user's limit by adding up relative limits. Nothing below keeps a clock of its own.
//
// The clock is injectable (a function returning steady_clock time points) so that tests can drive
// a Deadline with a fake clock; children use their parent's clock.
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>

namespace hiremate {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  using TimePoint = Clock::time_point;
  using Now = std::function<TimePoint()>;

  // Ends `seconds` after now (a negative length is taken as 0: expired at once; lengths are capped
  // at kLongest, "no limit" without overflowing the clock).
  explicit Deadline(double seconds, Now now = Clock::now)
      : now_(std::move(now)), start_(now_()), end_(start_ + to_duration(seconds)) {}
  static constexpr double kLongest = 1e7;  // seconds: about four months

  // Seconds until the end, never negative.
  double left() const { return std::max(0.0, seconds_between(now_(), end_)); }
  bool expired() const { return now_() >= end_; }
  // Seconds since it was created.
  double elapsed() const { return seconds_between(start_, now_()); }
  // Its length: the limit it was created with (a child's after the cap by its parent).
  double seconds() const { return seconds_between(start_, end_); }
  TimePoint end() const { return end_; }
  TimePoint now() const { return now_(); }

  // A child from now for `seconds`, ending no later than this one.
  Deadline within(double seconds) const {
    Deadline d = *this;
    d.start_ = now_();
    d.end_ = std::min(end_, d.start_ + to_duration(seconds));
    return d;
  }
  // A child from now for `fraction` of what is left of this one.
  Deadline share(double fraction) const { return within(fraction * left()); }
  // A child from now that ends `fraction` of this one's length after this one's start (a phase of a
  // plan made at the start: "the sweep may run until 80 % of the limit").
  Deadline fraction(double fraction) const {
    Deadline d = *this;
    d.start_ = now_();
    d.end_ = std::min(end_, std::max(d.start_, start_ + to_duration(fraction * seconds())));
    return d;
  }

 private:
  static Clock::duration to_duration(double seconds) {
    const double capped = std::min(std::max(0.0, seconds), kLongest);
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(capped));
  }
  static double seconds_between(TimePoint a, TimePoint b) { return std::chrono::duration<double>(b - a).count(); }

  Now now_;
  TimePoint start_, end_;
};

}  // namespace hiremate
