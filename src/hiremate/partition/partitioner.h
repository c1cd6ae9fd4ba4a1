// The partitioner interface and the registry of partitioners by name (research/hiremate.md §3.2).
//
// A partitioner splits one cluster into convex parts whose quotient graph is acyclic. It may split
// parts further itself (bottom_to_top builds a whole hierarchy in one go) or leave them to its
// sub-partitioner (sequence and repetitive cut one level, then hand each part to bottom_to_top).
// The driver (partition.h) turns drafts into clusters, deduplicates them and keeps only
// representatives' partitionings.
//
// Names and parameters, as accepted by make_partitioner ("NAME" or "NAME:key=value,key=value"):
//   bottom_to_top  the default (§3.3); parameters: see BottomToTopConfig (bottom_to_top.h)
//   sequence       cut at the forward graph's cutting points (§3.4); then bottom_to_top on each block
//                  (any bottom_to_top parameter given to it goes to that sub-partitioner)
//   repetitive     cut at a repeated window of the topological order (§3.5); then bottom_to_top on
//                  each block; parameters: see RepetitiveConfig (repetitive.h) and bottom_to_top's
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hiremate/partition/forward_graph.h"

namespace hiremate::partition {

// A cluster as a partitioner returns it: its units (sorted) and its parts. A part of two units or
// more either carries its own parts (already split) or none (the driver hands it to sub()).
struct Draft {
  std::vector<int> units;
  std::vector<Draft> parts;
  int limit = 0;  // the bound on the size estimate of this split (Partitioning::limit)
};

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  virtual std::string name() const = 0;
  // Splits the cluster `units` (sorted unit numbers). `main`: it is the root cluster (bottom_to_top
  // allows a larger top). nullopt when it finds no structure; the driver then asks sub().
  virtual std::optional<Draft> split(const ForwardGraph& fg, const std::vector<int>& units, bool main) const = 0;
  // Splits the parts returned without parts, and the clusters this one finds no structure in;
  // nullptr: the parts of a split are always complete and split() never returns nullopt.
  virtual const Partitioner* sub() const { return nullptr; }
};

std::vector<std::string> partitioner_names();
// "NAME" or "NAME:key=value,key=value". BadInput naming the known partitioners for an unknown name,
// and the known parameters for an unknown or malformed parameter.
std::unique_ptr<Partitioner> make_partitioner(const std::string& spec);

// Parameters given as key=value strings to a config: each config lists its keys and parses values.
// Used by make_partitioner; exposed for the configs' own set() functions.
bool parse_bool_param(const std::string& key, const std::string& value);
double parse_number_param(const std::string& key, const std::string& value);
int parse_int_param(const std::string& key, const std::string& value);

}  // namespace hiremate::partition
