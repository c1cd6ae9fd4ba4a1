#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hiremate/solvers/twremat/tree_decomposition.h"
#include "solvers/twremat/graphs.h"

using namespace hiremate::twremat;
using hiremate::testing::tw::Rng;

namespace {

using Adjacency = std::vector<std::vector<int>>;

void connect(Adjacency& adj, int a, int b) {
  adj[a].push_back(b);
  adj[b].push_back(a);
}

Adjacency path(int n) {
  Adjacency adj(n);
  for (int i = 1; i < n; ++i) connect(adj, i - 1, i);
  return adj;
}

Adjacency grid(int rows, int cols) {
  Adjacency adj(rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (c + 1 < cols) connect(adj, r * cols + c, r * cols + c + 1);
      if (r + 1 < rows) connect(adj, r * cols + c, (r + 1) * cols + c);
    }
  return adj;
}

Adjacency random_graph(int n, int edges, uint64_t seed) {
  Rng rng{seed};
  std::set<std::pair<int, int>> seen;
  Adjacency adj(n);
  for (int i = 1; i < n; ++i) {  // a random tree keeps it connected
    int j = static_cast<int>(rng.in(0, i - 1));
    seen.insert({j, i});
    connect(adj, j, i);
  }
  while (static_cast<int>(seen.size()) < n - 1 + edges) {
    int a = static_cast<int>(rng.in(0, n - 1)), b = static_cast<int>(rng.in(0, n - 1));
    if (a == b) continue;
    if (seen.insert({std::min(a, b), std::max(a, b)}).second) connect(adj, a, b);
  }
  return adj;
}

// The three properties of a tree decomposition: every vertex in a bag, every edge in a bag, the
// bags holding a vertex form a connected subtree; and the parent links form a forest.
void expect_valid(const Adjacency& adj, const TreeDecomposition& td) {
  const int n = static_cast<int>(adj.size());
  ASSERT_EQ(static_cast<int>(td.bags.size()), n);
  for (int v = 0; v < n; ++v) {
    ASSERT_FALSE(td.bags[v].empty());
    EXPECT_EQ(td.bags[v][0], v);
    if (td.parent[v] >= 0) {
      EXPECT_GT(td.position[td.parent[v]], td.position[v]) << "parent eliminated later";
    }
  }
  auto in_bag = [&](int t, int v) { return std::count(td.bags[t].begin(), td.bags[t].end(), v) > 0; };
  for (int a = 0; a < n; ++a)
    for (int b : adj[a]) {
      bool covered = false;
      for (int t = 0; t < n && !covered; ++t) covered = in_bag(t, a) && in_bag(t, b);
      EXPECT_TRUE(covered) << "edge " << a << "-" << b;
    }
  // Connected occurrences: within each tree of the forest, the bags holding v minus the topmost
  // one each have their parent bag holding v too.
  for (int v = 0; v < n; ++v) {
    int tops = 0;
    for (int t = 0; t < n; ++t)
      if (in_bag(t, v) && (td.parent[t] < 0 || !in_bag(td.parent[t], v))) ++tops;
    EXPECT_EQ(tops, 1) << "vertex " << v << " occurs in a disconnected set of bags";
  }
}

// Components of A minus the bag: each at most |A| / 2.
void expect_balanced(const Adjacency& adj, const TreeDecomposition& td, const std::vector<int>& A, int t) {
  const int n = static_cast<int>(adj.size());
  std::vector<char> in(n, 0), done(n, 0);
  for (int v : A) in[v] = 1;
  for (int v : td.bags[t]) in[v] = 0;
  for (int s : A) {
    if (!in[s] || done[s]) continue;
    std::vector<int> comp{s};
    done[s] = 1;
    for (size_t i = 0; i < comp.size(); ++i)
      for (int w : adj[comp[i]])
        if (in[w] && !done[w]) {
          done[w] = 1;
          comp.push_back(w);
        }
    EXPECT_LE(2 * comp.size(), A.size()) << "a component of " << comp.size() << " of " << A.size();
  }
}

}  // namespace

TEST(TreeDecomposition, KnownWidths) {
  EXPECT_EQ(decompose(path(30)).width(), 1);
  Adjacency cycle = path(12);
  connect(cycle, 0, 11);
  EXPECT_EQ(decompose(cycle).width(), 2);
  Adjacency complete(6);
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b) connect(complete, a, b);
  EXPECT_EQ(decompose(complete).width(), 5);
  EXPECT_EQ(decompose(grid(3, 8)).width(), 3);  // a k x n grid has treewidth k
  EXPECT_EQ(decompose(Adjacency(4)).width(), 0);
}

TEST(TreeDecomposition, ValidOnRandomGraphsBothHeuristics) {
  for (uint64_t seed = 1; seed <= 6; ++seed)
    for (Heuristic h : {Heuristic::MinFill, Heuristic::MinDegree}) {
      Adjacency adj = random_graph(40, static_cast<int>(seed) * 8, seed);
      SCOPED_TRACE(::testing::Message() << "seed " << seed << (h == Heuristic::MinFill ? " min-fill" : " min-degree"));
      expect_valid(adj, decompose(adj, h));
    }
}

TEST(TreeDecomposition, MinFillIsNoWorseThanMinDegreeOnGrids) {
  Adjacency adj = grid(5, 5);
  EXPECT_LE(decompose(adj, Heuristic::MinFill).width(), decompose(adj, Heuristic::MinDegree).width());
  EXPECT_LE(decompose(adj, Heuristic::MinFill).width(), 6);
}

TEST(TreeDecomposition, DisconnectedGraphsGiveAForest) {
  Adjacency adj(7);
  connect(adj, 0, 1);
  connect(adj, 1, 2);
  connect(adj, 4, 5);
  TreeDecomposition td = decompose(adj);
  expect_valid(adj, td);
  int roots = 0;
  for (int p : td.parent) roots += p < 0;
  EXPECT_EQ(roots, 4);  // {0,1,2}, {3}, {4,5}, {6}
}

TEST(TreeDecomposition, CentroidSplitsConnectedSetsInHalves) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Adjacency adj = random_graph(60, 30, seed);
    TreeDecomposition td = decompose(adj);
    SeparatorFinder finder(td);
    // Connected subsets grown by BFS from a random vertex.
    Rng rng{seed * 7};
    for (int trial = 0; trial < 10; ++trial) {
      int size = static_cast<int>(rng.in(1, 60));
      std::vector<int> A{static_cast<int>(rng.in(0, 59))};
      std::vector<char> in(60, 0);
      in[A[0]] = 1;
      for (size_t i = 0; i < A.size() && static_cast<int>(A.size()) < size; ++i)
        for (int w : adj[A[i]])
          if (!in[w] && static_cast<int>(A.size()) < size) {
            in[w] = 1;
            A.push_back(w);
          }
      int t = finder.centroid(A);
      SCOPED_TRACE(::testing::Message() << "seed " << seed << " trial " << trial << " |A| " << A.size());
      expect_balanced(adj, td, A, t);
      bool meets = false;
      for (int v : td.bags[t]) meets |= in[v] != 0;
      EXPECT_TRUE(meets) << "the separator bag misses A";
    }
  }
}
