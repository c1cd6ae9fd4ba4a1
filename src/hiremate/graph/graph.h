// The computation graph (HiRemate's K-graph, research/hiremate.md §2.4; DESIGN §2).
//
// Two kinds of nodes. Compute nodes (forward / backward / loss) read data nodes (`deps`) and write
// data nodes (`outputs`). Data nodes are `data` (a forward output), `grad` (a gradient; several
// producers accumulate into it) or `phantoms` (what a forward saves for its backward that is neither
// its output nor its input; it exists only when the forward runs with keep_phantoms).
// Sources (model inputs) are data nodes with no producer, resident from the start, never freed.
//
// A Graph is the algorithm; a Schedule (schedule/) is the decision. Solvers never edit Graphs.
// Build a Graph with add_data / add_compute / set_pair, then call finalize(), which derives
// producers and users, checks every rule of validate() and fixes the topological `order`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace hiremate {

using NodeId = int32_t;  // index into Graph::compute or Graph::data
constexpr NodeId kNone = -1;

enum class ComputeKind { Forward, Backward, Loss };
enum class DataKind { Data, Grad, Phantoms };

const char* to_string(ComputeKind k);
const char* to_string(DataKind k);
std::optional<ComputeKind> compute_kind_from_string(const std::string& s);
std::optional<DataKind> data_kind_from_string(const std::string& s);

struct ComputeNode {
  std::string name;
  ComputeKind kind = ComputeKind::Forward;
  double time = 0;                 // in the graph's time unit
  int64_t overhead = 0;            // transient bytes held only while it runs
  std::vector<NodeId> deps;        // data nodes whose content it reads (must be resident)
  std::vector<NodeId> fake_deps;   // data nodes whose shape only it needs (backward; not required)
  std::vector<NodeId> outputs;     // data nodes it writes
  NodeId pair = kNone;             // forward <-> backward partner (a compute id)
};

struct DataNode {
  std::string name;
  DataKind kind = DataKind::Data;
  int64_t bytes = 0;
  bool source = false;             // resident from the start, never freed, no producer
  std::vector<NodeId> producers;   // derived by finalize(): compute nodes that write it
  std::vector<NodeId> users;       // derived by finalize(): compute nodes that read it (real deps)
};

class Graph {
 public:
  std::string name;
  std::string time_unit = "s";
  std::vector<ComputeNode> compute;
  std::vector<DataNode> data;
  // A fixed topological order of the compute nodes. Generic DAGs compute every node for the first
  // time in this order (Checkmate's model). Empty before finalize() means "derive one".
  std::vector<NodeId> order;
  NodeId loss = kNone;  // the loss compute node, if any (derived by finalize())
  // Where each node was read from ("file.json:/compute/3", "model.txt:12"), for error messages.
  std::vector<std::string> compute_where, data_where;

  NodeId add_data(const std::string& name, DataKind kind, int64_t bytes, bool source = false,
                  const std::string& where = "");
  NodeId add_compute(const std::string& name, ComputeKind kind, double time, int64_t overhead,
                     std::vector<NodeId> deps, std::vector<NodeId> outputs,
                     std::vector<NodeId> fake_deps = {}, const std::string& where = "");
  void set_pair(NodeId forward, NodeId backward);

  // Derives producers, users, loss and (if empty) order; then validate(). Throws BadInput.
  void finalize();
  // Every rule of the model, each failure a BadInput naming the node and where it was read:
  // duplicate names, negative / NaN sizes, times and overheads, byte sums overflowing int64,
  // backward without forward, data without producer that is not a source, sources with producers,
  // several producers for a non-grad node, phantoms not owned by a forward, cycles (printed), an
  // `order` that is not a topological permutation.
  void validate() const;

  // True when the graph has backward or loss nodes (a training graph), false for a generic DAG.
  bool is_training() const;
  // The phantoms data node written by a forward, or kNone.
  NodeId phantoms_of(NodeId forward) const;
  std::optional<NodeId> find_compute(const std::string& name) const;
  std::optional<NodeId> find_data(const std::string& name) const;
  // Dependency edges: the number of (data -> compute) reads, real deps only. For a node-link DAG
  // imported one output per node this is the file's number of links.
  size_t num_edges() const;
  // Bytes of the sources: resident from the start to the end, a constant in every memory model.
  int64_t source_bytes() const;
  // Describes a node for messages: "compute node 'fc1' (file.json:/compute/3)".
  std::string describe_compute(NodeId c) const;
  std::string describe_data(NodeId d) const;

 private:
  std::unordered_map<std::string, NodeId> compute_index_, data_index_;
};

}  // namespace hiremate
