// Rotor and Rockmate: the chain DP (rotor_dp.h) over a training graph's blocks (chain.h), each block
// choosing among its options (research/hiremate.md §4.4; research/peers.md §3.2, §3.3). They live in
// the hierarchy, not in solvers/, because their blocks are cluster problems offering options (and,
// for Rockmate, menus of another solver's plans); the classes themselves are Solvers like the others.
//  - rotor: each block offers its autograd and recompute-all options, plus its fast forward;
//  - rockmate: each block offers a menu (menu.h) of Checkmate solves over a budget grid, the
//    baselines included; identical blocks are solved once. Its time limit covers the menus: blocks
//    met after it is spent offer the baselines only (said in the note).
// The DP's sequence is expanded into one flat schedule (each block's op lists, frees inserted after
// last use) and simulated; the DP's accounting bounds the simulator's, so the plan fits the budget.
// Status: feasible (optimal within Rotor's persistent schedules and the blocks' options only).
#pragma once
#include <memory>

#include "hiremate/hierarchy/chain.h"
#include "hiremate/solvers/solver.h"

namespace hiremate {

struct RotorConfig {
  int64_t max_slots = 1000;  // memory units of the DP table (rotor_dp.h, choose_unit)
};

namespace hierarchy {
// The DP on a built chain: shared by both solvers, the planner and tests.
Plan solve_chain(const Graph& g, const Chain& chain, int64_t budget, const SolveOptions& opt,
                 const RotorConfig& cfg = {});
}  // namespace hierarchy

class RotorSolver : public Solver {
 public:
  explicit RotorSolver(RotorConfig cfg = {}) : cfg_(cfg) {}
  std::string name() const override { return "rotor"; }
  std::string description() const override {
    return "Rotor's chain DP; each block: autograd, recompute-all or fast forward (chain-shaped training graphs)";
  }
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;

 private:
  RotorConfig cfg_;
};

class RockmateSolver : public Solver {
 public:
  // `bottom` solves each block's menu (the registry gives it checkmate).
  explicit RockmateSolver(std::shared_ptr<const Solver> bottom, RotorConfig cfg = {})
      : bottom_(std::move(bottom)), cfg_(cfg) {}
  std::string name() const override { return "rockmate"; }
  std::string description() const override {
    return "Rotor's chain DP over per-block Checkmate menus (Rockmate; chain-shaped training graphs)";
  }
  std::optional<std::string> unsupported(const Graph& g) const override;
  Plan solve(const Graph& g, int64_t budget, const SolveOptions& opt) const override;

 private:
  std::shared_ptr<const Solver> bottom_;
  RotorConfig cfg_;
};

}  // namespace hiremate
