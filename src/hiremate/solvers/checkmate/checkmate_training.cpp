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
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>

#include "hiremate/common/error.h"
#include "hiremate/solvers/checkmate/stage_model.h"

namespace hiremate::checkmate {

namespace {

constexpr milp::Var kAbsent = -1;

struct Training {
  int T = 0;
  std::vector<NodeId> node;          // stage -> compute id
  std::vector<int> pos;              // compute id -> stage
  std::vector<ComputeKind> kind;
  std::vector<double> cost;
  std::vector<int64_t> overhead;     // units
  std::vector<std::vector<NodeId>> data_out;  // data-kind outputs (data ids) of a forward
  std::vector<std::vector<NodeId>> data_in;   // data-kind, non-source deps
  std::vector<int64_t> phantoms;     // phantoms bytes (units) of a forward, 0 if none
  std::vector<int> backward_of;      // forward stage -> its backward's stage, -1 if none
  std::vector<int> phantom_owner;    // backward stage -> its forward's stage if it reads phantoms
  std::vector<int64_t> mem;          // data id -> units
  std::vector<int> producer;         // data id -> stage of the forward producing it (data kind)
  std::vector<int> phantom_stage;    // data id -> stage of the forward whose phantoms it is, or -1
  std::vector<std::vector<int>> users;  // data id -> stages reading it
  std::vector<int> last_need;        // stage -> last stage where running it can help
  std::vector<int64_t> grads_at_start, grads_new;  // per stage: resident grads on entry; new at op t
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
    overhead.resize(T);
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
      overhead[t] = c.overhead / unit;
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
    // A forward helps in stage t when something it feeds (a backward, the loss, or a forward that
    // helps) can still run at t or later.
    last_need.assign(T, 0);
    for (int t = T - 1; t >= 0; --t) {
      last_need[t] = t;
      if (kind[t] != ComputeKind::Forward) continue;
      for (NodeId d : data_out[t])
        for (int u : users[d]) last_need[t] = std::max(last_need[t], last_need[u]);
      if (backward_of[t] >= 0 && phantoms[t] > 0) last_need[t] = std::max(last_need[t], backward_of[t]);
    }
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
      grads_new[first] += mem[d];
      for (int t = first + 1; t <= last; ++t) grads_at_start[t] += mem[d];
    }
  }

  int64_t data_need(NodeId d) const {  // the last stage where a copy of d resident can help
    int last = -1;
    for (int u : users[d]) last = std::max(last, last_need[u]);
    return last;
  }
};

struct Free {
  NodeId data;
  milp::Var var;
};

struct TrainingModel {
  const Training& tr;
  int64_t cap;
  milp::Model model;
  // Per stage t and stage k <= t (forwards only, except the diagonal): the run variables.
  std::vector<std::vector<milp::Var>> RK, RF;  // RF is the only variable when k has no phantoms
  std::vector<std::vector<milp::Var>> PH;      // PH[t][k], k a forward with phantoms
  std::vector<std::vector<milp::Var>> U;       // U[t][k], memory while k runs in stage t
  std::vector<std::vector<std::pair<NodeId, milp::Var>>> S;  // S[t]: (data, var)
  std::vector<std::vector<int>> s_index;       // S lookup: s_index[t][data] = index in S[t] or -1
  std::vector<std::vector<std::vector<Free>>> frees;  // frees[t][k]

  milp::Var s(int t, NodeId d) const {
    if (t >= tr.T) return kAbsent;
    int i = s_index[t][d];
    return i < 0 ? kAbsent : S[t][i].second;
  }
  milp::Var ph(int t, int k) const { return t < tr.T ? PH[t][k] : kAbsent; }
  // The terms of "k runs in stage t" (RK + RF), empty when it cannot.
  std::vector<milp::Term> runs(int t, int k, double coef = 1) const {
    std::vector<milp::Term> out;
    if (RK[t][k] != kAbsent) out.push_back({RK[t][k], coef});
    if (RF[t][k] != kAbsent) out.push_back({RF[t][k], coef});
    return out;
  }
  static void append(std::vector<milp::Term>& row, const std::vector<milp::Term>& more) {
    row.insert(row.end(), more.begin(), more.end());
  }

