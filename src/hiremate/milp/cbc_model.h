// Internal to milp/: a Model loaded into CBC's C API (coin/Cbc_C_Interface.h), shared by solve()
// and write_lp(). Only milp/*.cpp include this header.
#pragma once
#include <coin/Cbc_C_Interface.h>

#include <memory>

#include "hiremate/milp/model.h"

namespace hiremate::milp::detail {

struct CbcDeleter {
  void operator()(Cbc_Model* m) const { Cbc_deleteModel(m); }
};
using CbcModelPtr = std::unique_ptr<Cbc_Model, CbcDeleter>;

struct CbcProblem {
  CbcModelPtr model;
  // Whether column num_vars() is an extra integer column fixed at 0. CBC 2.10's Cbc_solve handles
  // a model without integer columns with a bare Clp call that ignores the time limit and reports
  // an unbounded LP as infeasible; one integer column sends it through the full solver instead.
  bool has_dummy = false;
  // CBC sees objective * objective_scale. Its tolerances are absolute (1e-7 on reduced costs), so
  // costs of 1e-10 s (a small op at 100 TFLOP/s) all look like zero to it and any plan looks
  // optimal; costs far from 1 are scaled so the largest is 1000. 1 when they are already in
  // [1, 1e6] (integer costs keep their meaning for absolute gaps).
  double objective_scale = 1;
};

// The scale load_into_cbc applies to the objective (see CbcProblem::objective_scale).
double objective_scale(const Model& model);

enum class Purpose {
  Solve,    // with the dummy column where needed, without names (CBC does not need them)
  WriteLp,  // without the dummy, with LP-safe names
};

// Loads the matrix, bounds, objective, integrality and direction. The MIP start is left to the
// caller. Throws SolverFailure if CBC hands back no model.
CbcProblem load_into_cbc(const Model& model, Purpose purpose);

}  // namespace hiremate::milp::detail
