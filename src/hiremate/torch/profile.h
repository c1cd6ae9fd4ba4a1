// Capture and profile a traced PyTorch model into a measured Graph (DESIGN §1, research/hiremate.md
// §2.1-2.6). This header is torch-free so that the CLI and tests can include it cheaply; only the
// .cpp files in this folder include torch.
//
// Memory model of the result (DESIGN §2): parameters and their gradients are outside the graph (not
// counted); the model inputs are sources; every forward node is one real computation plus the views
// hanging on it, and its data node is the bytes of the storages it allocates (views are free);
// phantoms are the bytes its autograd graph keeps beyond its inputs and outputs.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hiremate/graph/graph.h"

namespace hiremate::torchbridge {

// False when hiremate was built without LibTorch (then every function below throws BadInput).
bool available();
// The CLI's torch plugin: where to look first (`$HIREMATE_TORCH_PLUGIN`, read by the CLI), before
// next to the executable and where it was built. Ignored in a build without LibTorch.
void set_plugin_path(const std::string& path);

struct ProfileOptions {
  int runs = 5;        // timed runs per node; the mean drops the fastest and the slowest
  int warmup = 1;      // untimed runs before them
  int threads = 0;     // torch intra-op threads; 0 keeps torch's default
  // Flush denormal floats to zero (CPU). Random-weight models produce denormal gradients that
  // slow some BLAS kernels tenfold, on data an isolated node does not see: times would not add up.
  bool flush_denormal = true;
  // Time with the process's CPU time instead of the wall clock: on a machine shared with other
  // jobs, a long step is preempted more often than a short node, and wall times stop adding up.
  // Meaningful with one thread (threads = 1) and on the CPU only.
  bool cpu_time = false;
  // Print each distinct node's measurement (bytes, overheads, saved inputs, times) on stderr.
  bool debug = false;
  // Called after each distinct signature is measured: (done, total, op name).
  std::function<void(size_t, size_t, const std::string&)> progress;
};

// What the CLI prints besides the graph.
struct NodeInfo {
  std::string node;      // the forward compute node's name
  std::string ops;       // the TorchScript ops of the node, main op first ("aten::linear+split")
  std::string shapes;    // output shapes, e.g. "[4, 64, 384]"
  std::string signature; // nodes with equal signatures were measured once
};

struct ProfiledModel {
  Graph graph;
  std::vector<NodeInfo> info;  // per captured forward node (view nodes have none)
  size_t torchscript_nodes = 0;
  size_t signatures = 0;       // distinct node signatures measured
  int64_t parameter_bytes = 0; // distinct parameter storages (tied weights once)
  int64_t static_bytes = 0;    // tensors computed once in the init step (constants' results)
  double seconds = 0;          // wall time of capture + profiling
};

// Loads a traced module (forward(*inputs) returns the scalar loss, or a tuple whose first element
// is it) and its inputs (a list of tensors saved by torch.save), captures and profiles it.
// Throws BadInput for control flow (prim::If / prim::Loop: trace the model instead of scripting
// it), unreadable files, or a model whose loss is not a scalar tensor.
ProfiledModel profile_model(const std::string& model_path, const std::string& inputs_path,
                            const ProfileOptions& opt = {});

// Plain PyTorch forward + loss.backward() of the same module on the same inputs, measured with the
// counting allocator: peak bytes above what is allocated before the step (parameters, inputs) with
// parameter gradients dropped as soon as autograd produces them (as the graph excludes them), and
// the trimmed mean wall time of the step.
struct Reference {
  int64_t peak = 0;
  double time = 0;       // trimmed mean over the runs, seconds
  double best_time = 0;  // the fastest run: the least disturbed by other processes on the machine
};
Reference measure_reference(const std::string& model_path, const std::string& inputs_path,
                            const ProfileOptions& opt = {});

}  // namespace hiremate::torchbridge
