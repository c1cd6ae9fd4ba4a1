// Cheap options along a cluster's save axis (issue 21): schedules that keep the outputs and phantoms
// of a chosen set of forward nodes from the forward to the backward and recompute the rest in the
// backward, where it is first needed. The sets are the prefixes of one greedy order, cheapest time
// per byte first (attention scores and activations before matmuls), so that the options walk down
// from autograd's save to almost recompute_all's in milliseconds.
//
// Why: below the top the H-ILP's solves take seconds each, and a large cluster whose time runs out
// has options only near its keep-all save; a parent that needs less of it can only take
// recompute_all (an encoder-decoder's decoder layer: three H-ILP options, the lowest holding 151 of
// its 440 MB, and the top recomputed four whole layers: 7.2 % of the step).
#pragma once
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate::hierarchy {

// A training graph's schedule that runs the forward once, keeping the phantoms of the forward nodes
// with keep[c] (indexed by compute id) and, by their reads, their outputs; after the loss, each
// backward node's missing inputs are recomputed first (forward nodes, recursively through their own
// missing inputs, each with its phantoms when its backward is still to run). What is recomputed stays
// until its last read (insert_frees). keep all: autograd's schedule.
Schedule save_set_schedule(const Graph& g, const std::vector<char>& keep);

// Up to `points` schedules of save_set_schedule along the greedy order above, evenly spaced in the
// bytes no longer kept (the first keeps all but the cheapest few, the last keeps nothing); fewer
// when the graph has fewer forward nodes with outputs. Needs a training graph.
std::vector<Schedule> save_front(const Graph& g, int points);

}  // namespace hiremate::hierarchy
