// Errors that reach the user. One family, four kinds, each with the CLI exit code it maps to:
// BadInput (2): the input is wrong (file, flag, budget); the message says what, where, what to do.
// Infeasible (3): proven: no schedule in the graph's memory model fits the budget (below the floor
//   every schedule needs, or an exact solver's proof). Retrying with more time cannot help.
// NoPlanFound (4): a solver gave up (a heuristic, a restricted model, a time limit) without a
//   proof; another solver, a longer limit or a larger budget may find a plan.
// SolverFailure / Error (1): something inside hiremate failed.
// Invariant checks on internal state use HM_ASSERT, not these.
#pragma once
#include <stdexcept>
#include <string>

namespace hiremate {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  virtual int exit_code() const { return 1; }
};

class BadInput : public Error {
 public:
  explicit BadInput(const std::string& what) : Error(what) {}
  int exit_code() const override { return 2; }
};

class Infeasible : public Error {
 public:
  explicit Infeasible(const std::string& what) : Error(what) {}
  int exit_code() const override { return 3; }
};

class NoPlanFound : public Error {
 public:
  explicit NoPlanFound(const std::string& what) : Error(what) {}
  int exit_code() const override { return 4; }
};

class SolverFailure : public Error {
 public:
  explicit SolverFailure(const std::string& what) : Error(what) {}
};

[[noreturn]] void assertion_failed(const char* expr, const char* file, int line, const std::string& msg);

}  // namespace hiremate

// Internal invariant: a failure is a bug in hiremate, reported with its location.
#define HM_ASSERT(cond, msg) \
  do { if (!(cond)) ::hiremate::assertion_failed(#cond, __FILE__, __LINE__, (msg)); } while (0)
