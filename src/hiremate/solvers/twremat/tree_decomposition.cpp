#include "hiremate/solvers/twremat/tree_decomposition.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

#include "hiremate/common/error.h"

namespace hiremate::twremat {

int TreeDecomposition::width() const {
  int w = -1;
  for (const auto& b : bags) w = std::max(w, static_cast<int>(b.size()) - 1);
  return w;
}

namespace {

// Looks at the clock at every elimination (each costs far more than reading the clock).
struct TimeCheck {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  void operator()() const {
    if (deadline && std::chrono::steady_clock::now() >= *deadline) throw DecompositionOutOfTime{};
  }
};

// Min-fill with adjacency rows as bitsets: the fill of v is the number of non-adjacent pairs of
// its neighbours, counted with one AND-NOT and popcount per neighbour.
std::vector<std::vector<int>> eliminate_min_fill(const std::vector<std::vector<int>>& adj,
                                                 std::vector<int>& order, const TimeCheck& check) {
  const int n = static_cast<int>(adj.size());
  const size_t words = (static_cast<size_t>(n) + 63) / 64;
  std::vector<uint64_t> rows(static_cast<size_t>(n) * words, 0);
  auto row = [&](int v) { return rows.data() + static_cast<size_t>(v) * words; };
  auto set = [&](int v, int u) { row(v)[u >> 6] |= uint64_t{1} << (u & 63); };
  for (int v = 0; v < n; ++v)
    for (int u : adj[v]) set(v, u);
  std::vector<int> degree(n), fill(n);
  auto neighbours = [&](int v, std::vector<int>& out) {
    out.clear();
    const uint64_t* r = row(v);
    for (size_t w = 0; w < words; ++w)
      for (uint64_t bits = r[w]; bits; bits &= bits - 1)
        out.push_back(static_cast<int>(w * 64 + __builtin_ctzll(bits)));
  };
  std::vector<int> nb;
  auto compute_fill = [&](int v) {
    neighbours(v, nb);
    degree[v] = static_cast<int>(nb.size());
    long sum = 0;
    const uint64_t* r = row(v);
    for (int a : nb) {
      const uint64_t* ra = row(a);
      for (size_t w = 0; w < words; ++w) sum += __builtin_popcountll(r[w] & ~ra[w]);
    }
    fill[v] = static_cast<int>((sum - degree[v]) / 2);
  };
  for (int v = 0; v < n; ++v) compute_fill(v);

  std::vector<char> alive(n, 1);
  std::vector<int> stamp(n, -1);
  std::vector<std::vector<int>> bags(n);
  std::vector<int> around, second;
  for (int step = 0; step < n; ++step) {
    check();
    int best = -1;
    for (int v = 0; v < n; ++v)
      if (alive[v] && (best < 0 || std::tie(fill[v], degree[v], v) < std::tie(fill[best], degree[best], best)))
        best = v;
    const int v = best;
    alive[v] = 0;
    order.push_back(v);
    neighbours(v, around);
    bags[v].push_back(v);
    bags[v].insert(bags[v].end(), around.begin(), around.end());
    // The neighbours become a clique; v leaves every row.
    const uint64_t* rv = row(v);
    for (int a : around) {
      uint64_t* ra = row(a);
      for (size_t w = 0; w < words; ++w) ra[w] |= rv[w];
      ra[a >> 6] &= ~(uint64_t{1} << (a & 63));
      ra[v >> 6] &= ~(uint64_t{1} << (v & 63));
    }
    // Fills change for the neighbours and for whoever sees two of them.
    for (int a : around) {
      if (stamp[a] != step) {
        stamp[a] = step;
        compute_fill(a);
      }
      neighbours(a, second);
      for (int b : second)
        if (stamp[b] != step) {
          stamp[b] = step;
          compute_fill(b);
        }
    }
  }
  return bags;
}

// Min-degree with sorted neighbour lists, for graphs too large for bitset rows.
std::vector<std::vector<int>> eliminate_min_degree(const std::vector<std::vector<int>>& adj,
                                                   std::vector<int>& order, const TimeCheck& check) {
  const int n = static_cast<int>(adj.size());
  std::vector<std::set<int>> nb(n);
  for (int v = 0; v < n; ++v) nb[v].insert(adj[v].begin(), adj[v].end());
  std::set<std::pair<int, int>> queue;
  for (int v = 0; v < n; ++v) queue.insert({static_cast<int>(nb[v].size()), v});
  std::vector<std::vector<int>> bags(n);
  while (!queue.empty()) {
    check();
    int v = queue.begin()->second;
    queue.erase(queue.begin());
    order.push_back(v);
    std::vector<int> around(nb[v].begin(), nb[v].end());
    bags[v].push_back(v);
    bags[v].insert(bags[v].end(), around.begin(), around.end());
    for (int a : around) {
      check();  // late steps have thousands of neighbours, each step then takes long
      queue.erase({static_cast<int>(nb[a].size()), a});
      nb[a].erase(v);
      for (int b : around)
        if (b != a) nb[a].insert(b);
      queue.insert({static_cast<int>(nb[a].size()), a});
    }
    nb[v].clear();
  }
  return bags;
}

}  // namespace

TreeDecomposition decompose(const std::vector<std::vector<int>>& adjacency, Heuristic heuristic,
                            std::optional<std::chrono::steady_clock::time_point> deadline) {
  const int n = static_cast<int>(adjacency.size());
  TreeDecomposition td;
  const TimeCheck check{deadline};
  td.bags = heuristic == Heuristic::MinFill && n <= kMinFillLimit
                ? eliminate_min_fill(adjacency, td.elimination, check)
                : eliminate_min_degree(adjacency, td.elimination, check);
  td.position.assign(n, 0);
  for (int i = 0; i < n; ++i) td.position[td.elimination[i]] = i;
  td.parent.assign(n, -1);
  td.children.assign(n, {});
  for (int v = 0; v < n; ++v) {
    int parent = -1;
    for (size_t i = 1; i < td.bags[v].size(); ++i) {
      int u = td.bags[v][i];
      if (parent < 0 || td.position[u] < td.position[parent]) parent = u;
    }
    td.parent[v] = parent;
  }
  for (int v : td.elimination)
    if (td.parent[v] >= 0) td.children[td.parent[v]].push_back(v);
  return td;
}

SeparatorFinder::SeparatorFinder(const TreeDecomposition& td) {
  const int n = static_cast<int>(td.parent.size());
  tin_.assign(n, 0);
  depth_.assign(n, 0);
  int levels = 1;
  while ((1 << levels) < std::max(n, 2)) ++levels;
  up_.assign(levels, std::vector<int>(n, 0));
  // Pre-order over the forest: parents are eliminated after their children, so the reversed
  // elimination order visits every parent before its children (depths); tin from an explicit DFS.
  for (auto it = td.elimination.rbegin(); it != td.elimination.rend(); ++it) {
    int v = *it, p = td.parent[v];
    up_[0][v] = p < 0 ? v : p;
    depth_[v] = p < 0 ? 0 : depth_[p] + 1;
  }
  for (int k = 1; k < levels; ++k)
    for (int v = 0; v < n; ++v) up_[k][v] = up_[k - 1][up_[k - 1][v]];
  int clock = 0;
  std::vector<int> stack;
  for (auto it = td.elimination.rbegin(); it != td.elimination.rend(); ++it) {
    if (td.parent[*it] >= 0) continue;
    stack.push_back(*it);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      tin_[v] = clock++;
      for (int c : td.children[v]) stack.push_back(c);
    }
  }
}

