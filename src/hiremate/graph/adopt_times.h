// Adopting the node times of an earlier profile of the same model (`hiremate train --times-from`).
// Each run of the profiler measures the times anew, and on a shared machine they move by a few
// percent: the benchmark report plans every solver of one model on the times of one profile, so
// that their overheads are compared on the same graph, while sizes stay this capture's own.
#pragma once
#include "hiremate/graph/graph.h"

namespace hiremate {

// Copies every compute node's time (and the time unit) of `from` into `to`. Throws BadInput, naming
// the first node that differs, unless both have the same compute nodes (names, kinds, in order) and
// the same data nodes (names, bytes, in order): a graph of another model, or of the same model
// captured differently, is not a source of times for this one.
void adopt_times(Graph& to, const Graph& from, const std::string& from_origin);

}  // namespace hiremate
