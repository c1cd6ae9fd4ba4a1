#include "hiremate/milp/checkpoint_watch.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace hiremate::milp::detail {

std::optional<double> incumbent_in_log_line(std::string_view line) {
  auto number_at = [&line](size_t at) -> std::optional<double> {
    const std::string rest(line.substr(at, 40));
    char* end = nullptr;
    const double v = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) return std::nullopt;
    return v;
  };
  // Cbc0004I / Cbc0012I: "Integer solution of 3218.625 found by feasibility pump after ..."; Cbc0045I:
  // "MIPStart provided solution with cost 3218.625".
  for (std::string_view announced : {std::string_view("Integer solution of "), std::string_view("solution with cost ")})
    if (const size_t at = line.find(announced); at != std::string_view::npos) return number_at(at + announced.size());
  // Cbc0010I: "After 100 nodes, 54 on tree, 3210.2812 best solution, best possible 3194.1562 (...)";
  // 1e50 where there is none yet.
  constexpr std::string_view progress = " best solution, ";
  if (const size_t at = line.find(progress); at != std::string_view::npos) {
    const size_t comma = line.rfind(", ", at);
    if (comma == std::string_view::npos) return std::nullopt;
    auto v = number_at(comma + 2);
    if (v && *v < 1e49) return v;
  }
  return std::nullopt;
}

void watch_log(int fd, std::chrono::steady_clock::time_point checkpoint, double cutoff, bool forward,
               const std::function<void()>& lost) {
  // No incumbent yet: an infinite cutoff (the caller has no plan) is beaten only by a plan, so that
  // CBC without one stops at its checkpoint (unet-100 at 25 %, where TW-Remat has none: the flat
  // MILP's probe held its thread for 22 of 30 s without finding a plan).
  std::optional<double> best;
  bool decided = false;
  std::string pending;
  char buf[4096];
  for (;;) {
    int timeout_ms = -1;
    if (!decided) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(checkpoint - std::chrono::steady_clock::now());
      timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    pollfd pfd{fd, POLLIN, 0};
    // At the checkpoint, what CBC wrote before it is read first (a zero timeout drains the pipe).
    while (poll(&pfd, 1, timeout_ms) > 0) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) return;  // the child's stdout closed
      if (forward) (void)!::write(STDERR_FILENO, buf, static_cast<size_t>(n));
      pending.append(buf, static_cast<size_t>(n));
      for (size_t eol; (eol = pending.find('\n')) != std::string::npos; pending.erase(0, eol + 1))
        if (auto v = incumbent_in_log_line(std::string_view(pending).substr(0, eol)); v && (!best || *v < *best))
          best = v;
      if (!decided) timeout_ms = 0;
    }
    if (!decided && std::chrono::steady_clock::now() >= checkpoint) {
      if (!(best && *best < cutoff)) lost();
      decided = true;
    }
  }
}

CheckpointWatch::CheckpointWatch(double seconds, double cutoff, bool forward, std::function<void()> lost) {
  int fds[2];
  if (pipe(fds) != 0) return;  // no watch: the search runs to its limit, as without a checkpoint
  std::fflush(stdout);
  dup2(fds[1], STDOUT_FILENO);
  close(fds[1]);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // CBC's lines reach the watch as they are printed
  const auto checkpoint = std::chrono::steady_clock::now() +
                          std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  // Never joined: the child _exits, from here or after the search.
  std::thread([fd = fds[0], checkpoint, cutoff, forward, lost = std::move(lost)] {
    watch_log(fd, checkpoint, cutoff, forward, lost);
  }).detach();
}

}  // namespace hiremate::milp::detail