int SeparatorFinder::lca(int a, int b) const {
  if (depth_[a] < depth_[b]) std::swap(a, b);
  for (int k = static_cast<int>(up_.size()) - 1; k >= 0; --k)
    if (depth_[a] - (1 << k) >= depth_[b]) a = up_[k][a];
  if (a == b) return a;
  for (int k = static_cast<int>(up_.size()) - 1; k >= 0; --k)
    if (up_[k][a] != up_[k][b]) {
      a = up_[k][a];
      b = up_[k][b];
    }
  return up_[0][a];
}

int SeparatorFinder::centroid(const std::vector<int>& A) {
  HM_ASSERT(!A.empty(), "twremat: a separator of an empty set");
  auto by_tin = [&](int a, int b) { return tin_[a] < tin_[b]; };
  // The virtual tree: A's bags and the LCAs of neighbours in pre-order, which closes it under LCA.
  nodes_ = A;
  std::sort(nodes_.begin(), nodes_.end(), by_tin);
  const size_t given = nodes_.size();
  for (size_t i = 1; i < given; ++i) nodes_.push_back(lca(nodes_[i - 1], nodes_[i]));
  std::sort(nodes_.begin(), nodes_.end(), by_tin);
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  const int m = static_cast<int>(nodes_.size());
  // Weights: 1 for A's own bags. The position of a vertex in nodes_ by binary search on tin.
  auto index = [&](int v) {
    return static_cast<int>(std::lower_bound(nodes_.begin(), nodes_.end(), v, by_tin) - nodes_.begin());
  };
  weight_.assign(m, 0);
  for (int a : A) weight_[index(a)] = 1;
  // Parents by a stack of the current root path; pre-order lists parents first.
  vparent_.assign(m, -1);
  stack_.clear();
  for (int i = 0; i < m; ++i) {
    while (!stack_.empty() && lca(nodes_[stack_.back()], nodes_[i]) != nodes_[stack_.back()]) stack_.pop_back();
    vparent_[i] = stack_.empty() ? -1 : stack_.back();
    stack_.push_back(i);
  }
  for (int i = m - 1; i > 0; --i)
    if (vparent_[i] >= 0) weight_[vparent_[i]] += weight_[i];
  // Walk down from the root (nodes_[0], the LCA of all) into the child holding more than half.
  // Between two virtual nodes the path's inner bags split A no better than its lower end, so the
  // centroid is a virtual node.
  const int total = static_cast<int>(A.size());
  heavy_.assign(m, -1);  // the child holding more than half, if any (at most one)
  for (int i = 1; i < m; ++i)
    if (vparent_[i] >= 0 && 2 * weight_[i] > total) heavy_[vparent_[i]] = i;
  int t = 0;
  while (heavy_[t] >= 0) t = heavy_[t];
  return nodes_[t];
}

}  // namespace hiremate::twremat
