#include "hiremate/milp/stdout_to_stderr.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>

namespace hiremate::milp::detail {

namespace {

std::mutex mutex;
int users = 0;
int saved_stdout = -1;  // a duplicate of the real fd 1 while redirected; -1 if dup failed

// Text already buffered for the real stdout must reach it before fd 1 changes, and text CBC
// buffered while redirected must reach stderr before fd 1 is restored.
void flush_stdout() {
  std::cout.flush();
  std::fflush(stdout);
}

}  // namespace

StdoutToStderr::StdoutToStderr() {
  std::lock_guard<std::mutex> lock(mutex);
  if (users++ > 0) return;
  flush_stdout();
  saved_stdout = dup(STDOUT_FILENO);
  // If either call fails, stdout stays where it was: noise is better than losing the solve.
  if (saved_stdout >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    close(saved_stdout);
    saved_stdout = -1;
  }
}

StdoutToStderr::~StdoutToStderr() {
  std::lock_guard<std::mutex> lock(mutex);
  if (--users > 0) return;
  flush_stdout();
  if (saved_stdout >= 0) {
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
    saved_stdout = -1;
  }
}

}  // namespace hiremate::milp::detail
