// RK-Checkmate: Checkmate's MILP on training graphs (research/hiremate.md §5 with every sub-node a
// single compute node), exact in the simulator's memory model.
//
// Stages follow the order forwards, loss, backwards (graph.order's relative order within each
// group); stage t runs node t for the first time. Only forwards are ever recomputed: a backward
// accumulates into grads and the loss marker is unique, so each runs once, in its own stage.
// Variables:
//   RK[t,k] / RF[t,k]  forward k runs in stage t keeping its phantoms / fast-forward (no phantoms);
//                      one variable R[t,k] when k has no phantoms;
//   S[t,i]             data node i (kind data, not a source) is resident on entry to stage t;
//   PH[t,k]            the phantoms of forward k are resident on entry to stage t;
//   FREE[t,k,i]        data node i is freed right after forward k runs in stage t (k < t);
//   U[t,k]             memory while node k runs in stage t (continuous).
// Consequences that make it small: grads are produced once, by backwards that run once, so they are
// resident exactly from their first producer to their last use: a constant per stage. Phantoms are
// freed by their backward, the last op of its stage. Frees after the last op of a stage do not
// affect that stage; the next stage starts from S and PH.
// Restrictions that lose no optimum in this model: a forward is not recomputed while one of its
// data outputs is resident, phantoms are not re-created while resident, and a forward keeps its
// phantoms only in a stage that carries them on or runs its backward.
// The S, FREE and U variables and every row that only reads the stage tables are the H-ILP's too
// (hierarchy/hilp_model.cpp): both build them with stage_milp/stage_vars.h, RK and RF being a node's
// two choices there.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>

#include "hiremate/common/error.h"
#include "hiremate/solvers/checkmate/stage_model.h"
#include "hiremate/stage_milp/stage_vars.h"

namespace hiremate::checkmate {

namespace {

using stage_milp::kAbsent;
// A node's two choices (stage_milp's [choice] index): run keeping its phantoms, or fast-forward.
constexpr int kKeep = 0, kFast = 1;

// The training graph's stages (stage_milp/stage_tables.h: data_out and data_in are data-kind, non-source
// outputs and deps; kept[t] = {phantoms, 0}, overhead[t] = {overhead, overhead}), and what only
// RK-Checkmate needs.
struct Training : stage_milp::StageTables {
  std::vector<NodeId> node;          // stage -> compute id
  std::vector<int> pos;              // compute id -> stage
  std::vector<double> cost;
  std::vector<int64_t> phantoms;     // phantoms bytes (units) of a forward, 0 if none
  std::vector<int> backward_of;      // forward stage -> its backward's stage, -1 if none
  std::vector<int> phantom_owner;    // backward stage -> its forward's stage if it reads phantoms
  std::vector<int> phantom_stage;    // data id -> stage of the forward whose phantoms it is, or -1
  int64_t unit = 1, sources = 0;

