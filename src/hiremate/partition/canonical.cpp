#include "hiremate/partition/canonical.h"

#include <algorithm>
#include <cstring>

namespace hiremate::partition {

namespace {
enum Role : int64_t { kInputData = 1, kOutputData = 2, kInputGrad = 4, kOutputGrad = 8 };

int64_t bits(double x) {
  int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
}  // namespace

Canonicalizer::Canonicalizer(const ForwardGraph& fg)
    : fg_(&fg),
      compute_local_(fg.graph().compute.size(), -1),
      data_local_(fg.graph().data.size(), -1) {}

Canonical Canonicalizer::operator()(const std::vector<int>& units) {
  const Graph& g = fg_->graph();
  Canonical out;
  for (int u : units) out.compute.push_back(fg_->forward(u));
  for (auto it = units.rbegin(); it != units.rend(); ++it)
    if (fg_->backward(*it) != kNone) out.compute.push_back(fg_->backward(*it));
  for (size_t i = 0; i < out.compute.size(); ++i) compute_local_[out.compute[i]] = static_cast<int>(i);

  auto touch = [&](NodeId d) {
    if (data_local_[d] < 0) {
      data_local_[d] = static_cast<int>(out.data.size());
      out.data.push_back(d);
    }
  };
  for (NodeId c : out.compute) {
    for (NodeId d : g.compute[c].deps) touch(d);
    for (NodeId d : g.compute[c].fake_deps) touch(d);
    for (NodeId d : g.compute[c].outputs) touch(d);
  }

  std::vector<int64_t>& sig = out.signature;
  sig.reserve(4 + out.compute.size() * 10 + out.data.size() * 4);
  sig.push_back(static_cast<int64_t>(units.size()));
  sig.push_back(static_cast<int64_t>(out.compute.size()));
  sig.push_back(static_cast<int64_t>(out.data.size()));
  auto push_list = [&](const std::vector<NodeId>& ids) {
    sig.push_back(static_cast<int64_t>(ids.size()));
    for (NodeId d : ids) sig.push_back(data_local_[d]);
  };
  for (NodeId c : out.compute) {
    const ComputeNode& node = g.compute[c];
    sig.push_back(static_cast<int64_t>(node.kind));
    sig.push_back(bits(node.time));
    sig.push_back(node.overhead);
    sig.push_back(node.pair == kNone ? -1 : compute_local_[node.pair]);
    push_list(node.deps);
    push_list(node.fake_deps);
    push_list(node.outputs);
  }

  auto inside = [&](NodeId c) { return compute_local_[c] >= 0; };
  for (NodeId d : out.data) {
    const DataNode& node = g.data[d];
    bool made_in = false, made_out = false, read_in = false, read_out = node.users.empty();
    for (NodeId c : node.producers) (inside(c) ? made_in : made_out) = true;
    for (NodeId c : node.users) (inside(c) ? read_in : read_out) = true;
    int64_t role = 0;
    if (node.kind == DataKind::Grad) {
      if (made_in && read_out) role |= kInputGrad;
      if (read_in && made_out) role |= kOutputGrad;
    } else {
      if (read_in && !made_in) role |= kInputData;
      if (node.kind == DataKind::Data && made_in && read_out) role |= kOutputData;
    }
    if (role & kInputData) out.interface.input_data.push_back(d);
    if (role & kOutputData) out.interface.output_data.push_back(d);
    if (role & kInputGrad) out.interface.input_grad.push_back(d);
    if (role & kOutputGrad) out.interface.output_grad.push_back(d);
    sig.push_back(static_cast<int64_t>(node.kind));
    sig.push_back(node.bytes);
    sig.push_back(node.source);
    sig.push_back(role);
  }
  for (auto* list : {&out.interface.input_data, &out.interface.output_data, &out.interface.input_grad,
                     &out.interface.output_grad})
    std::sort(list->begin(), list->end());

  uint64_t h = 0x6869726d617465ULL;  // "hiremate"
  for (int64_t v : sig) h = mix_hash(h, static_cast<uint64_t>(v));
  out.hash = h;

  for (NodeId c : out.compute) compute_local_[c] = -1;
  for (NodeId d : out.data) data_local_[d] = -1;
  return out;
}

}  // namespace hiremate::partition