  TrainingModel(const Training& t_, int64_t capacity, size_t num_data) : tr(t_), cap(capacity) {
    const int T = tr.T;
    RK.assign(T, {});
    RF.assign(T, {});
    PH.assign(T, {});
    U.assign(T, {});
    S.assign(T, {});
    s_index.assign(T, std::vector<int>(num_data, -1));
    frees.assign(T, {});
    for (int t = 0; t < T; ++t) {
      RK[t].assign(t + 1, kAbsent);
      RF[t].assign(t + 1, kAbsent);
      PH[t].assign(t + 1, kAbsent);
      U[t].assign(t + 1, kAbsent);
      frees[t].resize(t + 1);
      for (int k = 0; k <= t; ++k) {
        bool first = k == t;
        if (!first && (tr.kind[k] != ComputeKind::Forward || tr.last_need[k] < t)) continue;
        RF[t][k] = model.add_var(milp::VarType::Binary, 0, 1, tr.cost[k]);
        bool keep_useful = tr.phantoms[k] > 0 && tr.backward_of[k] >= t;
        if (keep_useful) RK[t][k] = model.add_var(milp::VarType::Binary, 0, 1, tr.cost[k]);
        if (first) {
          std::vector<milp::Term> row = runs(t, k);
          model.add_row(row, 1, 1);
        }
      }
      for (int k = 0; k < t; ++k)
        if (tr.kind[k] == ComputeKind::Forward && tr.phantoms[k] > 0 && tr.backward_of[k] >= t)
          PH[t][k] = model.add_var(milp::VarType::Binary, 0, 1, 0);
      for (size_t d = 0; d < num_data; ++d)
        if (tr.producer[d] >= 0 && tr.producer[d] < t && tr.data_need(d) >= t) {
          s_index[t][d] = static_cast<int>(S[t].size());
          S[t].push_back({static_cast<NodeId>(d), model.add_var(milp::VarType::Binary, 0, 1, 0)});
        }
    }
    for (int t = 0; t < T; ++t) add_stage_rows(t);
  }

