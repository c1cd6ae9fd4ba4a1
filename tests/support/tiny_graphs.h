// Small hand-made graphs whose peaks a reader can check by eye.
#pragma once
#include "hiremate/graph/graph.h"

namespace hiremate::testing {

// Training graph, bytes in brackets:
//   source x[100] -> F1 -> a[10] + a_ph (phantoms)[5] -> F2 -> b[20] -> loss -> bg (grad)[20]
//   B2 reads bg, a -> ag (grad)[10];  B1 reads ag, a_ph -> xg (grad)[100]
// Times: F1 1, F2 2, loss 0, B2 3, B1 4. Overheads 0 unless given.
inline Graph two_layer(int64_t f2_overhead = 0) {
  Graph g;
  g.name = "two_layer";
  NodeId x = g.add_data("x", DataKind::Data, 100, true);
  NodeId a = g.add_data("a", DataKind::Data, 10);
  NodeId aph = g.add_data("a_ph", DataKind::Phantoms, 5);
  NodeId b = g.add_data("b", DataKind::Data, 20);
  NodeId bg = g.add_data("bg", DataKind::Grad, 20);
  NodeId ag = g.add_data("ag", DataKind::Grad, 10);
  NodeId xg = g.add_data("xg", DataKind::Grad, 100);
  NodeId f1 = g.add_compute("F1", ComputeKind::Forward, 1, 0, {x}, {a, aph});
  NodeId f2 = g.add_compute("F2", ComputeKind::Forward, 2, f2_overhead, {a}, {b});
  g.add_compute("loss", ComputeKind::Loss, 0, 0, {b}, {bg});
  NodeId b2 = g.add_compute("B2", ComputeKind::Backward, 3, 0, {bg, a}, {ag}, {b});
  NodeId b1 = g.add_compute("B1", ComputeKind::Backward, 4, 0, {ag, aph}, {xg}, {a});
  g.set_pair(f1, b1);
  g.set_pair(f2, b2);
  g.finalize();
  return g;
}

// Gradient accumulation: x -> F1 -> a; a feeds F2 -> b and F3 -> c; loss reads b, c.
// a's grad `ag`[8] has two producers, B2 and B3; B1 reads it.
inline Graph two_producer_grad() {
  Graph g;
  g.name = "two_producer_grad";
  NodeId x = g.add_data("x", DataKind::Data, 4, true);
  NodeId a = g.add_data("a", DataKind::Data, 8);
  NodeId b = g.add_data("b", DataKind::Data, 8);
  NodeId c = g.add_data("c", DataKind::Data, 8);
  NodeId bg = g.add_data("bg", DataKind::Grad, 8);
  NodeId cg = g.add_data("cg", DataKind::Grad, 8);
  NodeId ag = g.add_data("ag", DataKind::Grad, 8);
  NodeId xg = g.add_data("xg", DataKind::Grad, 4);
  NodeId f1 = g.add_compute("F1", ComputeKind::Forward, 1, 0, {x}, {a});
  NodeId f2 = g.add_compute("F2", ComputeKind::Forward, 1, 0, {a}, {b});
  NodeId f3 = g.add_compute("F3", ComputeKind::Forward, 1, 0, {a}, {c});
  g.add_compute("loss", ComputeKind::Loss, 0, 0, {b, c}, {bg, cg});
  NodeId b2 = g.add_compute("B2", ComputeKind::Backward, 1, 0, {bg, a}, {ag});
  NodeId b3 = g.add_compute("B3", ComputeKind::Backward, 1, 0, {cg, a}, {ag});
  NodeId b1 = g.add_compute("B1", ComputeKind::Backward, 1, 0, {ag, x}, {xg});
  g.set_pair(f1, b1);
  g.set_pair(f2, b2);
  g.set_pair(f3, b3);
  g.finalize();
  return g;
}

// Generic DAG (Checkmate's model), a diamond: A -> B, A -> C, B + C -> D. Sizes A 4, B 2, C 3, D 1.
inline Graph diamond() {
  Graph g;
  g.name = "diamond";
  NodeId a = g.add_data("A", DataKind::Data, 4);
  NodeId b = g.add_data("B", DataKind::Data, 2);
  NodeId c = g.add_data("C", DataKind::Data, 3);
  NodeId d = g.add_data("D", DataKind::Data, 1);
  g.add_compute("A", ComputeKind::Forward, 1, 0, {}, {a});
  g.add_compute("B", ComputeKind::Forward, 2, 0, {a}, {b});
  g.add_compute("C", ComputeKind::Forward, 3, 0, {a}, {c});
  g.add_compute("D", ComputeKind::Forward, 4, 0, {b, c}, {d});
  g.finalize();
  return g;
}

}  // namespace hiremate::testing
