// The budget convention of every front end (solve, info, simulate, train, the Python package;
// DESIGN §3), with the one function that converts a user's budget, and the minimum budget
// (schedule/min_budget.h) in the user's words and units: the note every refusal below it carries,
// and "min" as a budget.
//
// A budget is in activation bytes: the graph's sources (a profiled model's inputs) are excluded,
// as are parameters and their gradients (outside every graph). A fraction (0.8) or a percentage
// (80%) is of the keep-all activation peak: baseline(g).peak - g.source_bytes(). The solvers and the
// simulator count the graph's bytes (sources included): add g.source_bytes().
// A graph without sources reads exactly as before this convention, its baseline peak being all
// activations: the public benchmark graphs (Checkmate's model, in which every node, the input's
// too, is computed, and no data node is a source) reproduce their published budgets
// ceil(p x peak(order)) unchanged (`hiremate info`, tests/cli Cli.InfoReproducesThePublishedBudgets).
#pragma once
#include <cstdint>
#include <string>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/min_budget.h"

namespace hiremate {

// What every output says beside a budget or a percentage of it.
inline constexpr const char* kActivationConvention = "of the keep-all activation peak, inputs excluded";

// The keep-all activation peak: what fractions and percentages are of (simulates the keep-all
// schedule: not for hot paths).
int64_t keep_all_activation_peak(const Graph& g);

// The one conversion: the user's budget ("41688", "1.5GiB", "0.8", "80%", "min") in activation
// bytes. "min" is min_budget_details(g).activations(). Throws BadInput for a malformed budget.
int64_t parse_activation_budget(const std::string& text, const Graph& g);

// The floor as % of the keep-all activation peak (simulates the keep-all schedule: not for hot paths).
double min_budget_percent(const Graph& g, const MinBudget& m);

// Why `budget` (graph bytes, below min_budget(g)) has no plan, with the floor in activations and
// its percentage: the note of every refusal below it.
std::string below_min_budget_note(const Graph& g, int64_t budget);

}  // namespace hiremate