  void add_stage_rows(int t) {
    using milp::Term;
    const double inf = milp::kInf;
    for (int k = 0; k <= t; ++k) {
      auto run = runs(t, k);
      if (run.empty()) continue;
      for (NodeId d : tr.data_in[k]) {  // k needs its data inputs resident or computed in the stage
        std::vector<Term> row = run;
        append(row, runs(t, tr.producer[d], -1));
        if (s(t, d) != kAbsent) row.push_back({s(t, d), -1});
        model.add_row(row, -inf, 0);
      }
      if (k == t && tr.phantom_owner[t] >= 0) {  // a backward needs its forward's phantoms
        int f = tr.phantom_owner[t];
        std::vector<Term> row;
        if (RK[t][f] != kAbsent) row.push_back({RK[t][f], 1});
        if (ph(t, f) != kAbsent) row.push_back({ph(t, f), 1});
        model.add_row(row, 1, inf);
      }
      if (k < t && tr.kind[k] == ComputeKind::Forward) {
        for (NodeId d : tr.data_out[k])  // no recomputation while an output is resident
          if (s(t, d) != kAbsent) {
            std::vector<Term> row = run;
            row.push_back({s(t, d), 1});
            model.add_row(row, -inf, 1);
          }
      }
      if (RK[t][k] != kAbsent) {
        if (ph(t, k) != kAbsent) model.add_row({{RK[t][k], 1}, {ph(t, k), 1}}, -inf, 1);
        if (t < tr.backward_of[k]) {  // kept phantoms must be carried on
          std::vector<Term> row{{RK[t][k], 1}};
          if (ph(t + 1, k) != kAbsent) row.push_back({ph(t + 1, k), -1});
          model.add_row(row, -inf, 0);
        }
      }
    }
    // Carries into stage t + 1.
    if (t + 1 < tr.T) {
      for (const auto& [d, var] : S[t + 1]) {
        std::vector<Term> row{{var, 1}};
        append(row, runs(t, tr.producer[d], -1));
        if (s(t, d) != kAbsent) row.push_back({s(t, d), -1});
        model.add_row(row, -inf, 0);
      }
      for (int k = 0; k <= t; ++k)
        if (ph(t + 1, k) != kAbsent) {
          std::vector<Term> row{{ph(t + 1, k), 1}};
          if (RK[t][k] != kAbsent) row.push_back({RK[t][k], -1});
          if (ph(t, k) != kAbsent) row.push_back({ph(t, k), -1});
          model.add_row(row, -inf, 0);
        }
    }
    // FREE after a forward k < t: k ran, i not carried to t + 1, no later user of i runs in stage t.
    for (int k = 0; k < t; ++k) {
      auto run = runs(t, k);
      if (run.empty()) continue;
      std::vector<NodeId> candidates = tr.data_in[k];
      candidates.insert(candidates.end(), tr.data_out[k].begin(), tr.data_out[k].end());
      for (NodeId d : candidates) {
        milp::Var f = model.add_var(milp::VarType::Binary, 0, 1, 0);
        frees[t][k].push_back({d, f});
        std::vector<Term> upper{{f, 1}};
        append(upper, runs(t, k, -1));
        model.add_row(upper, -inf, 0);
        std::vector<Term> cover{{f, 1}};
        append(cover, runs(t, k, -1));
        if (s(t + 1, d) != kAbsent) {
          model.add_row({{f, 1}, {s(t + 1, d), 1}}, -inf, 1);
          cover.push_back({s(t + 1, d), 1});
        }
        for (int j : tr.users[d])
          if (j > k && j <= t)
            for (const Term& r : runs(t, j)) {
              model.add_row({{f, 1}, {r.var, 1}}, -inf, 1);
              cover.push_back({r.var, 1});
            }
        model.add_row(cover, 0, inf);
      }
    }
    // Memory while each node of the stage runs.
    milp::Var prev_u = kAbsent;
    int prev = -1;
    for (int k = 0; k <= t; ++k) {
      auto run = runs(t, k);
      if (run.empty()) continue;
      milp::Var u = model.add_var(milp::VarType::Continuous, 0, static_cast<double>(cap), 0);
      U[t][k] = u;
      std::vector<Term> row{{u, 1}};
      double constant = 0;  // the row is u - (terms) = constant
      if (prev < 0) {
        for (const auto& [d, var] : S[t]) row.push_back({var, -static_cast<double>(tr.mem[d])});
        for (int f = 0; f < t; ++f)
          if (ph(t, f) != kAbsent) row.push_back({ph(t, f), -static_cast<double>(tr.phantoms[f])});
        constant += static_cast<double>(tr.grads_at_start[t]);
      } else {
        row.push_back({prev_u, -1});
        for (const Free& fr : frees[t][prev]) row.push_back({fr.var, static_cast<double>(tr.mem[fr.data])});
      }
      int64_t out_bytes = 0;
      for (NodeId d : tr.data_out[k]) out_bytes += tr.mem[d];
      append(row, runs(t, k, -static_cast<double>(out_bytes)));
      if (RK[t][k] != kAbsent) row.push_back({RK[t][k], -static_cast<double>(tr.phantoms[k])});
      if (k == t) constant += static_cast<double>(tr.grads_new[t]);
      model.add_row(row, constant, constant);
      if (tr.overhead[k] > 0) {
        std::vector<Term> peak{{u, 1}};
        append(peak, runs(t, k, static_cast<double>(tr.overhead[k])));
        model.add_row(peak, -inf, static_cast<double>(cap));
      }
      prev_u = u;
      prev = k;
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
      milp::Var v = keep ? RK[st][k] : RF[st][k];
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
        if (RK[st][k] == kAbsent || x[RK[st][k]] < 0.5 || RF[st][k] == kAbsent) continue;
        std::optional<bool> last;
        for (const auto& [stage, keeps] : ph_events[k])
          if (stage == st) last = keeps;
        if (last && !*last) {
          x[RK[st][k]] = 0;
          x[RF[st][k]] = 1;
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
        if (PH[st][k] == kAbsent) continue;
        bool kept = false;
        for (const auto& [stage, keeps] : ph_events[k])
          if (stage < st) kept = keeps;
        x[PH[st][k]] = kept ? 1 : 0;
      }
    auto val = [&](milp::Var v) { return v == kAbsent ? 0.0 : x[v]; };
    auto run_of = [&](int st, int k) { return val(RK[st][k]) + val(RF[st][k]); };
    // FREE: forced by its rows (k ran, the value is not carried, no later user runs in the stage).
    for (int st = 0; st < T; ++st)
      for (int k = 0; k < st; ++k)
        for (const Free& fr : frees[st][k]) {
          bool f = run_of(st, k) > 0.5 && val(s(st + 1, fr.data)) < 0.5;
          for (int j : tr.users[fr.data])
            if (j > k && j <= st && run_of(st, j) > 0.5) f = false;
          x[fr.var] = f ? 1 : 0;
        }
    // U: the memory chain of each stage.
    for (int st = 0; st < T; ++st) {
      double u = 0;
      int prev = -1;
      for (int k = 0; k <= st; ++k) {
        if (U[st][k] == kAbsent) continue;
        if (prev < 0) {
          u = static_cast<double>(tr.grads_at_start[st]);
          for (const auto& [d, var] : S[st]) u += x[var] * static_cast<double>(tr.mem[d]);
          for (int f = 0; f < st; ++f) u += val(ph(st, f)) * static_cast<double>(tr.phantoms[f]);
        } else {
          for (const Free& fr : frees[st][prev]) u -= x[fr.var] * static_cast<double>(tr.mem[fr.data]);
        }
        int64_t out_bytes = 0;
        for (NodeId d : tr.data_out[k]) out_bytes += tr.mem[d];
        u += run_of(st, k) * static_cast<double>(out_bytes) + val(RK[st][k]) * static_cast<double>(tr.phantoms[k]);
        if (k == st) u += static_cast<double>(tr.grads_new[st]);
        x[U[st][k]] = u;
        prev = k;
      }
    }
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
      x[RK[t][t] != kAbsent ? RK[t][t] : RF[t][t]] = 1;
      for (const auto& [d, var] : S[t]) {
        bool later = false;
        for (int u : tr.users[d]) later |= u >= t;
        x[var] = later ? 1 : 0;
      }
      for (int k = 0; k < t; ++k)
        if (ph(t, k) != kAbsent) x[ph(t, k)] = 1;
    }
    // Memory: nothing is recomputed and nothing freed before the stage's own node, so every U of the
    // stage holds what is resident on entry, and the last adds the node's outputs.
    for (int t = 0; t < tr.T; ++t) {
      double base = static_cast<double>(tr.grads_at_start[t]);
      for (const auto& [d, var] : S[t]) base += x[var] * static_cast<double>(tr.mem[d]);
      for (int k = 0; k < t; ++k)
        if (ph(t, k) != kAbsent) base += static_cast<double>(tr.phantoms[k]);
      for (int k = 0; k < t; ++k)
        if (U[t][k] != kAbsent) x[U[t][k]] = base;
      double out = static_cast<double>(tr.grads_new[t]);
      for (NodeId d : tr.data_out[t]) out += static_cast<double>(tr.mem[d]);
      if (RK[t][t] != kAbsent) out += static_cast<double>(tr.phantoms[t]);
      x[U[t][t]] = base + out;
    }
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
  auto m = std::make_shared<TrainingModel>(*tr, (budget - tr->sources) / tr->unit, g.data.size());
  if (save_budget) m->limit_at_loss((*save_budget - tr->sources) / tr->unit);
  StageModel out;
  out.start = m->keep_all_start();
  out.assignment_of = [m, n = m->model.num_vars()](const std::vector<Op>& ops) { return m->assignment_of(ops, n); };
  out.summary = fmt::format("training graph, {} stages, memory unit {} bytes", tr->T, tr->unit);
  out.decode = [tr, m](const std::vector<double>& x) {
    std::vector<Op> ops;
    for (int t = 0; t < tr->T; ++t)
      for (int k = 0; k <= t; ++k) {
        bool keep = m->RK[t][k] != kAbsent && x[m->RK[t][k]] > 0.5;
        bool ff = m->RF[t][k] != kAbsent && x[m->RF[t][k]] > 0.5;
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
