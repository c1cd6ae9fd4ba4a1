// Field-by-field comparison of two Graphs, for round-trip tests: names, kinds, sizes, bit-exact
// times, deps, fake deps, outputs, pairs, sources, order, loss, name and time unit. Derived
// fields (producers, users) follow from these; the `where` strings are positions, not content.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "hiremate/graph/graph.h"

namespace hiremate::testing {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline ::testing::AssertionResult equal_graphs(const Graph& a, const Graph& b) {
  auto differ = [](const std::string& what) { return ::testing::AssertionFailure() << what; };
  if (a.name != b.name) return differ("name '" + a.name + "' vs '" + b.name + "'");
  if (a.time_unit != b.time_unit) return differ("time_unit '" + a.time_unit + "' vs '" + b.time_unit + "'");
  if (a.data.size() != b.data.size())
    return differ("data count " + std::to_string(a.data.size()) + " vs " + std::to_string(b.data.size()));
  if (a.compute.size() != b.compute.size())
    return differ("compute count " + std::to_string(a.compute.size()) + " vs " + std::to_string(b.compute.size()));
  for (size_t i = 0; i < a.data.size(); ++i) {
    const DataNode &x = a.data[i], &y = b.data[i];
    std::string at = "data " + std::to_string(i) + " ('" + x.name + "'): ";
    if (x.name != y.name) return differ(at + "name vs '" + y.name + "'");
    if (x.kind != y.kind) return differ(at + "kind " + to_string(x.kind) + " vs " + to_string(y.kind));
    if (x.bytes != y.bytes) return differ(at + "bytes " + std::to_string(x.bytes) + " vs " + std::to_string(y.bytes));
    if (x.source != y.source) return differ(at + "source flag differs");
    if (x.producers != y.producers) return differ(at + "producers differ");
    if (x.users != y.users) return differ(at + "users differ");
  }
  for (size_t i = 0; i < a.compute.size(); ++i) {
    const ComputeNode &x = a.compute[i], &y = b.compute[i];
    std::string at = "compute " + std::to_string(i) + " ('" + x.name + "'): ";
    if (x.name != y.name) return differ(at + "name vs '" + y.name + "'");
    if (x.kind != y.kind) return differ(at + "kind " + to_string(x.kind) + " vs " + to_string(y.kind));
    if (!same_bits(x.time, y.time)) {
      std::ostringstream s;
      s.precision(17);
      s << at << "time " << x.time << " vs " << y.time;
      return differ(s.str());
    }
    if (x.overhead != y.overhead) return differ(at + "overhead differs");
    if (x.deps != y.deps) return differ(at + "deps differ");
    if (x.fake_deps != y.fake_deps) return differ(at + "fake deps differ");
    if (x.outputs != y.outputs) return differ(at + "outputs differ");
    if (x.pair != y.pair) return differ(at + "pair differs");
  }
  if (a.order != b.order) return differ("order differs");
  if (a.loss != b.loss) return differ("loss differs");
  return ::testing::AssertionSuccess();
}

}  // namespace hiremate::testing
