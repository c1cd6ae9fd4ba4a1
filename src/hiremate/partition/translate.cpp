#include "hiremate/partition/translate.h"

#include "hiremate/common/error.h"

namespace hiremate::partition {

Translator::Translator(const ClusterTree& tree, int from, int to) {
  const Cluster& a = tree.cluster(from);
  const Cluster& b = tree.cluster(to);
  HM_ASSERT(a.cls == b.cls, "translation between clusters of different equivalence classes");
  HM_ASSERT(a.compute.size() == b.compute.size() && a.data.size() == b.data.size(),
            "equivalent clusters with different local list sizes");
  for (size_t i = 0; i < a.compute.size(); ++i) compute_.emplace(a.compute[i], b.compute[i]);
  for (size_t i = 0; i < a.data.size(); ++i) data_.emplace(a.data[i], b.data[i]);
}

NodeId Translator::compute(NodeId c) const {
  auto it = compute_.find(c);
  HM_ASSERT(it != compute_.end(), "compute node outside the translated cluster");
  return it->second;
}

NodeId Translator::data(NodeId d) const {
  auto it = data_.find(d);
  HM_ASSERT(it != data_.end(), "data node outside the translated cluster");
  return it->second;
}

}  // namespace hiremate::partition
