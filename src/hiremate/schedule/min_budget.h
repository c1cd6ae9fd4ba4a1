// The minimum budget: a fact of the memory model (DESIGN §2), not of any solver. Every schedule runs
// every node at least once, and while a node runs its inputs, its outputs and its overhead are
// resident, besides the sources (resident throughout). So no schedule, in any solver, peaks below
// the largest such sum over the nodes. Below it the answer is "infeasible" as a proof
// (solve_checked refuses such a budget once, for every solver); menus and the planner use it as the
// low end of their budget grids; every front end's "min" plans at it. A floor, not a promise: where
// nodes' inputs must coexist (some generic DAGs) even it has no plan, and the solver says so.
#pragma once
#include <cstdint>
#include <string>

#include "hiremate/graph/graph.h"

namespace hiremate {

struct MinBudget {
  int64_t bytes = 0;     // the floor in the graph's bytes (sources included)
  int64_t sources = 0;   // the sources' bytes (a profiled model's inputs)
  NodeId node = 0;       // the compute node that sets it (the first of the largest)
  int64_t inputs = 0;    // its inputs' bytes (sources excluded: counted in `sources`)
  int64_t outputs = 0;   // its outputs' bytes (a forward's own phantoms excluded)
  int64_t overhead = 0;  // its overhead (temporary bytes while it runs)

  // The user's units: activation bytes (sources excluded), and % of a keep-all peak (sources
  // included, as the simulator gives it) in activations.
  int64_t activations() const { return bytes - sources; }
  double percent_of_keep_all(int64_t keep_all_peak) const;
  // "node 'conv1' (forward): inputs 1,024 B + outputs 2,048 B + overhead 0 B resident while it runs"
  std::string why(const Graph& g) const;
};

// Linear in the graph's size (no simulation).
MinBudget min_budget_details(const Graph& g);
// min_budget_details(g).bytes.
int64_t min_budget(const Graph& g);

}  // namespace hiremate
