// The driver: load, capture, measure each distinct signature once, and build the K-graph
// (research/hiremate.md §2.4) from the groups and their measurements.
#include "hiremate/torch/profile.h"

#include <ATen/Parallel.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include "hiremate/common/error.h"
#include "hiremate/torch/capture.h"
#include "hiremate/torch/measure.h"
#include "hiremate/torch/memory_counter.h"
#include "hiremate/torch/profile_capture.h"

namespace hiremate::torchbridge {

bool available() { return true; }
void set_plugin_path(const std::string&) {}  // linked in directly: no plugin to find

torch::jit::Module load_module(const std::string& path) {
  try {
    return torch::jit::load(path);
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    throw BadInput(path + ": cannot load a TorchScript module (" + msg.substr(0, msg.find('\n')) +
                   "); save one with torch.jit.trace(model, inputs).save(PATH)");
  }
}

std::vector<c10::IValue> load_inputs(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw BadInput(path + ": cannot read the inputs file");
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  c10::IValue v;
  try {
    v = torch::jit::pickle_load(bytes);
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    throw BadInput(path + ": cannot read the inputs (" + msg.substr(0, msg.find('\n')) +
                   "); save them with torch.save(list_of_tensors, PATH)");
  }
  if (v.isList()) return v.toListRef().vec();
  if (v.isTuple()) return v.toTupleRef().elements().vec();
  return {v};
}

c10::Device input_device(const std::vector<c10::IValue>& inputs) {
  for (const auto& v : inputs) {
    std::vector<at::Tensor> ts;
    collect_tensors(v, ts);
    for (auto& t : ts)
      if (t.defined()) return t.device();
  }
  return c10::Device(c10::DeviceType::CPU);
}

namespace {

int64_t tensor_bytes(const c10::IValue& v) {
  std::vector<at::Tensor> ts;
  collect_tensors(v, ts);
  int64_t b = 0;
  for (auto& t : ts)
    if (t.defined() && t.is_floating_point()) b += static_cast<int64_t>(t.numel() * t.element_size());
  return b;
}

int64_t storage_bytes(const c10::IValue& v) {
  std::vector<at::Tensor> ts;
  collect_tensors(v, ts);
  std::vector<const c10::StorageImpl*> seen;
  int64_t b = 0;
  for (auto& t : ts)
    if (t.defined() && t.has_storage() &&
        std::find(seen.begin(), seen.end(), t.storage().unsafeGetStorageImpl()) == seen.end()) {
      seen.push_back(t.storage().unsafeGetStorageImpl());
      b += static_cast<int64_t>(t.storage().nbytes());
    }
  return b;
}

std::string base_name(const std::string& path) {
  auto s = path.substr(path.find_last_of('/') + 1);
  auto dot = s.rfind(".pt");
  return dot == std::string::npos ? s : s.substr(0, dot);
}

void add_unique(std::vector<NodeId>& v, NodeId x) {
  if (x != kNone && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

std::string node_name(size_t i, const Group& grp) { return std::to_string(i) + "." + grp.ops.substr(0, grp.ops.find('+')); }

// A backward whose gradient output may already hold another producer's contribution allocates its
// own beside it, and only then adds it in (autograd's input buffers do the same): the simulator
// charges a resident gradient nothing, so those bytes are the backward's overhead. Charged unless
// every other producer of that gradient depends on this backward (then it always runs first).
void add_accumulation_overheads(Graph& g, const std::map<NodeId, std::map<NodeId, int64_t>>& fresh) {
  std::vector<std::vector<NodeId>> producers(g.data.size()), readers(g.data.size());
  for (size_t c = 0; c < g.compute.size(); ++c) {
    for (NodeId d : g.compute[c].outputs) producers[d].push_back(NodeId(c));
    for (NodeId d : g.compute[c].deps) readers[d].push_back(NodeId(c));
  }
  auto descendants = [&](NodeId from) {
    std::vector<bool> seen(g.compute.size(), false);
    std::vector<NodeId> stack{from};
    while (!stack.empty()) {
      NodeId c = stack.back();
      stack.pop_back();
      for (NodeId d : g.compute[c].outputs)
        for (NodeId r : readers[d])
          if (!seen[r]) stack.push_back(r), seen[r] = true;
    }
    return seen;
  };
  for (const auto& [b, per_grad] : fresh) {
    std::vector<bool> after;
    for (const auto& [gd, bytes] : per_grad) {
      if (bytes == 0 || producers[gd].size() < 2) continue;
      if (after.empty()) after = descendants(b);
      bool first = true;
      for (NodeId q : producers[gd]) first &= q == b || after[q];
      if (!first) g.compute[b].overhead += bytes;
    }
  }
}

// The K-graph: per group a forward, its data, phantoms when autograd keeps extra bytes, and when
// a gradient reaches it a grad node and a backward; one loss node; model inputs as sources.
Graph build_graph(const Capture& cap, const std::vector<Measurement>& m, const std::string& name) {
  Graph g;
  g.name = name;
  g.time_unit = "s";
  std::vector<NodeId> source_data;
  for (const auto* v : cap.sources)
    source_data.push_back(g.add_data("input." + v->debugName(), DataKind::Data, storage_bytes(cap.values.at(v)), true));
  const size_t n = cap.groups.size();
  std::vector<std::string> names(n);
  std::vector<NodeId> data(n, kNone), phantoms(n, kNone), grad(n, kNone), fwd(n, kNone);
  std::vector<bool> need(n, false);
  need[cap.loss_group] = true;
  for (size_t i = n; i-- > 0;) {
    if (!need[i]) continue;
    const Group& grp = cap.groups[i];
    for (size_t k = 0; k < grp.inputs.size(); ++k) {
      int o = grp.input_owner[k];
      if (o >= 0 && cap.requires_grad.at(grp.inputs[k]) && cap.groups[o].requires_grad) need[o] = true;
    }
  }
  // A gradient's bytes: per export, the largest gradient a reader's backward gives it (measured:
  // the gradient of a sum is an expanded scalar), summed over the exports; the loss's is its size.
  std::map<const torch::jit::Value*, int64_t> per_export;
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < cap.groups[i].inputs.size(); ++k)
      if (need[i] && k < m[i].input_grad_bytes.size()) {
        auto& b = per_export[cap.groups[i].inputs[k]];
        b = std::max(b, m[i].input_grad_bytes[k]);
      }
  per_export[cap.loss] = tensor_bytes(cap.values.at(cap.loss));
  std::vector<int64_t> grad_bytes(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const auto* v : cap.groups[i].exports) grad_bytes[i] += per_export[v];

  // Several views of one storage read by other nodes (split's q, k, v): PyTorch keeps their
  // gradients apart until the split's backward joins them, so each gets a free view node with its
  // own gradient, whose backward (time 0: the join is measured in the owner's) writes the owner's.
  struct View {
    NodeId data = kNone, grad = kNone, fwd = kNone;
  };
  std::map<const torch::jit::Value*, View> views;
  std::vector<std::vector<const torch::jit::Value*>> view_exports(n);
  for (size_t i = 0; i < n; ++i) {
    if (!need[i]) continue;
    for (const auto* v : cap.groups[i].exports)
      if (v != cap.loss && cap.requires_grad.at(v) && per_export[v] > 0) view_exports[i].push_back(v);
    if (view_exports[i].size() < 2) view_exports[i].clear();
  }

  auto owner_data = [&](int o) { return o >= 0 ? data[o] : source_data[-1 - o]; };
  for (size_t i = 0; i < n; ++i) {
    const Group& grp = cap.groups[i];
    names[i] = node_name(i, grp);
    data[i] = g.add_data(names[i], DataKind::Data, m[i].data_bytes);
    if (need[i] && m[i].phantom_bytes > 0) phantoms[i] = g.add_data(names[i] + ".phantoms", DataKind::Phantoms, m[i].phantom_bytes);
    if (need[i]) grad[i] = g.add_data(names[i] + ".grad", DataKind::Grad, grad_bytes[i]);
    std::vector<NodeId> deps, outs{data[i]};
    for (size_t k = 0; k < grp.inputs.size(); ++k) {
      auto it = views.find(grp.inputs[k]);
      if (it != views.end()) add_unique(deps, it->second.data);
      add_unique(deps, owner_data(grp.input_owner[k]));  // the storage stays alive while a view is read
    }
    if (phantoms[i] != kNone) outs.push_back(phantoms[i]);
    // A forward with phantoms runs without grad when it drops them (the executor's recomputations):
    // its one overhead covers both runs (conservative by the difference in the other).
    int64_t fwd_overhead = m[i].fwd_overhead;
    if (!need[i] || phantoms[i] != kNone) fwd_overhead = std::max(fwd_overhead, m[i].fwd_overhead_no_grad);
    fwd[i] = g.add_compute(names[i], ComputeKind::Forward, m[i].fwd_time, fwd_overhead, deps, outs);
    for (size_t k = 0; k < view_exports[i].size(); ++k) {
      View v;
      std::string vname = names[i] + ".view" + std::to_string(k);
      v.data = g.add_data(vname, DataKind::Data, 0);
      v.grad = g.add_data(vname + ".grad", DataKind::Grad, per_export[view_exports[i][k]]);
      v.fwd = g.add_compute(vname, ComputeKind::Forward, 0, 0, {data[i]}, {v.data});
      views[view_exports[i][k]] = v;
    }
  }
  g.add_compute("loss", ComputeKind::Loss, 0, 0, {data[cap.loss_group]}, {grad[cap.loss_group]});
  std::map<NodeId, std::map<NodeId, int64_t>> fresh;  // backward -> grad node -> bytes it allocates for it
  for (size_t i = n; i-- > 0;) {
    if (!need[i]) continue;
    for (size_t k = view_exports[i].size(); k-- > 0;) {
      const View& v = views.at(view_exports[i][k]);
      NodeId b = g.add_compute(g.data[v.data].name + ".bwd", ComputeKind::Backward, 0, 0, {v.grad}, {grad[i]}, {v.data});
      g.set_pair(v.fwd, b);
    }
    const Group& grp = cap.groups[i];
    std::vector<NodeId> deps{grad[i]}, fake, outs;
    add_unique(deps, phantoms[i]);
    for (size_t k = 0; k < grp.inputs.size(); ++k)
      if (m[i].input_saved[k]) add_unique(deps, owner_data(grp.input_owner[k]));
    if (m[i].output_saved) add_unique(deps, data[i]);
    for (int o : grp.input_owner)
      if (std::find(deps.begin(), deps.end(), owner_data(o)) == deps.end()) add_unique(fake, owner_data(o));
    if (!m[i].output_saved) fake.push_back(data[i]);
    for (size_t k = 0; k < grp.inputs.size(); ++k) {
      int o = grp.input_owner[k];
      if (o < 0 || !need[o] || !cap.requires_grad.at(grp.inputs[k])) continue;
      auto it = views.find(grp.inputs[k]);
      NodeId gk = it != views.end() ? it->second.grad : grad[o];
      add_unique(outs, gk);
      if (k < m[i].input_grad_fresh.size()) fresh[NodeId(g.compute.size())][gk] += m[i].input_grad_fresh[k];
    }
    // Measured from the views' gradients, the backward's overhead includes joining them. The view
    // nodes' backwards stand for that join in the graph, but PyTorch (and the executor) still holds
    // the views' gradients while the split's backward allocates the joined one: the overhead stays.
    int64_t overhead = m[i].bwd_overhead;
    NodeId b = g.add_compute(names[i] + ".bwd", ComputeKind::Backward, m[i].bwd_time, overhead, deps, outs, fake);
    g.set_pair(fwd[i], b);
  }
  add_accumulation_overheads(g, fresh);
  g.finalize();
  return g;
}

}  // namespace

std::string group_node_name(size_t i, const Group& grp) { return node_name(i, grp); }

ProfiledModel profile_model(const std::string& model_path, const std::string& inputs_path,
                            const ProfileOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  if (opt.threads > 0) at::set_num_threads(opt.threads);
  at::globalContext().setFlushDenormal(opt.flush_denormal);
  auto inputs = load_inputs(inputs_path);
  auto module = load_module(model_path);
  c10::Device device = input_device(inputs);
  module.to(device);
  MemoryCounter installed(device.is_cuda());  // every node is timed with the same allocator
  auto cap = capture(module, inputs, model_path);
  ProfiledModel out = profile_capture(*cap, base_name(model_path), opt);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

ProfiledModel profile_capture(const Capture& capture_, const std::string& name, const ProfileOptions& opt) {
  const Capture* cap = &capture_;
  std::vector<c10::IValue> source_values;
  for (const auto* v : cap->sources) source_values.push_back(cap->values.at(v));
  c10::Device device = input_device(source_values);
  MeasureOptions mo;
  mo.runs = std::max(1, opt.runs);
  mo.warmup = std::max(0, opt.warmup);
  mo.cuda = device.is_cuda();
  mo.cpu_time = opt.cpu_time && !mo.cuda;
  std::map<std::string, size_t> first;  // signature -> the group measured for it
  std::vector<Measurement> m(cap->groups.size());
  size_t distinct = 0;
  for (const auto& grp : cap->groups) distinct += first.emplace(grp.signature, 0).second;
  first.clear();
  for (size_t i = 0; i < cap->groups.size(); ++i) {
    const Group& grp = cap->groups[i];
    auto [it, fresh] = first.emplace(grp.signature, i);
    if (!fresh) {
      m[i] = m[it->second];
      continue;
    }
    m[i] = measure_group(*cap, grp, mo);
    if (opt.debug) {
      std::string saved;
      for (bool b : m[i].input_saved) saved += b ? "S" : "-";
      std::fprintf(stderr, "%zu %s data=%ld ph=%ld fo=%ld/%ld bo=%ld saved=%s out_saved=%d tf=%.3gms tb=%.3gms | %s\n", i,
                   grp.ops.c_str(), (long)m[i].data_bytes, (long)m[i].phantom_bytes, (long)m[i].fwd_overhead, (long)m[i].fwd_overhead_no_grad,
                   (long)m[i].bwd_overhead, saved.c_str(), (int)m[i].output_saved, m[i].fwd_time * 1e3,
                   m[i].bwd_time * 1e3, grp.signature.substr(0, 300).c_str());
    }
    if (opt.progress) opt.progress(first.size(), distinct, grp.ops);
  }

  ProfiledModel out;
  out.graph = build_graph(*cap, m, name);
  for (size_t i = 0; i < cap->groups.size(); ++i) {
    const Group& grp = cap->groups[i];
    out.info.push_back({node_name(i, grp), grp.ops, grp.shapes, grp.signature});
  }
  out.torchscript_nodes = cap->torchscript_nodes;
  out.signatures = distinct;
  out.parameter_bytes = cap->parameter_bytes;
  out.static_bytes = cap->static_bytes;
  return out;
}

}  // namespace hiremate::torchbridge
