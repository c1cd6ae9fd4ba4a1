#include "hiremate/partition/bottom_to_top.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <unordered_map>

#include "hiremate/common/error.h"
#include "hiremate/partition/cluster_graph.h"

namespace hiremate::partition {

void BottomToTopConfig::set(const std::string& key, const std::string& value) {
  if (key == "max_len_seq") max_len_seq = parse_int_param(key, value);
  else if (key == "max_estimate_for_main_graph") max_estimate_for_main_graph = parse_int_param(key, value);
  else if (key == "max_estimate_per_sub_graph") max_estimate_per_sub_graph = parse_int_param(key, value);
  else if (key == "main_graph_as_any_other") main_graph_as_any_other = parse_bool_param(key, value);
  else if (key == "can_use_rotor") can_use_rotor = parse_bool_param(key, value);
  else if (key == "estimate_coeff_size") estimate_coeff_size = parse_number_param(key, value);
  else if (key == "estimate_coeff_sub_graph") estimate_coeff_sub_graph = parse_number_param(key, value);
  else if (key == "value_coeff_input_interfaces") value_coeff_input_interfaces = parse_number_param(key, value);
  else if (key == "value_coeff_output_interfaces") value_coeff_output_interfaces = parse_number_param(key, value);
  else if (key == "value_power_total_size") value_power_total_size = parse_number_param(key, value);
  else if (key == "repeats_first") repeats_first = parse_bool_param(key, value);
  else if (key == "interval_fallback") interval_fallback = parse_bool_param(key, value);
  else if (key == "min_round_shrink") min_round_shrink = parse_number_param(key, value);
  else if (key == "min_top_fill") min_top_fill = parse_number_param(key, value);
  else {
    std::string known;
    for (const auto& k : keys()) known += (known.empty() ? "" : ", ") + k;
    throw BadInput("unknown bottom_to_top parameter '" + key + "'; known: " + known);
  }
  if (max_len_seq < 2) throw BadInput("bottom_to_top parameter max_len_seq must be at least 2");
  if (max_estimate_per_sub_graph < 2 || max_estimate_for_main_graph < 2)
    throw BadInput("bottom_to_top size bounds (max_estimate_*) must be at least 2");
  if (!(min_top_fill >= 0 && min_top_fill <= 1))
    throw BadInput("bottom_to_top parameter min_top_fill must be in [0, 1]");
  if (!(estimate_coeff_size > 0) || estimate_coeff_sub_graph < 0)
    throw BadInput("bottom_to_top estimate_coeff_size must be > 0 and estimate_coeff_sub_graph >= 0");
}

std::vector<std::string> BottomToTopConfig::keys() {
  return {"max_len_seq", "max_estimate_for_main_graph", "max_estimate_per_sub_graph",
          "main_graph_as_any_other", "can_use_rotor", "estimate_coeff_size", "estimate_coeff_sub_graph",
          "value_coeff_input_interfaces", "value_coeff_output_interfaces", "value_power_total_size",
          "repeats_first", "interval_fallback", "min_round_shrink", "min_top_fill"};
}

namespace {

// A node of the growing hierarchy: a leaf (one unit, local number = node id) or a group.
struct Node {
  std::vector<int> children;  // leaves and groups of earlier rounds; empty for a leaf
  int lo = 0, hi = 0;         // smallest and largest leaf (local topological numbers)
  int leaves = 1;
  double n_est = 1, sub_est = 0;  // while unprotected: its members' share of an estimate
  bool grad = false;
  bool reads_outside = false, writes_outside = false;  // crosses the cluster's boundary
  bool is_protected = true;  // existed when the current round started
  std::vector<int> in, out;  // local data crossing its own boundary (read from / read outside)
  uint64_t shape = 0;        // structural hash: equal for the nodes a repeated layer makes alike
  bool group() const { return !children.empty(); }
};

// A candidate group of top-level nodes to merge (the partitioner's option; not hierarchy::Option).
struct GroupOption {
  std::vector<int> members;  // current top-level nodes, sorted
  bool chain = false;        // a sequence of protected nodes as enumerated: kept beyond the bound
  bool alive = true;
  int version = 0;
  uint64_t shape = 0;        // shape_of(members)
};

struct HeapEntry {
  bool first;  // a repeated option, with repeats_first
  double value;
  int id, version;
};
struct HeapLess {
  bool operator()(const HeapEntry& a, const HeapEntry& b) const {
    if (a.first != b.first) return b.first;            // repeated options first
    if (a.value != b.value) return a.value < b.value;  // then the highest value
    return a.id > b.id;                                // then the earliest option (deterministic)
  }
};

// Set membership by stamping: next() empties the set in O(1).
struct Marks {
  std::vector<int> at;
  int now = 0;
  void grow(size_t n) {
    if (at.size() < n) at.resize(n, 0);
  }
  void next() { ++now; }
  bool test(int i) const { return at[i] == now; }
  bool set(int i) {  // true when i was not in the set
    if (at[i] == now) return false;
    at[i] = now;
    return true;
  }
};

class Run {
 public:
  Run(const ClusterGraph& cg, const BottomToTopConfig& cfg, bool main);
  Draft result();

