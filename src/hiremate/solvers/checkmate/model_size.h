// A cap on Checkmate's MILP size, checked before anything is built: the model has T stages (one per
// compute node) and, per stage, R/S/U variables per earlier node plus FREE variables per edge, so it
// grows as T^2 (T * edges, in fact) and a few thousand nodes would exhaust memory inside CBC.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "hiremate/graph/graph.h"

namespace hiremate::checkmate {

// Above this many estimated variables checkmate refuses the graph (about 1 KiB per variable
// between our model and CBC's copies: ~10 GiB).
constexpr int64_t kMaxVariables = 10'000'000;

// An upper bound on the variables of the stage model: 3 per (stage, earlier node) and 1 per
// (stage, dependency edge).
int64_t estimated_variables(const Graph& g);

// Why the model would be too big, or nullopt when it fits under `max_variables`.
std::optional<std::string> too_big(const Graph& g, int64_t max_variables = kMaxVariables);

}  // namespace hiremate::checkmate