  // `order`: the compute nodes in the order of their stages' first computations (g.order, or a
  // start plan's); stages take its forwards, its loss, its backwards, in that order.
  Training(const Graph& g, const std::vector<NodeId>& order) {
    for (ComputeKind k : {ComputeKind::Forward, ComputeKind::Loss, ComputeKind::Backward})
      for (NodeId c : order)
        if (g.compute[c].kind == k) node.push_back(c);
    T = static_cast<int>(node.size());
    pos.assign(g.compute.size(), -1);
    for (int t = 0; t < T; ++t) pos[node[t]] = t;
    for (int t = 0; t < T; ++t)  // forwards, loss, backwards must itself be a topological order
      for (NodeId d : g.compute[node[t]].deps)
        for (NodeId p : g.data[d].producers)
          if (pos[p] >= t)
            throw BadInput(fmt::format("checkmate needs every forward before the loss and every backward after "
                                       "it, but {} reads '{}' written by {}", g.describe_compute(node[t]),
                                       g.data[d].name, g.describe_compute(p)));
    kind.resize(T);
    cost.resize(T);
    std::vector<int64_t> node_overhead(T, 0);  // units
    data_out.resize(T);
    data_in.resize(T);
    phantoms.assign(T, 0);
    backward_of.assign(T, -1);
    phantom_owner.assign(T, -1);
    mem.assign(g.data.size(), 0);
    producer.assign(g.data.size(), -1);
    phantom_stage.assign(g.data.size(), -1);
    users.assign(g.data.size(), {});
    sources = g.source_bytes();
    int64_t gcd = 0;
    for (const auto& d : g.data)
      if (!d.source) gcd = std::gcd(gcd, d.bytes);
    for (const auto& c : g.compute) gcd = std::gcd(gcd, c.overhead);
    unit = gcd > 0 ? gcd : 1;
    for (size_t d = 0; d < g.data.size(); ++d) mem[d] = g.data[d].source ? 0 : g.data[d].bytes / unit;
    for (int t = 0; t < T; ++t) {
      const auto& c = g.compute[node[t]];
      kind[t] = c.kind;
      cost[t] = c.time;
      node_overhead[t] = c.overhead / unit;
      if (c.kind == ComputeKind::Backward) {
        backward_of[pos[c.pair]] = t;
        if (g.phantoms_of(c.pair) != kNone) phantom_owner[t] = pos[c.pair];
      }
      for (NodeId d : c.outputs) {
        if (g.data[d].kind == DataKind::Phantoms) {
          phantoms[t] += mem[d];
          phantom_stage[d] = t;
        }
        if (g.data[d].kind == DataKind::Data) {
          data_out[t].push_back(d);
          producer[d] = t;
        }
      }
      for (NodeId d : c.deps)
        if (g.data[d].kind == DataKind::Data && !g.data[d].source) {
          data_in[t].push_back(d);
          users[d].push_back(t);
        }
    }
    out_units.assign(T, 0);
    kept.resize(T);
    overhead.resize(T);
    std::vector<int> keeps_for(T, -1);
    for (int t = 0; t < T; ++t) {
      for (NodeId d : data_out[t]) out_units[t] += mem[d];
      kept[t] = {phantoms[t], 0};
      overhead[t] = {node_overhead[t], node_overhead[t]};
      if (backward_of[t] >= 0 && phantoms[t] > 0) keeps_for[t] = backward_of[t];
    }
    find_last_need(keeps_for);
    // Grads (and other outputs of the loss and backwards): resident from their first producer to
    // their last producer or user, whichever is later.
    grads_at_start.assign(T + 1, 0);
    grads_new.assign(T, 0);
    for (size_t d = 0; d < g.data.size(); ++d) {
      if (g.data[d].kind != DataKind::Grad || g.data[d].source) continue;
      int first = T, last = -1;
      for (NodeId p : g.data[d].producers) {
        first = std::min(first, pos[p]);
        last = std::max(last, pos[p]);
      }
      for (NodeId u : g.data[d].users) last = std::max(last, pos[u]);
      add_grad(first, last, mem[d]);
    }
  }
};

// RK-Checkmate's own variables and rows: per stage t and stage k <= t (forwards only, except the
// diagonal), RK (R[t][k][kKeep]) and RF (R[t][k][kFast], the only one when k has no phantoms), PH
// (PH[t][k][kKeep]) for a forward with phantoms; the rest is the shared stage MILP.
struct TrainingModel : stage_milp::StageVars {
  const Training& tr;

  milp::Var rk(int t, int k) const { return R[t][k][kKeep]; }
  milp::Var rf(int t, int k) const { return R[t][k][kFast]; }
  milp::Var ph(int t, int k) const { return StageVars::ph(t, k, kKeep); }

  TrainingModel(const Training& t_, int64_t capacity) : StageVars(t_, capacity), tr(t_) { build(); }

  void add_run_vars(int t) override {
    for (int k = 0; k <= t; ++k) {
      R[t][k].assign(2, kAbsent);
      bool first = k == t;
      if (!first && (tr.kind[k] != ComputeKind::Forward || tr.last_need[k] < t)) continue;
      R[t][k][kFast] = model.add_var(milp::VarType::Binary, 0, 1, tr.cost[k]);
      bool keep_useful = tr.phantoms[k] > 0 && tr.backward_of[k] >= t;
      if (keep_useful) R[t][k][kKeep] = model.add_var(milp::VarType::Binary, 0, 1, tr.cost[k]);
      if (first) {
        std::vector<milp::Term> row = runs(t, k);
        model.add_row(row, 1, 1);
      }
    }
    for (int k = 0; k < t; ++k)
      if (tr.kind[k] == ComputeKind::Forward && tr.phantoms[k] > 0 && tr.backward_of[k] >= t)
        PH[t][k] = {model.add_var(milp::VarType::Binary, 0, 1, 0), kAbsent};
  }

