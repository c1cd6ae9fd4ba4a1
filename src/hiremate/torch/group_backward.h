// One group's backward on the calling thread, as autograd's engine runs a CPU backward
// (keep_graph = false, create_graph = false), without the engine's per-call set-up (a GraphTask,
// thread-local state saved and restored twice, a ready queue): with one call per group, that
// set-up was about 3 % of a step. Same order (ready nodes by decreasing sequence number), same
// gradient accumulation (in place into a buffer only we hold, else out of place), same checks of
// each output against its consumer's input metadata (broadcast gradients summed, dtype cast), and
// saved variables released as each node finishes: the gradients are bit-identical and the bytes
// alive at every point the same. Graphs with hooks go through the engine itself.
#pragma once
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>

namespace hiremate::torchbridge {

// Backpropagates grads[k] from roots[k] (roots and grads of the same length).
void run_backward(const torch::autograd::edge_list& roots, torch::autograd::variable_list grads);

}  // namespace hiremate::torchbridge
