// Profiling a capture already made (the executor plans the very groups it runs): measures every
// distinct signature once and builds the K-graph. Node names follow node_name(): group i's forward
// is "i.op", its backward "i.op.bwd", its data "i.op", gradient "i.op.grad", phantoms "i.op.phantoms".
#pragma once
#include <string>

#include "hiremate/torch/capture.h"
#include "hiremate/torch/profile.h"

namespace hiremate::torchbridge {

ProfiledModel profile_capture(const Capture& cap, const std::string& name, const ProfileOptions& opt);

// The name of group i's nodes in the graph.
std::string group_node_name(size_t i, const Group& grp);

}  // namespace hiremate::torchbridge