  void add_node_rows(int t, int k, const std::vector<milp::Term>& run) override {
    using milp::Term;
    const double inf = milp::kInf;
    for (NodeId d : tr.data_in[k]) add_need_row(t, run, d);
    if (k == t && tr.phantom_owner[t] >= 0) {  // a backward needs its forward's phantoms
      int f = tr.phantom_owner[t];
      std::vector<Term> row;
      if (rk(t, f) != kAbsent) row.push_back({rk(t, f), 1});
      if (ph(t, f) != kAbsent) row.push_back({ph(t, f), 1});
      model.add_row(row, 1, inf);
    }
    add_no_recompute_rows(t, k, run);
    if (rk(t, k) != kAbsent) {
      if (ph(t, k) != kAbsent) model.add_row({{rk(t, k), 1}, {ph(t, k), 1}}, -inf, 1);
      if (t < tr.backward_of[k]) {  // kept phantoms must be carried on
        std::vector<Term> row{{rk(t, k), 1}};
        if (ph(t + 1, k) != kAbsent) row.push_back({ph(t + 1, k), -1});
        model.add_row(row, -inf, 0);
      }
    }
  }

  // Save budget: memory while the loss runs, which is what is resident right after it (the loss is
  // the last op of its stage and has no frees before it ends).
  void limit_at_loss(int64_t save_cap) {
    for (int t = 0; t < tr.T; ++t)
      if (tr.kind[t] == ComputeKind::Loss) model.set_bounds(U[t][t], 0, static_cast<double>(std::max<int64_t>(save_cap, 0)));
  }

  // The values of every variable for a plan's compute sequence (compute and loss ops; deletes are
  // ignored: the model frees after last use by itself), or nothing when this model cannot express
  // it: first computations out of the stages' order, recomputations within a stage out of order or
  // repeated, a recomputation of a backward. Values that break a row (phantoms re-created while
  // resident, memory over the cap as the model counts it) are left for the caller's check.
  // `num_vars`: the model's, which the caller has moved out of this object by then.
  std::optional<std::vector<std::pair<milp::Var, double>>> assignment_of(const std::vector<Op>& ops,
                                                                       size_t num_vars) const {
    const int T = tr.T;
    std::vector<double> x(num_vars, 0.0);
    std::vector<std::vector<char>> ran(T, std::vector<char>(T, 0));  // ran[t][k]
    int t = 0;
    // Per forward with phantoms, in op order: (stage, kept) for a run keeping them, (stage, freed) for
    // a delete of them.
    std::vector<std::vector<std::pair<int, bool>>> ph_events(T);
    // The stage's recomputations so far, by stage index: the model runs them in that order (a
    // topological one), once each, keeping phantoms if any run did; the caller's check then decides
    // whether the memory still fits.
    std::map<int, bool> pending;
    auto set_run = [&](int st, int k, bool keep) {
      milp::Var v = keep ? rk(st, k) : rf(st, k);
      if (v == kAbsent) return false;
      x[v] = 1;
      ran[st][k] = 1;
      return true;
    };
    for (const Op& op : ops) {
      if (op.kind == Op::Kind::Delete) {
        if (op.node >= 0 && static_cast<size_t>(op.node) < tr.phantom_stage.size() && tr.phantom_stage[op.node] >= 0)
          ph_events[tr.phantom_stage[op.node]].push_back({t, false});
        continue;
      }
      if (t >= T) return std::nullopt;
      int k = -1;
      if (op.kind == Op::Kind::Loss) {
        for (int j = 0; j < T && k < 0; ++j)
          if (tr.kind[j] == ComputeKind::Loss) k = j;
      } else if (op.node >= 0 && static_cast<size_t>(op.node) < tr.pos.size()) {
        k = tr.pos[op.node];
      }
      if (k < 0 || k > t) return std::nullopt;
      const bool keep = op.kind == Op::Kind::Compute && op.keep_phantoms && tr.phantoms[k] > 0;
      if (keep) ph_events[k].push_back({t, true});
      if (k < t) {
        if (tr.kind[k] != ComputeKind::Forward) return std::nullopt;  // only forwards are recomputed
        pending[k] = pending[k] || keep;
        continue;
      }
      for (const auto& [j, keeps] : pending)
        if (!set_run(t, j, keeps)) return std::nullopt;
      pending.clear();
      if (!set_run(t, t, keep)) return std::nullopt;
      ++t;
    }
    if (t != T) return std::nullopt;
    // A run that keeps its phantoms only for them to be deleted within its stage is, to the model, a
    // fast-forward (the model requires kept phantoms to reach the next stage; its memory is no more
    // and the cost the same). Measured: a hilp plan on a 1-layer transformer at 50 %.
    for (int k = 0; k < T; ++k)
      for (int st = k; st < T && st < tr.backward_of[k]; ++st) {
        if (rk(st, k) == kAbsent || x[rk(st, k)] < 0.5 || rf(st, k) == kAbsent) continue;
        std::optional<bool> last;
        for (const auto& [stage, keeps] : ph_events[k])
          if (stage == st) last = keeps;
        if (last && !*last) {
          x[rk(st, k)] = 0;
          x[rf(st, k)] = 1;
        }
      }
    // S: a value is resident on entry to stage t when stage t or a later one reads it before its
    // producer runs again (within a stage the producer, an earlier stage, runs before its users).
    for (int st = T - 1; st >= 0; --st)
      for (const auto& [d, var] : S[st]) {
        bool need = false;
        for (int u = st; u < T && !need; ++u) {
          if (ran[u][tr.producer[d]]) break;
          for (int j : tr.users[d]) need = need || (j <= u && ran[u][j]);
        }
        x[var] = need ? 1 : 0;
      }
    // PH: resident on entry to a stage when the last event before it kept them.
    for (int st = 0; st < T; ++st)
      for (int k = 0; k < st; ++k) {
        if (ph(st, k) == kAbsent) continue;
        bool kept = false;
        for (const auto& [stage, keeps] : ph_events[k])
          if (stage < st) kept = keeps;
        x[ph(st, k)] = kept ? 1 : 0;
      }
    free_values(x);    // forced by its rows: k ran, the value is not carried, no later user runs
    memory_values(x);  // the memory chain of each stage
    std::vector<std::pair<milp::Var, double>> values;
    for (size_t v = 0; v < x.size(); ++v) values.push_back({static_cast<milp::Var>(v), x[v]});
    return values;
  }

