// A status line on stderr while a long call runs: on a terminal one line updated every second
// (erased at the end), in a log a plain line every 5 s. Nothing for calls under a second.
#pragma once
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

namespace hiremate::cli {

class Ticker {
 public:
  Ticker(std::string what, double limit_seconds, bool enabled = true)
      : what_(std::move(what)), limit_(limit_seconds), tty_(isatty(STDERR_FILENO) != 0) {
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
    for (int tick = 1; !cv_.wait_until(lock, start + std::chrono::seconds(tick), [this] { return done_; }); ++tick) {
      const std::string line = fmt::format("{}: {} s elapsed of the {} s limit", what_, tick, limit_);
      if (tty_) {
        std::cerr << "\r" << line << "\033[K" << std::flush;
        shown = true;
      } else if (tick % 5 == 0) {
        std::cerr << line << "\n" << std::flush;
      }
    }
    if (shown) std::cerr << "\r\033[K" << std::flush;
  }

  std::string what_;
  double limit_;
  bool tty_;
  bool done_ = false;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace hiremate::cli
