#include "hiremate/partition/partition.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <unordered_map>

#include "hiremate/common/error.h"
#include "hiremate/partition/canonical.h"
#include "hiremate/partition/convexity.h"
#include "hiremate/partition/forward_graph.h"

namespace hiremate::partition {

namespace {

class Builder {
 public:
  Builder(const Graph& g, int min_size) : fg_(g), canon_(fg_), min_size_(min_size) {}

  ClusterTree build(const std::vector<const Partitioner*>& partitioners) {
    std::vector<int> all(fg_.size());
    for (int u = 0; u < fg_.size(); ++u) all[u] = u;
    tree_.root = cluster(all);
    for (const Partitioner* p : partitioners) {
      tree_.partitioners.push_back(p->name());
      run(tree_.root, *p, true);
    }
    set_levels();
    return std::move(tree_);
  }

 private:
  bool is_rep(int c) const { return tree_.representative_of(c) == c; }

  // The cluster with exactly these units (sorted), created on first request.
  int cluster(const std::vector<int>& units) {
    uint64_t h = 0x636c7573746572ULL;
    for (int u : units) h = mix_hash(h, static_cast<uint64_t>(u));
    auto& same_hash = by_units_[h];
    for (int c : same_hash)
      if (units_[c] == units) return c;
    const int id = static_cast<int>(tree_.clusters.size());
    same_hash.push_back(id);
    Canonical form = canon_(units);
    Cluster c;
    c.id = id;
    for (int u : units) c.nodes.push_back(fg_.forward(u));
    c.compute = std::move(form.compute);
    c.data = std::move(form.data);
    c.interface = std::move(form.interface);
    c.hash = form.hash;
    auto& same_shape = by_shape_[form.hash];
    for (int k : same_shape)
      if (signatures_[k] == form.signature) c.cls = k;
    if (c.cls < 0) {
      c.cls = static_cast<int>(tree_.classes.size());
      tree_.classes.push_back({id, {}});
      signatures_.push_back(std::move(form.signature));
      same_shape.push_back(c.cls);
    }
    tree_.classes[c.cls].members.push_back(id);
    tree_.clusters.push_back(std::move(c));
    units_.push_back(units);
    return id;
  }

  void run(int cid, const Partitioner& p, bool main) {
    if (!is_rep(cid) || !done_.insert({cid, &p}).second) return;
    const size_t n = units_[cid].size();
    if (n < 2) return;
    if (n < static_cast<size_t>(min_size_)) {
      flat(cid);
      return;
    }
    std::optional<Draft> d = p.split(fg_, units_[cid], main);
    if (!d) {
      if (p.sub()) run(cid, *p.sub(), main);
      else flat(cid);
      return;
    }
    attach(cid, *d, p);
  }

  void attach(int cid, const Draft& d, const Partitioner& p) {
    std::vector<Part> parts;
    std::vector<std::vector<int>> part_units;
    for (const Draft& part : d.parts) {
      HM_ASSERT(!part.units.empty(), p.name() + " produced an empty part");
      Part x;
      if (part.units.size() == 1) {
        x.node = fg_.forward(part.units[0]);
      } else {
        x.cluster = cluster(part.units);
        if (is_rep(x.cluster)) {
          if (!part.parts.empty()) attach(x.cluster, part, p);
          else run(x.cluster, p.sub() ? *p.sub() : p, false);
        }
      }
      parts.push_back(x);
      part_units.push_back(part.units);
    }
    record(cid, p.name(), parts, part_units, d.limit);
  }

  void flat(int cid) {
    std::vector<Part> parts;
    std::vector<std::vector<int>> part_units;
    for (int u : units_[cid]) {
      parts.push_back({fg_.forward(u), -1});
      part_units.push_back({u});
    }
    record(cid, "flat", parts, part_units, min_size_ - 1);
  }

  void record(int cid, const std::string& name, const std::vector<Part>& parts,
              const std::vector<std::vector<int>>& part_units, int limit) {
    std::vector<int> covered;
    for (const auto& u : part_units) covered.insert(covered.end(), u.begin(), u.end());
    std::sort(covered.begin(), covered.end());
    HM_ASSERT(covered == units_[cid], name + " produced parts that do not cover the cluster exactly once");
    Quotient q = quotient(fg_, part_units);
    HM_ASSERT(q.acyclic, name + " produced a partitioning whose quotient graph has a cycle");
    Partitioning p;
    p.partitioner = name;
    for (int i : q.order) {
      p.parts.push_back(parts[i]);
      p.estimate += parts[i].leaf() ? 1 : 2;
    }
    p.limit = limit;
    p.chain = q.chain;
    auto same_parts = [&](const Partitioning& other) {
      if (other.parts.size() != p.parts.size()) return false;
      for (size_t i = 0; i < p.parts.size(); ++i)
        if (other.parts[i].node != p.parts[i].node || other.parts[i].cluster != p.parts[i].cluster) return false;
      return true;
    };
    for (const Partitioning& other : tree_.clusters[cid].partitionings)
      if (same_parts(other)) return;
    tree_.clusters[cid].partitionings.push_back(std::move(p));
  }

  void set_levels() {
    std::vector<int> order = tree_.reachable();  // breadth-first: the first visit is the shallowest
    if (order.empty()) return;
    tree_.clusters[tree_.root].level = 0;
    for (int c : order) {
      const Cluster& rep = tree_.clusters[tree_.representative_of(c)];
      for (const Partitioning& p : rep.partitionings)
        for (const Part& part : p.parts)
          if (!part.leaf() && tree_.clusters[part.cluster].level < 0)
            tree_.clusters[part.cluster].level = tree_.clusters[c].level + 1;
    }
  }

  ForwardGraph fg_;
  Canonicalizer canon_;
  int min_size_;
  ClusterTree tree_;
  std::vector<std::vector<int>> units_;  // per cluster, sorted unit numbers
  std::unordered_map<uint64_t, std::vector<int>> by_units_;  // node-set hash -> clusters
  std::unordered_map<uint64_t, std::vector<int>> by_shape_;  // canonical hash -> classes
  std::vector<std::vector<int64_t>> signatures_;              // per class, its canonical form
  std::set<std::pair<int, const Partitioner*>> done_;
};

}  // namespace

ClusterTree partition(const Graph& g, const std::vector<const Partitioner*>& partitioners,
                      int min_size_to_trigger_partitioning) {
  auto start = std::chrono::steady_clock::now();
  ClusterTree tree = Builder(g, min_size_to_trigger_partitioning).build(partitioners);
  tree.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return tree;
}

ClusterTree partition(const Graph& g, const PartitionOptions& opt) {
  if (opt.partitioners.empty()) {
    std::string known;
    for (const auto& n : partitioner_names()) known += (known.empty() ? "" : ", ") + n;
    throw BadInput("no partitioner given; known: " + known);
  }
  if (opt.min_size_to_trigger_partitioning < 2)
    throw BadInput("min_size_to_trigger_partitioning must be at least 2");
  std::vector<std::unique_ptr<Partitioner>> owned;
  std::vector<const Partitioner*> ptrs;
  for (const auto& spec : opt.partitioners) {
    owned.push_back(make_partitioner(spec));
    ptrs.push_back(owned.back().get());
  }
  ClusterTree tree = partition(g, ptrs, opt.min_size_to_trigger_partitioning);
  tree.partitioners = opt.partitioners;
  return tree;
}

}  // namespace hiremate::partition
