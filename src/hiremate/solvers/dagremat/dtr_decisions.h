// The DTR pass's plan (dtr_pass.h) as keep/drop decisions (keep_state.h), so that the repair and the
// searches can start from it. Per gap: hold while the pass held the value from the gap's start on,
// resume where the pass last made it resident for the gap's end. Where the pass dropped and remade a
// value more than once in a gap, the middle stays dropped; where its recomputed values served several
// stages, the state recomputes them per stage: the state may exceed the cap where the pass did not,
// and is repaired. A value the pass removed within a stage (an eviction, or the free between two
// stages) is not held on entry to it: the state would count it through the whole stage, beside the
// stage's cone (on the 20,000-node dense DAG at 85 % that put 2,820 stages over the cap, against 4).
// With `held_through_removal` it is, as before that was measured: that projection needs more drops
// to fit, which the repair finds faster on some graphs (the 5,000-node dense DAG at 90 %: 1.7 s,
// where the exact projection's repair was cut after 3.6 s); dagremat repairs both.
#pragma once
#include <vector>

#include "hiremate/solvers/dagremat/dtr_pass.h"
#include "hiremate/solvers/dagremat/keep_state.h"

namespace hiremate::dagremat {

std::vector<KeepState::Decision> dtr_decisions(const StageDag& dag, const DtrResult& pass,
                                              bool held_through_removal = false);

}  // namespace hiremate::dagremat
