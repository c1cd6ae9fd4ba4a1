// Internal to milp/: while alive, the process's stdout (fd 1) goes to stderr (fd 2).
//
// Why: CBC prints its log, and a few warnings even at log level 0 (e.g. the LP writer's name
// checks), with printf and std::cout to stdout, which hiremate keeps for machine-readable results.
// Nested and concurrent instances share one redirection (the first opens it, the last closes it).
#pragma once

namespace hiremate::milp::detail {

class StdoutToStderr {
 public:
  StdoutToStderr();
  ~StdoutToStderr();
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;
};

}  // namespace hiremate::milp::detail
