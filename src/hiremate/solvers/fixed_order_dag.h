// A generic DAG in Checkmate's fixed order, by position: node p of graph.order is the p-th first
// computation. Shared by checkmate's MILP and dagremat, which both index everything by position.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate {

struct FixedOrderDag {
  int n = 0;
  std::vector<NodeId> order;                  // position -> compute id
  std::vector<int> pos;                       // compute id -> position
  std::vector<int64_t> mem, overhead;         // bytes of the outputs, transient bytes
  std::vector<double> cost;
  std::vector<std::vector<int>> pred, users;  // positions, sorted, unique
  int64_t sources = 0;                        // bytes resident throughout

  explicit FixedOrderDag(const Graph& g);
};

}  // namespace hiremate
