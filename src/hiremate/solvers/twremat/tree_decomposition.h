// A tree decomposition from a greedy elimination order (the classic construction: eliminating v
// turns its remaining neighbours into a clique; its bag is v and those neighbours; the parent bag
// is that of the neighbour eliminated next). One bag per vertex, a forest when the graph is not
// connected. TW-Remat recurses on the balanced separators it offers (research/peers.md §3.7).
//
// Heuristics: min-fill (fewest edges added; ties: fewest neighbours, then the smallest vertex id),
// exact with bitset rows up to kMinFillLimit vertices; min-degree (ties: smallest id) above, where
// min-fill's quadratic rows would not pay off. Deterministic.
#pragma once
#include <chrono>
#include <optional>
#include <vector>

namespace hiremate::twremat {

enum class Heuristic { MinFill, MinDegree };

constexpr int kMinFillLimit = 4096;

struct TreeDecomposition {
  std::vector<int> elimination;           // the elimination order
  std::vector<int> position;              // vertex -> index in `elimination`
  std::vector<std::vector<int>> bags;     // vertex -> its bag (itself first)
  std::vector<int> parent;                // vertex -> parent bag's vertex, -1 at a root
  std::vector<std::vector<int>> children;
  int width() const;                      // largest bag size - 1 (-1 when empty)
};

// `adjacency`: an undirected simple graph (symmetric lists, no self loops). `heuristic` is a
// request: above kMinFillLimit vertices min-degree is used.
// With a `deadline`, elimination checks the clock as it goes and throws DecompositionOutOfTime once
// it has passed (it is quadratic or worse on large graphs: minutes at 20,000 nodes).
struct DecompositionOutOfTime {};
TreeDecomposition decompose(const std::vector<std::vector<int>>& adjacency,
                            Heuristic heuristic = Heuristic::MinFill,
                            std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

// Finds balanced separators of vertex subsets. For a connected set A, the returned bag B has the
// property that every connected component of A \ B has at most |A| / 2 vertices. It works on the
// tree spanned by A's bags (their lowest common ancestors added), O(|A| log n) per query, so that
// the recursion's many small queries do not each pay for the whole decomposition.
class SeparatorFinder {
 public:
  explicit SeparatorFinder(const TreeDecomposition& td);
  // The vertex whose bag is a centroid of the decomposition weighted by A (A non-empty, connected).
  int centroid(const std::vector<int>& A);

 private:
  int lca(int a, int b) const;

  std::vector<int> tin_, depth_;
  std::vector<std::vector<int>> up_;  // up_[k][v]: the 2^k-th ancestor (the root for past it)
  std::vector<int> weight_, stack_;   // scratch, indexed like the virtual tree's nodes
  std::vector<int> nodes_, vparent_, heavy_;
};

}  // namespace hiremate::twremat
