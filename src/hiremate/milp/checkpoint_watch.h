// Internal to milp/: Options::checkpoint_seconds in the search's child process (cbc_solve.cpp).
//
// CBC 2.10's C interface reports no incumbent during the search (no incumbent callback; a cut
// callback, whose LP solver carries CBC's cutoff, would do, but a cut generator changes the search:
// transformer-100 at 50 %, 1 thread, 30 s, 9.02 % without one, 9.30 % with it). Its log at level 1
// announces every incumbent ("Integer solution of 3210.28 found by ...", "... 3210.28 best
// solution, ..."), and the log level changes nothing in the search. So the child points its stdout,
// where CBC prints, at a pipe that a thread of its own reads: it keeps the best incumbent, passes
// the lines on to stderr where the caller asked for CBC's log, and at the checkpoint calls `lost`
// (which ends the child) unless that incumbent is below the cutoff.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string_view>

namespace hiremate::milp::detail {

class CheckpointWatch {
 public:
  // From now on fd 1 goes to the watch. `seconds`: from now; `cutoff`: in CBC's (scaled) objective.
  CheckpointWatch(double seconds, double cutoff, bool forward, std::function<void()> lost);
  CheckpointWatch(const CheckpointWatch&) = delete;
  CheckpointWatch& operator=(const CheckpointWatch&) = delete;
};

// The watch's thread: reads the log from `fd` until it closes, passing it on to stderr where
// `forward`; at `checkpoint`, after what was written before it, calls `lost` unless an incumbent
// below `cutoff` was announced (with no incumbent, `lost` is called whatever the cutoff, infinity too).
void watch_log(int fd, std::chrono::steady_clock::time_point checkpoint, double cutoff, bool forward,
               const std::function<void()>& lost);

// The objective of the incumbent that a line of CBC's log announces, if it announces one.
std::optional<double> incumbent_in_log_line(std::string_view line);

}  // namespace hiremate::milp::detail