 private:
  int find(int x);
  double est_of(int x) const;
  bool top_ok() const;
  void filling_cuts(const std::vector<double>& crossing, std::vector<int>& from) const;
  std::vector<int> neighbours(int x, bool successors);
  void begin_round();
  void enumerate_options();
  void add_option(std::vector<int> members, bool chain);
  uint64_t structure_hash(const std::vector<int>& sorted, const std::vector<std::vector<int>>& succ,
                          const std::vector<std::vector<int>>& pred);
  uint64_t group_shape(const std::vector<int>& children);
  uint64_t shape_of(const std::vector<int>& members);
  bool first(const GroupOption& o);
  void push(int id);
  void kill(int id, bool merged);
  void rewrite(int id, int merged_into);
  void flows_of(int p);
  double value(const std::vector<int>& members);
  bool convex(const std::vector<int>& members);
  int merge(const std::vector<int>& members);
  void greedy();
  void interval_fallback();
  void count_degree(int x, int sign);
  Draft draft(int x) const;

  const ClusterGraph& cg_;
  const BottomToTopConfig& cfg_;
  double top_limit_;
  int n_;
  std::vector<Node> nodes_;
  std::vector<int> parent_;  // union-find: the node each node was merged into
  int top_count_ = 0, top_groups_ = 0;
  // The top level at the start of the round: its graph and a topological rank.
  std::vector<int> tops_;
  std::vector<std::vector<int>> succ0_, pred0_;
  std::vector<int> rank_, by_rank_;
  // Chain detection, maintained across merges: nodes with several preds or succs, nodes with none.
  std::vector<int> deg_in_, deg_out_;
  int bad_ = 0, sources_ = 0;
  // Options.
  std::vector<GroupOption> options_;
  std::vector<std::vector<int>> options_of_;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, HeapLess> heap_;
  std::map<std::vector<int>, int> alive_sets_;  // members -> the alive option with them
  std::unordered_map<uint64_t, int> shape_count_;               // alive or merged options per shape
  std::unordered_map<uint64_t, std::vector<int>> shape_options_;  // options that had the shape
  Marks member_, visit_, data_, nbr_, opt_;
  std::vector<int> position_;  // scratch for shape_of
};

Run::Run(const ClusterGraph& cg, const BottomToTopConfig& cfg, bool main)
    : cg_(cg),
      cfg_(cfg),
      top_limit_(main && !cfg.main_graph_as_any_other ? cfg.max_estimate_for_main_graph
                                                        : cfg.max_estimate_per_sub_graph),
      n_(cg.size()) {
  nodes_.resize(n_);
  for (int i = 0; i < n_; ++i) {
    Node& x = nodes_[i];
    x.lo = x.hi = i;
    x.grad = cg.requires_grad(i);
    x.reads_outside = cg.reads_outside(i);
    x.writes_outside = cg.writes_outside(i);
    x.in.assign(cg.reads(i).begin(), cg.reads(i).end());
    x.shape = cg.unit_hash(i);
    for (int ld : cg.writes(i)) {
      bool out = cg.read_outside(ld);
      for (int r : cg.readers(ld)) out = out || r != i;
      if (out) x.out.push_back(ld);
    }
    parent_.push_back(i);
  }
  top_count_ = n_;
  member_.grow(n_);
  position_.resize(n_);
  visit_.grow(n_);
  nbr_.grow(n_);
  data_.grow(cg.data_count());
  options_of_.resize(n_);
}

int Run::find(int x) {
  int r = x;
  while (parent_[r] != r) r = parent_[r];
  while (parent_[x] != r) {
    int next = parent_[x];
    parent_[x] = r;
    x = next;
  }
  return r;
}

double Run::est_of(int x) const {
  const Node& node = nodes_[x];
  if (node.is_protected) return cfg_.estimate_coeff_size + (node.group() ? cfg_.estimate_coeff_sub_graph : 0);
  return cfg_.estimate_coeff_size * node.n_est + cfg_.estimate_coeff_sub_graph * node.sub_est;
}

bool Run::top_ok() const {
  double estimate = cfg_.estimate_coeff_size * top_count_ + cfg_.estimate_coeff_sub_graph * top_groups_;
  if (estimate <= top_limit_) return true;
  return cfg_.can_use_rotor && bad_ == 0 && sources_ == 1;
}

// Distinct current top-level neighbours of the current node x, through the round's top graph.
std::vector<int> Run::neighbours(int x, bool successors) {
  std::vector<int> out;
  nbr_.next();
  nbr_.set(x);
  auto scan = [&](int r) {
    for (int y : successors ? succ0_[r] : pred0_[r]) {
      int t = find(y);
      if (nbr_.set(t)) out.push_back(t);
    }
  };
  if (nodes_[x].is_protected) scan(x);
  else
    for (int c : nodes_[x].children) scan(c);
  return out;
}

void Run::count_degree(int x, int sign) {
  bad_ += sign * (deg_in_[x] > 1 || deg_out_[x] > 1);
  sources_ += sign * (deg_in_[x] == 0);
}

void Run::begin_round() {
  tops_.clear();
  nbr_.next();
  for (int i = 0; i < n_; ++i) {
    int t = find(i);
    if (nbr_.set(t)) tops_.push_back(t);  // first seen at its smallest leaf: sorted by lo
  }
  const size_t total = nodes_.size();
  succ0_.resize(total);
  pred0_.resize(total);
  deg_in_.resize(total);
  deg_out_.resize(total);
  rank_.resize(total);
  for (int t : tops_) {
    nodes_[t].is_protected = true;
    succ0_[t].clear();
    pred0_[t].clear();
  }
  for (int i = 0; i < n_; ++i) {
    int t = find(i);
    for (int j : cg_.succs(i)) {
      int s = find(j);
      if (s != t) {
        succ0_[t].push_back(s);
        pred0_[s].push_back(t);
      }
    }
  }
  bad_ = sources_ = 0;
  for (int t : tops_) {
    for (auto* list : {&succ0_[t], &pred0_[t]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    deg_out_[t] = static_cast<int>(succ0_[t].size());
    deg_in_[t] = static_cast<int>(pred0_[t].size());
    count_degree(t, +1);
  }
  // Topological rank of the top level (Kahn, smallest lo first): the flows walk against it.
  std::vector<int> indegree(total, 0);
  auto later = [&](int a, int b) { return nodes_[a].lo > nodes_[b].lo; };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (int t : tops_) {
    indegree[t] = deg_in_[t];
    if (indegree[t] == 0) ready.push(t);
  }
  by_rank_.clear();
  while (!ready.empty()) {
    int t = ready.top();
    ready.pop();
    rank_[t] = static_cast<int>(by_rank_.size());
    by_rank_.push_back(t);
    for (int s : succ0_[t])
      if (--indegree[s] == 0) ready.push(s);
  }
  HM_ASSERT(by_rank_.size() == tops_.size(), "bottom_to_top: the top-level graph has a cycle");
}

double Run::value(const std::vector<int>& members) {
  member_.next();
  int64_t size = 0;
  for (int m : members) {
    member_.set(m);
    size += nodes_[m].leaves;
  }
  double in = 0, out = 0;
  data_.next();
  for (int m : members)
    for (int ld : nodes_[m].in) {
      int p = cg_.producer(ld);
      if ((p < 0 || !member_.test(find(p))) && data_.set(ld)) in += static_cast<double>(cg_.bytes(ld));
    }
  data_.next();
  for (int m : members)
    for (int ld : nodes_[m].out) {
      bool leaves = cg_.read_outside(ld);
      for (int r : cg_.readers(ld))
        if (!leaves && !member_.test(find(r))) leaves = true;
      if (leaves && data_.set(ld)) out += static_cast<double>(cg_.bytes(ld));
    }
  return -(cfg_.value_coeff_input_interfaces * in + cfg_.value_coeff_output_interfaces * out) *
         std::pow(static_cast<double>(size), cfg_.value_power_total_size);
}

void Run::add_option(std::vector<int> members, bool chain) {
  if (members.size() < 2) return;
  std::sort(members.begin(), members.end());
  bool grad = false;
  double estimate = 0;
  for (int m : members) {
    grad = grad || nodes_[m].grad;
    estimate += est_of(m);
  }
  if (!grad) return;
  if (estimate > cfg_.max_estimate_per_sub_graph && !(chain && cfg_.can_use_rotor)) return;
  int id = static_cast<int>(options_.size());
  if (!alive_sets_.emplace(members, id).second) return;
  for (int m : members) options_of_[m].push_back(id);
  options_.push_back({std::move(members), chain, true, 0, 0});
}

// Structural hashes, equal for the groups and options that a repeated layer makes alike (not a
// canonical form: canonical.h decides classes; these only tell the greedy which options repeat):
// the nodes' shapes in order of their first leaf, the edges among them as offsets in that order,
// and which of them touch the outside.
// `sorted`: nodes in order of their first leaf; succ[i] / pred[i]: the neighbours of sorted[i].
uint64_t Run::structure_hash(const std::vector<int>& sorted, const std::vector<std::vector<int>>& succ,
                             const std::vector<std::vector<int>>& pred) {
  member_.next();
  for (size_t i = 0; i < sorted.size(); ++i) {
    member_.set(sorted[i]);
    position_[sorted[i]] = static_cast<int>(i);
  }
  uint64_t h = mix_hash(0x736861706500ULL, sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    const Node& node = nodes_[sorted[i]];
    h = mix_hash(h, node.shape);
    bool out = node.writes_outside, in = node.reads_outside;
    for (int x : succ[i]) {
      if (member_.test(x)) h = mix_hash(h, static_cast<uint64_t>(position_[x] - static_cast<int>(i)));
      else out = true;
    }
    for (int x : pred[i]) in = in || !member_.test(x);
    h = mix_hash(h, static_cast<uint64_t>(in) * 2 + out);
  }
  return h;
}

// The shape of a new group, from its children (sorted by first leaf; nodes of the round's start,
// whose top-level graph is succ0_ / pred0_).
uint64_t Run::group_shape(const std::vector<int>& children) {
  std::vector<std::vector<int>> succ, pred;
  for (int c : children) {
    succ.push_back(succ0_[c]);
    pred.push_back(pred0_[c]);
  }
  return structure_hash(children, succ, pred);
}

// The shape of an option of current top-level nodes.
uint64_t Run::shape_of(const std::vector<int>& members) {
  std::vector<int> sorted = members;
  std::sort(sorted.begin(), sorted.end(), [&](int a, int b) { return nodes_[a].lo < nodes_[b].lo; });
  std::vector<std::vector<int>> succ, pred;
  for (int m : sorted) {
    succ.push_back(neighbours(m, true));
    pred.push_back(neighbours(m, false));
  }
  return structure_hash(sorted, succ, pred);
}

// Whether the option ranks first: repeats_first and another option of the round, alive or merged,
// has its shape.
bool Run::first(const GroupOption& o) {
  if (!cfg_.repeats_first) return false;
  auto it = shape_count_.find(o.shape);
  return it != shape_count_.end() && it->second >= 2;
}

void Run::push(int id) {
  GroupOption& o = options_[id];
  ++o.version;
  heap_.push({first(o), value(o.members), id, o.version});
}

// An option leaves the pool; a merged one still counts as a copy of its shape.
void Run::kill(int id, bool merged) {
  GroupOption& o = options_[id];
  if (!o.alive) return;
  o.alive = false;
  alive_sets_.erase(o.members);
  if (!merged) --shape_count_[o.shape];
}

// An option that shared a member with the group just merged: the member becomes the group. It dies
// when fewer than two members remain, when it no longer fits, or when it duplicates another option.
void Run::rewrite(int id, int merged_into) {
  GroupOption& o = options_[id];
  alive_sets_.erase(o.members);
  std::vector<int> now;
  for (int m : o.members) now.push_back(find(m));
  std::sort(now.begin(), now.end());
  now.erase(std::unique(now.begin(), now.end()), now.end());
  o.members = std::move(now);
  o.chain = false;
  double estimate = 0;
  for (int m : o.members) estimate += est_of(m);
  if (o.members.size() < 2 || estimate > cfg_.max_estimate_per_sub_graph ||
      !alive_sets_.emplace(o.members, id).second) {
    o.alive = false;
    --shape_count_[o.shape];
    return;
  }
  options_of_[merged_into].push_back(id);
  --shape_count_[o.shape];
  o.shape = shape_of(o.members);
  auto& same = shape_options_[o.shape];
  if (++shape_count_[o.shape] == 2)  // the one it now repeats ranks first from now on
    for (int other : same)
      if (other != id && options_[other].alive && options_[other].shape == o.shape) push(other);
  same.push_back(id);
  push(id);
}

// The flow of p (§3.3): walk p's ancestors in decreasing rank; the walk converges at q when a single
// discovered node is left: every path from p towards the inputs crosses q (q dominates p). Inputs
// from outside the cluster are one virtual node each, below them all a virtual sink. The walk stops
// once it has more nodes than an admissible option can hold.
void Run::flows_of(int p) {
  const int64_t kReal = int64_t{2} << 40, kVirtual = int64_t{1} << 40, kSink = 0;
  const int max_members = static_cast<int>(cfg_.max_estimate_per_sub_graph / cfg_.estimate_coeff_size) + 2;
  std::priority_queue<int64_t> frontier;
  visit_.next();
  data_.next();
  bool sink_seen = false;
  auto push_preds = [&](int x) {
    bool any = false;
    for (int y : pred0_[x]) {
      any = true;
      if (visit_.set(y)) frontier.push(kReal + rank_[y]);
    }
    for (int ld : nodes_[x].in)
      if (cg_.producer(ld) < 0) {
        any = true;
        if (data_.set(ld)) frontier.push(kVirtual + ld);
      }
    if (!any && !sink_seen) {
      sink_seen = true;
      frontier.push(kSink);
    }
  };
  std::vector<int> flow{p};
  visit_.set(p);
  push_preds(p);
  while (frontier.size() > 1) {
    int64_t key = frontier.top();
    frontier.pop();
    if (key >= kReal) {
      int x = by_rank_[key - kReal];
      flow.push_back(x);
      if (static_cast<int>(flow.size()) >= max_members) return;
      push_preds(x);
    } else if (key >= kVirtual && !sink_seen) {  // an outside input: only the sink is below it
      sink_seen = true;
      frontier.push(kSink);
    }
  }
  HM_ASSERT(frontier.size() == 1, "bottom_to_top: a flow walk lost its frontier");
  int64_t q = frontier.top();
  auto without = [](std::vector<int> v, int x) {
    v.erase(std::find(v.begin(), v.end(), x));
    return v;
  };
  if (q >= kReal) {  // F = flow + q
    std::vector<int> f = flow;
    f.push_back(by_rank_[q - kReal]);
    int qn = f.back();
    if (f.size() > 3) add_option(without(without(f, p), qn), false);
    if (f.size() > 2) {
      add_option(without(f, p), false);
      add_option(without(f, qn), false);
    }
    add_option(f, false);
  } else {  // q is outside the cluster: F \ {q} and F \ {p, q}
    add_option(flow, false);
    add_option(without(flow, p), false);
  }
}

void Run::enumerate_options() {
  options_.clear();
  alive_sets_.clear();
  heap_ = {};
  options_of_.assign(nodes_.size(), {});
  // Sequences: t -> s where t has one user, s, and s has one dep, t (inputs and outputs of the
  // cluster count as users and deps).
  std::vector<int> link(nodes_.size(), -1);
  std::vector<char> linked_to(nodes_.size(), 0);
  for (int t : by_rank_) {
    if (succ0_[t].size() != 1 || nodes_[t].writes_outside) continue;
    int s = succ0_[t][0];
    if (pred0_[s].size() != 1 || nodes_[s].reads_outside) continue;
    link[t] = s;
    linked_to[s] = 1;
  }
  for (int t : by_rank_) {
    if (link[t] < 0 || linked_to[t]) continue;
    std::vector<int> seq;
    for (int x = t; x >= 0; x = link[x]) seq.push_back(x);
    const size_t pieces = (seq.size() + cfg_.max_len_seq - 1) / cfg_.max_len_seq;
    for (size_t k = 0, start = 0; k < pieces; ++k) {
      size_t len = seq.size() / pieces + (k < seq.size() % pieces ? 1 : 0);
      add_option({seq.begin() + start, seq.begin() + start + len}, true);
      start += len;
    }
  }
  for (int p : by_rank_) flows_of(p);
  shape_count_.clear();
  shape_options_.clear();
  for (size_t id = 0; id < options_.size(); ++id) {
    GroupOption& o = options_[id];
    o.shape = shape_of(o.members);
    ++shape_count_[o.shape];
    shape_options_[o.shape].push_back(static_cast<int>(id));
  }
  for (size_t id = 0; id < options_.size(); ++id) push(static_cast<int>(id));
}

// Whether merging `members` keeps the quotient acyclic: no path leaves them and comes back. Only
// nodes starting before the members' last leaf can lead back to them.
bool Run::convex(const std::vector<int>& members) {
  member_.next();
  int last = 0;
  for (int m : members) {
    member_.set(m);
    last = std::max(last, nodes_[m].hi);
  }
  visit_.next();
  std::vector<int> stack;
  for (int m : members)
    for (int s : neighbours(m, true))
      if (!member_.test(s) && nodes_[s].lo < last && visit_.set(s)) stack.push_back(s);
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    for (int s : neighbours(x, true)) {
      if (member_.test(s)) return false;
      if (nodes_[s].lo < last && visit_.set(s)) stack.push_back(s);
    }
  }
  return true;
}

int Run::merge(const std::vector<int>& members) {
  const int id = static_cast<int>(nodes_.size());
  std::vector<int> around;  // current neighbours whose degrees change
  if (cfg_.can_use_rotor) {
    nbr_.next();
    for (int m : members) nbr_.set(m);
    std::vector<int> all;
    for (int m : members)
      for (bool succ : {true, false})
        for (int y : neighbours(m, succ)) all.push_back(y);
    member_.next();
    for (int m : members) member_.set(m);
    for (int y : all)
      if (!member_.test(y) && member_.set(y)) around.push_back(y);
    for (int m : members) count_degree(m, -1);
    for (int y : around) count_degree(y, -1);
  }
  Node x;
  x.is_protected = false;
  x.lo = n_;
  x.hi = -1;
  x.leaves = 0;
  x.grad = false;
  for (int m : members) {
    const Node& node = nodes_[m];
    if (node.is_protected) x.children.push_back(m);
    else x.children.insert(x.children.end(), node.children.begin(), node.children.end());
    x.lo = std::min(x.lo, node.lo);
    x.hi = std::max(x.hi, node.hi);
    x.leaves += node.leaves;
    x.grad = x.grad || node.grad;
    x.reads_outside = x.reads_outside || node.reads_outside;
    x.writes_outside = x.writes_outside || node.writes_outside;
    top_groups_ -= node.group();
  }
  std::sort(x.children.begin(), x.children.end(), [&](int a, int b) { return nodes_[a].lo < nodes_[b].lo; });
  x.n_est = static_cast<double>(x.children.size());
  x.sub_est = 0;
  for (int c : x.children) x.sub_est += nodes_[c].group();
  const uint64_t shape = group_shape(x.children);
  nodes_.push_back(std::move(x));
  nodes_.back().shape = shape;
  parent_.push_back(id);
  for (int m : members) parent_[m] = id;
  Node& merged = nodes_[id];
  data_.next();
  for (int m : members)
    for (int ld : nodes_[m].in) {
      int p = cg_.producer(ld);
      if ((p < 0 || find(p) != id) && data_.set(ld)) merged.in.push_back(ld);
    }
  data_.next();
  for (int m : members)
    for (int ld : nodes_[m].out) {
      bool leaves = cg_.read_outside(ld);
      for (int r : cg_.readers(ld))
        if (!leaves && find(r) != id) leaves = true;
      if (leaves && data_.set(ld)) merged.out.push_back(ld);
    }
  for (int m : members) {  // no longer on the top level: their interfaces are not needed
    nodes_[m].in = {};
    nodes_[m].out = {};
  }
  top_count_ -= static_cast<int>(members.size()) - 1;
  top_groups_ += 1;
  const size_t total = nodes_.size();
  for (Marks* marks : {&member_, &visit_, &nbr_}) marks->grow(total);
  position_.resize(total);
  succ0_.resize(total);
  pred0_.resize(total);
  deg_in_.resize(total);
  deg_out_.resize(total);
  rank_.resize(total);
  options_of_.resize(total);
  if (cfg_.can_use_rotor) {
    around.push_back(id);
    for (int y : around) {
      deg_out_[y] = static_cast<int>(neighbours(y, true).size());
      deg_in_[y] = static_cast<int>(neighbours(y, false).size());
      count_degree(y, +1);
    }
  }
  return id;
}

void Run::greedy() {
  while (!top_ok() && !heap_.empty()) {
    HeapEntry e = heap_.top();
    heap_.pop();
    GroupOption& picked = options_[e.id];
    if (!picked.alive || picked.version != e.version) continue;
    if (first(picked) != e.first) {  // its shape lost its copies since it was pushed
      push(e.id);
      continue;
    }
    if (!convex(picked.members)) {  // §3.7: would make the quotient cyclic
      kill(e.id, false);
      continue;
    }
    kill(e.id, true);
    const std::vector<int> members = picked.members;
    int id = merge(members);
    opt_.grow(options_.size());
    opt_.next();
    std::vector<int> touched;
    for (int m : members)
      for (int o : options_of_[m])
        if (options_[o].alive && opt_.set(o)) touched.push_back(o);
    std::sort(touched.begin(), touched.end());
    for (int o : touched) rewrite(o, id);
  }
}

// Cuts a topological order of the top level into intervals whose estimate fits, choosing the cuts
// that the least bytes cross (then the fewest intervals), and merges each interval of two nodes or
// more; round after round until the top level fits. Intervals of a topological order are convex.
// In the round that can make the top level fit, the cuts leave it at least `min_top_fill` of its
// bound where they can (see filling_cuts): the least bytes alone took the largest intervals,
// and a 4,969-node encoder-decoder's root had 3 parts (estimate 6 of 30), which its H-ILP could
// hardly combine (hilp 32.8 % at 50 %, 30 s, where TW-Remat has 0.58 %).
void Run::interval_fallback() {
  while (!top_ok()) {
    begin_round();
    const int k = static_cast<int>(by_rank_.size());
    // crossing[j]: bytes written before position j and read at or after it.
    std::vector<double> crossing(k + 2, 0);
    for (int i = 0; i < k; ++i)
      for (int ld : nodes_[by_rank_[i]].out) {
        int last = cg_.read_outside(ld) ? k : i;
        for (int r : cg_.readers(ld)) last = std::max(last, rank_[find(r)]);
        crossing[i + 1] += static_cast<double>(cg_.bytes(ld));
        crossing[last + 1] -= static_cast<double>(cg_.bytes(ld));
      }
    for (int j = 1; j <= k; ++j) crossing[j] += crossing[j - 1];
    // best[j]: (bytes at the cuts, intervals) for the first j nodes; from[j]: where its last interval starts.
    std::vector<std::pair<double, int>> best(k + 1, {0, 0});
    std::vector<int> from(k + 1, 0);
    for (int j = 1; j <= k; ++j) {
      double estimate = 0;
      best[j] = {-1, 0};
      for (int i = j - 1; i >= 0; --i) {
        estimate += est_of(by_rank_[i]);
        if (i < j - 1 && estimate > cfg_.max_estimate_per_sub_graph) break;
        std::pair<double, int> cost{best[i].first + (i > 0 ? crossing[i] : 0), best[i].second + 1};
        if (best[j].first < 0 || cost < best[j]) {
          best[j] = cost;
          from[j] = i;
        }
      }
    }
    filling_cuts(crossing, from);
    bool merged = false;
    for (int j = k; j > 0; j = from[j])
      if (j - from[j] >= 2) {
        std::vector<int> run(by_rank_.begin() + from[j], by_rank_.begin() + j);
        std::sort(run.begin(), run.end());
        merge(run);
        merged = true;
      }
    if (!merged) return;
  }
}

// Where some cuts of this round leave the top level within its bound, replaces `from` (where each
// interval of the first j nodes starts) by the cuts with the least bytes among those that leave it
// between min_top_fill of the bound and the bound (the fewest intervals among equals), or, where
// none does, the finest that fit; leaves it alone where none fits.
void Run::filling_cuts(const std::vector<double>& crossing, std::vector<int>& from) const {
  const int k = static_cast<int>(by_rank_.size());
  const int limit = static_cast<int>(std::floor(top_limit_));
  const int merged_est = static_cast<int>(std::ceil(cfg_.estimate_coeff_size + cfg_.estimate_coeff_sub_graph));
  auto est_alone = [&](int i) { return static_cast<int>(std::ceil(est_of(by_rank_[i]))); };
  // bytes[j][e]: least bytes at the cuts of the first j nodes that leave a top estimate of e (-1: none).
  std::vector<std::vector<double>> bytes(k + 1, std::vector<double>(limit + 1, -1));
  std::vector<std::vector<int>> start(k + 1, std::vector<int>(limit + 1, 0));
  bytes[0][0] = 0;
  for (int j = 1; j <= k; ++j) {
    double estimate = 0;
    for (int i = j - 1; i >= 0; --i) {
      estimate += est_of(by_rank_[i]);
      if (i < j - 1 && estimate > cfg_.max_estimate_per_sub_graph) break;
      const int e_part = j - i == 1 ? est_alone(i) : merged_est;
      const double cut = i > 0 ? crossing[i] : 0;
      for (int e = e_part; e <= limit; ++e) {
        if (bytes[i][e - e_part] < 0) continue;
        const double b = bytes[i][e - e_part] + cut;
        if (bytes[j][e] < 0 || b < bytes[j][e]) {
          bytes[j][e] = b;
          start[j][e] = i;
        }
      }
    }
  }
  int e = -1;
  for (int f = static_cast<int>(std::ceil(cfg_.min_top_fill * limit)); f <= limit; ++f)
    if (bytes[k][f] >= 0 && (e < 0 || bytes[k][f] < bytes[k][e])) e = f;
  for (int f = limit; e < 0 && f >= 0; --f)
    if (bytes[k][f] >= 0) e = f;
  if (e < 0) return;
  for (int j = k; j > 0;) {
    const int i = start[j][e];
    from[j] = i;
    e -= j - i == 1 ? est_alone(i) : merged_est;
    j = i;
  }
}

Draft Run::draft(int x) const {
  Draft d;
  if (!nodes_[x].group()) {
    d.units = {cg_.unit(x)};
    return d;
  }
  std::vector<int> stack{x};
  while (!stack.empty()) {
    int y = stack.back();
    stack.pop_back();
    if (nodes_[y].group()) stack.insert(stack.end(), nodes_[y].children.begin(), nodes_[y].children.end());
    else d.units.push_back(cg_.unit(y));
  }
  std::sort(d.units.begin(), d.units.end());
  for (int c : nodes_[x].children) d.parts.push_back(draft(c));
  d.limit = cfg_.max_estimate_per_sub_graph;
  return d;
}

Draft Run::result() {
  begin_round();
  int before = top_count_ + 1;
  while (!top_ok() && top_count_ < before) {
    before = top_count_;
    enumerate_options();
    greedy();
    begin_round();  // protects the new nodes, rebuilds the top-level graph
    if (top_count_ > (1 - cfg_.min_round_shrink) * before) break;  // too slow: the fallback takes over
  }
  if (!top_ok() && cfg_.interval_fallback) interval_fallback();
  begin_round();
  Draft root;
  root.units = cg_.units();
  root.limit = static_cast<int>(top_limit_);
  if (tops_.size() == 1 && nodes_[tops_[0]].group()) {
    for (int c : nodes_[tops_[0]].children) root.parts.push_back(draft(c));
  } else {
    for (int t : tops_) root.parts.push_back(draft(t));
  }
  return root;
}

}  // namespace

std::optional<Draft> BottomToTop::split(const ForwardGraph& fg, const std::vector<int>& units, bool main) const {
  ClusterGraph cg(fg, units);
  return Run(cg, cfg_, main).result();
}

}  // namespace hiremate::partition
