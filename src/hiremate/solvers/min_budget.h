// The minimum budget (schedule/min_budget.h) in the user's words and units: the note every refusal
// below it carries, and "min" as a budget.
#pragma once
#include <cstdint>
#include <string>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/min_budget.h"

namespace hiremate {

// The floor as % of the keep-all activation peak (simulates the keep-all schedule: not for hot paths).
double min_budget_percent(const Graph& g, const MinBudget& m);

// A budget in activation bytes (the sources excluded), as `train` and the Python package take it:
// "min" is min_budget_details(g).activations(); anything else parse_budget() of the keep-all activation peak.
int64_t parse_activation_budget(const std::string& text, const Graph& g);

// Why `budget` (graph bytes, below min_budget(g)) has no plan, with the floor in bytes and in
// activations: the note of every refusal below it.
std::string below_min_budget_note(const Graph& g, int64_t budget);

}  // namespace hiremate