  // The autograd schedule as a start: every forward once, keeping its phantoms; data kept while a
  // later stage reads it. Nothing when it does not fit.
  std::optional<std::vector<std::pair<milp::Var, double>>> keep_all_start() const {
    // Build the values, then let the model check them (max_violation) before handing them over.
    std::vector<double> x(model.num_vars(), 0.0);
    for (int t = 0; t < tr.T; ++t) {
      x[rk(t, t) != kAbsent ? rk(t, t) : rf(t, t)] = 1;
      keep_all_residency(x, t);
      for (int k = 0; k < t; ++k)
        if (ph(t, k) != kAbsent) x[ph(t, k)] = 1;
    }
    // Memory: nothing is recomputed and nothing freed before the stage's own node, so every U of the
    // stage holds what is resident on entry, and the last adds the node's outputs.
    memory_values(x);
    std::vector<std::pair<milp::Var, double>> values;
    for (size_t v = 0; v < x.size(); ++v) values.push_back({static_cast<milp::Var>(v), x[v]});
    return values;
  }
};

}  // namespace

StageModel build_training_model(const Graph& g, int64_t budget, std::optional<int64_t> save_budget,
                                 const std::vector<Op>* start) {
  // With a start plan, the stages follow its first computations, so that the model can express it.
  std::vector<NodeId> order;
  if (start) {
    std::vector<char> seen(g.compute.size(), 0);
    for (const Op& op : *start) {
      NodeId c = op.kind == Op::Kind::Loss ? g.loss : op.kind == Op::Kind::Compute ? op.node : kNone;
      if (c >= 0 && static_cast<size_t>(c) < g.compute.size() && !seen[c]) {
        seen[c] = 1;
        order.push_back(c);
      }
    }
    for (NodeId c : g.order)
      if (!seen[c]) order.push_back(c);
  }
  auto tr = std::make_shared<Training>(g, start ? order : g.order);
  auto m = std::make_shared<TrainingModel>(*tr, (budget - tr->sources) / tr->unit);
  if (save_budget) m->limit_at_loss((*save_budget - tr->sources) / tr->unit);
  StageModel out;
  out.start = m->keep_all_start();
  out.assignment_of = [m, n = m->model.num_vars()](const std::vector<Op>& ops) { return m->assignment_of(ops, n); };
  out.summary = fmt::format("training graph, {} stages, memory unit {} bytes", tr->T, tr->unit);
  out.decode = [tr, m](const std::vector<double>& x) {
    std::vector<Op> ops;
    for (int t = 0; t < tr->T; ++t)
      for (int k = 0; k <= t; ++k) {
        bool keep = m->rk(t, k) != kAbsent && x[m->rk(t, k)] > 0.5;
        bool ff = m->rf(t, k) != kAbsent && x[m->rf(t, k)] > 0.5;
        if (!keep && !ff) continue;
        NodeId c = tr->node[k];
        if (tr->kind[k] == ComputeKind::Loss) ops.push_back(Op::loss_marker(c));
        else ops.push_back(Op::compute(c, keep || tr->kind[k] != ComputeKind::Forward));
      }
    return ops;
  };
  out.model = std::move(m->model);
  return out;
}

}  // namespace hiremate::checkmate
