// Per-op memory corrections of an option (research/hiremate.md §5.5, accurate_mem).
//
// The parent ILP counts a sub-cluster's interface inputs as resident for its whole step and its
// interface outputs as resident from the step's start. Inside the sub-schedule an output appears
// only when produced and an input may be freed midway. A correction records, for one op of one half,
// the internal memory there and the interface data that are really absent, split by the parent
// variable that decides whether the absence is real:
//  - not_yet_created: an output of this half not produced yet; absent unless the parent already had
//    it (the "start status", cr in §5.5);
//  - freed: data this half frees before the op; absent only if the parent lets the inner delete
//    stand (the "end status", del in §5.5; §6.2 disables inner deletes of data the parent keeps).
// Which data count per half: the forward's inputs are the input data and its outputs the output
// data; the backward's inputs are the output grads and dep_interfaces_data, its outputs the input
// grads. Input data are sources of the cluster graph, so a sub-schedule never frees them: the
// parent frees inputs after the step.
// Presence comes from the simulator: one run per interface node on a copy of the cluster graph where
// only that node weighs anything.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/schedule/schedule.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/hierarchy/cluster_problem.h"

namespace hiremate::hierarchy {

struct Correction {
  int64_t save = 0;      // internal bytes resident after the op (interfaces excluded)
  int64_t overhead = 0;  // what the op holds beyond that while it runs (its outputs already counted)
  std::vector<NodeId> not_yet_created;  // parent ids, sorted
  std::vector<NodeId> freed;            // parent ids, sorted
  bool operator==(const Correction& o) const {
    return save == o.save && overhead == o.overhead && not_yet_created == o.not_yet_created &&
           freed == o.freed;
  }
};

struct Corrections {
  std::vector<Correction> fwd, bwd;  // one per distinct record, in op order
};

// `s` is a valid cluster schedule whose loss marker is op `loss`; `inner` its simulation on
// cg.interior(); `dep_interfaces_data` in cluster ids.
Corrections make_corrections(const ClusterProblem& cg, const Schedule& s, size_t loss, const SimResult& inner,
                             const std::vector<NodeId>& dep_interfaces_data);

}  // namespace hiremate::hierarchy
