#include "hiremate/partition/partitioner.h"

#include <gtest/gtest.h>

#include "hiremate/common/error.h"
#include "hiremate/graph/generate.h"
#include "hiremate/partition/partition.h"

using namespace hiremate;

namespace {
std::string message_of(const std::string& spec) {
  try {
    partition::make_partitioner(spec);
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(Partitioners, KnownByName) {
  EXPECT_EQ(partition::partitioner_names(), (std::vector<std::string>{"bottom_to_top", "sequence", "repetitive"}));
  for (const auto& name : partition::partitioner_names()) EXPECT_EQ(partition::make_partitioner(name)->name(), name);
}

TEST(Partitioners, UnknownNamesAndParametersListWhatIsKnown) {
  std::string m = message_of("metis");
  EXPECT_TRUE(has(m, "unknown partitioner 'metis'")) << m;
  EXPECT_TRUE(has(m, "bottom_to_top, sequence, repetitive")) << m;
  m = message_of("bottom_to_top:size=3");
  EXPECT_TRUE(has(m, "unknown bottom_to_top parameter 'size'")) << m;
  EXPECT_TRUE(has(m, "max_estimate_per_sub_graph")) << m;
  m = message_of("repetitive:size=3");
  EXPECT_TRUE(has(m, "min_percentage_covered_required")) << m;
  EXPECT_TRUE(has(m, "max_len_seq")) << m;  // its sub-partitioner's parameters are accepted too
  EXPECT_TRUE(has(message_of("bottom_to_top:max_len_seq"), "not key=value"));
  EXPECT_TRUE(has(message_of("bottom_to_top:max_len_seq=ten"), "expected a non-negative integer"));
  EXPECT_TRUE(has(message_of("sequence:can_use_rotor=yes"), "expected true or false"));
}

TEST(Partitioners, ParametersChangeTheTree) {
  generate::RandomLayeredParams p;
  p.nodes = 800;
  Graph g = generate::random_layered(p, {});
  partition::PartitionOptions opt;
  opt.partitioners = {"bottom_to_top:max_estimate_per_sub_graph=8,max_estimate_for_main_graph=8,can_use_rotor=false"};
  auto tree = partition::partition(g, opt);
  for (int r : tree.bottom_up())
    for (const auto& part : tree.cluster(r).partitionings) EXPECT_LE(part.estimate, 8);
  opt.partitioners = {"repetitive:min_number_of_patterns=3,max_estimate_per_sub_graph=8"};
  EXPECT_NO_THROW(partition::partition(g, opt));
}
