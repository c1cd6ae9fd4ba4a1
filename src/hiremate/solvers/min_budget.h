// The lowest feasible budget of a graph, the node that sets it and why, in the graph's bytes and in
// the user's units (activation bytes and % of the keep-all activation peak, the inputs excluded).
#pragma once
#include <cstdint>
#include <string>

#include "hiremate/graph/graph.h"

namespace hiremate {

// Every schedule runs every node at least once, and while a node runs its inputs, its outputs and
// its overhead are resident, besides the sources (resident throughout). So no schedule fits below
// the largest such sum over the nodes: `bytes`. It is Checkmate's floor (checkmate_min_budget), and
// the budget every front end's "min" plans at. A floor, not a promise: on the training graphs of
// chains it has a plan; where nodes' inputs must coexist (some generic DAGs) even it has none, and
// the solver says so.
struct MinBudget {
  int64_t bytes = 0;     // the lowest feasible budget in the graph's bytes (sources included)
  int64_t sources = 0;   // the sources' bytes (a profiled model's inputs)
  NodeId node = 0;       // the compute node that sets it (the first of the largest)
  int64_t inputs = 0;    // its inputs' bytes (sources excluded: counted in `sources`)
  int64_t outputs = 0;   // its outputs' bytes
  int64_t overhead = 0;  // its overhead (temporary bytes while it runs)

  // The user's units: activation bytes (sources excluded) and % of the keep-all activation peak.
  int64_t activations() const { return bytes - sources; }
  // (simulates the keep-all schedule: not for hot paths)
  double percent_of_keep_all(const Graph& g) const;
  // "node 'conv1' (forward): inputs 1,024 B + outputs 2,048 B + overhead 0 B resident while it runs"
  std::string why(const Graph& g) const;
};

// Linear in the graph's size (no simulation).
MinBudget min_budget(const Graph& g);

// A budget in activation bytes (the sources excluded), as `train` and the Python package take it:
// "min" is min_budget(g).activations(); anything else parse_budget() of the keep-all activation peak.
int64_t parse_activation_budget(const std::string& text, const Graph& g);

// Why `budget` (graph bytes, below min_budget(g).bytes) has no plan, with the lowest feasible budget
// in bytes and in activations: the note of every solver that refuses such a budget at once.
std::string below_min_budget_note(const Graph& g, int64_t budget);

}  // namespace hiremate
