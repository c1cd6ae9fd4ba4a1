// What a long call is doing, for a status line on stderr (cli/progress.h's Ticker, the Python
// package's verbose mode): the current phase, the fastest plan found so far and a lower bound on the
// time of any plan, where known. Solvers and the planner report to it through SolveOptions::progress
// (a few calls, no formatting); whoever shows it takes a snapshot about once a second.
//
// Thread-safe: solvers on several threads may report at once, and the reader runs on its own thread.
// Times are in the graph's time unit (the simulator's SimResult::time), not overheads: the reader
// knows the baseline.
#pragma once
#include <mutex>
#include <optional>
#include <string>

namespace hiremate {

class Progress {
 public:
  struct Snapshot {
    std::string phase;            // what runs now ("partitioning", "top: H-ILP", "CBC on 1,204 variables"); may be empty
    std::optional<double> best;   // the fastest plan that fits, found so far
    std::optional<double> bound;  // no plan is faster than this (the greatest bound reported)
    std::optional<double> baseline;  // the keep-all time, which overheads are relative to, once known
  };

  // What runs now (replaces the previous phase).
  void phase(std::string what) {
    std::lock_guard<std::mutex> lock(mu_);
    s_.phase = std::move(what);
  }
  // A plan that fits the budget takes `time`: kept when it is the fastest so far.
  void best(double time) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!s_.best || time < *s_.best) s_.best = time;
  }
  // No plan takes less than `time`: kept when it is the greatest bound so far.
  void bound(double time) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!s_.bound || time > *s_.bound) s_.bound = time;
  }
  // The keep-all time (Baseline::time): the best and the bound are shown as overheads over it.
  void baseline(double time) {
    std::lock_guard<std::mutex> lock(mu_);
    s_.baseline = time;
  }
  Snapshot snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return s_;
  }

 private:
  mutable std::mutex mu_;
  Snapshot s_;
};

}  // namespace hiremate
