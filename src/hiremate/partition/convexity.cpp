#include "hiremate/partition/convexity.h"

#include <algorithm>
#include <queue>
#include <unordered_set>

namespace hiremate::partition {

bool is_convex(const ForwardGraph& fg, const std::vector<int>& units) {
  if (units.size() < 2) return true;
  auto inside = [&](int u) { return std::binary_search(units.begin(), units.end(), u); };
  const int last = units.back();  // a unit after it cannot reach S (numbers are topological)
  std::unordered_set<int> seen;
  std::vector<int> stack;
  for (int u : units)
    for (int v : fg.succs(u))
      if (v < last && !inside(v) && seen.insert(v).second) stack.push_back(v);
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    for (int v : fg.succs(x)) {
      if (v > last) break;  // succs are sorted
      if (inside(v)) return false;
      if (seen.insert(v).second) stack.push_back(v);
    }
  }
  return true;
}

Quotient quotient(const ForwardGraph& fg, const std::vector<std::vector<int>>& parts) {
  const int k = static_cast<int>(parts.size());
  std::vector<std::pair<int, int>> part_of;  // (unit, part), sorted by unit
  for (int p = 0; p < k; ++p)
    for (int u : parts[p]) part_of.emplace_back(u, p);
  std::sort(part_of.begin(), part_of.end());
  auto find = [&](int u) {
    auto it = std::lower_bound(part_of.begin(), part_of.end(), std::make_pair(u, -1));
    return it != part_of.end() && it->first == u ? it->second : -1;
  };
  std::vector<std::vector<int>> succ(k);
  std::vector<int> indegree(k, 0);
  for (int p = 0; p < k; ++p) {
    for (int u : parts[p])
      for (int v : fg.succs(u)) {
        int q = find(v);
        if (q >= 0 && q != p) succ[p].push_back(q);
      }
    std::sort(succ[p].begin(), succ[p].end());
    succ[p].erase(std::unique(succ[p].begin(), succ[p].end()), succ[p].end());
    for (int q : succ[p]) ++indegree[q];
  }
  Quotient out;
  auto first_unit = [&](int p) { return parts[p].empty() ? -1 : parts[p].front(); };
  auto later = [&](int a, int b) { return first_unit(a) > first_unit(b); };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  int sources = 0;
  bool narrow = true;  // every part has at most one successor and one predecessor
  for (int p = 0; p < k; ++p) {
    if (indegree[p] == 0) {
      ready.push(p);
      ++sources;
    }
    narrow = narrow && succ[p].size() <= 1 && indegree[p] <= 1;
  }
  std::vector<int> indeg = indegree;
  while (!ready.empty()) {
    int p = ready.top();
    ready.pop();
    out.order.push_back(p);
    for (int q : succ[p])
      if (--indeg[q] == 0) ready.push(q);
  }
  out.acyclic = static_cast<int>(out.order.size()) == k;
  if (!out.acyclic) out.order.clear();
  out.chain = out.acyclic && narrow && sources == 1;
  return out;
}

}  // namespace hiremate::partition
