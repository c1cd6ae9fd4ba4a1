// Errors that reach the user. One family, three kinds, each with the CLI exit code it maps to:
// BadInput (2): the input is wrong (file, flag, budget); the message says what, where, what to do.
// Infeasible (3): the input is fine but no plan fits the budget.
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

class SolverFailure : public Error {
 public:
  explicit SolverFailure(const std::string& what) : Error(what) {}
};

[[noreturn]] void assertion_failed(const char* expr, const char* file, int line, const std::string& msg);

}  // namespace hiremate

// Internal invariant: a failure is a bug in hiremate, reported with its location.
#define HM_ASSERT(cond, msg) \
  do { if (!(cond)) ::hiremate::assertion_failed(#cond, __FILE__, __LINE__, (msg)); } while (0)
