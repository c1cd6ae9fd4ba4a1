// The two baselines of research/hiremate.md §4.1.
// autograd: PyTorch's behaviour; every node once in the fixed order, phantoms kept, every data node
//   freed right after its last use. On a generic DAG this is the fixed order run once.
// recompute_all (training graphs): the forward runs without keeping phantoms, freeing what it can;
//   after the loss, the whole autograd schedule runs again (forward with phantoms, then backward).
//   It keeps nothing between the halves but the loss inputs; it is a cluster option more than a
//   memory saver for whole graphs.
#pragma once
#include "hiremate/solvers/solver.h"

namespace hiremate {

class AutogradSolver : public Solver {
 public:
  std::string name() const override { return "autograd"; }
  std::string description() const override {
    return "PyTorch's autodiff: keep everything until its last use (the baseline)";
  }
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;
  bool reports_lowest_peak() const override { return true; }  // one simulation
};

class RecomputeAllSolver : public Solver {
 public:
  std::string name() const override { return "recompute_all"; }
  std::string description() const override {
    return "forward without saving, then the full autograd schedule after the loss (training graphs)";
  }
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;
  bool reports_lowest_peak() const override { return true; }  // one simulation
};

Schedule recompute_all_schedule(const Graph& g);

}  // namespace hiremate
