// A status line on stderr while a long call runs (solve, train, profile): the seconds elapsed (of the
// limit, where there is one) and, where the call reports to a Progress (common/progress.h), its
// phase, the best plan so far and the bound, as overheads over the keep-all time. On a terminal one
// line updated every second (erased at the end); in a log (a file, a pipe) plain lines, never a
// carriage return or an escape code: one when the phase, the best or the bound changed (at most one a
// second), and one every 5 s. Nothing for calls under a second.
#pragma once
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "hiremate/common/progress.h"

namespace hiremate::cli {

// One status line: "WHAT: 3 s elapsed of the 8 s limit; PHASE; best so far +2.31 % overhead; bound
// +1.02 %". `limit` <= 0: no limit said. The best and the bound are overheads over the snapshot's
// baseline (the keep-all time) where it is known and positive, else times.
inline std::string status_line(const std::string& what, int seconds, double limit, const Progress::Snapshot& s) {
  const double baseline_time = s.baseline.value_or(0);
  std::string line = limit > 0 ? fmt::format("{}: {} s elapsed of the {} s limit", what, seconds, limit)
                               : fmt::format("{}: {} s elapsed", what, seconds);
  auto as_overhead = [&](double time) {
    return baseline_time > 0 ? fmt::format("{:+.2f} %", 100.0 * (time - baseline_time) / baseline_time)
                             : fmt::format("{:.6g}", time);
  };
  if (!s.phase.empty()) line += "; " + s.phase;
  if (s.best) line += "; best so far " + as_overhead(*s.best) + (baseline_time > 0 ? " overhead" : "");
  if (s.bound && (!s.best || *s.bound <= *s.best)) line += "; bound " + as_overhead(*s.bound);
  return line;
}

class Ticker {
 public:
  // Shows `what` with the seconds elapsed of `limit_seconds` (0: none) until destroyed; with
  // `progress`, also its phase, best and bound. `enabled` false: nothing (the caller prints its own
  // log, as solve -v does).
  Ticker(std::string what, double limit_seconds, bool enabled = true, std::shared_ptr<const Progress> progress = nullptr)
      : what_(std::move(what)), limit_(limit_seconds), tty_(isatty(STDERR_FILENO) != 0), progress_(std::move(progress)) {
    if (enabled) thread_ = std::thread([this] { loop(); });
  }
  ~Ticker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

 private:
  void loop() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    bool shown = false;
    std::string last_state;
    for (int tick = 1; !cv_.wait_until(lock, start + std::chrono::seconds(tick), [this] { return done_; }); ++tick) {
      const Progress::Snapshot s = progress_ ? progress_->snapshot() : Progress::Snapshot{};
      const std::string line = status_line(what_, tick, limit_, s);
      if (tty_) {
        std::cerr << "\r" << line << "\033[K" << std::flush;
        shown = true;
        continue;
      }
      const std::string state = status_line("", 0, 0, s);  // what changes, without the seconds
      if (tick % 5 == 0 || state != last_state) std::cerr << line << "\n" << std::flush;
      last_state = state;
    }
    if (shown) std::cerr << "\r\033[K" << std::flush;
  }

  std::string what_;
  double limit_;
  bool tty_;
  std::shared_ptr<const Progress> progress_;
  bool done_ = false;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace hiremate::cli
