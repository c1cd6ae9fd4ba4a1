#include "hiremate/hierarchy/hilp_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>

#include "hiremate/common/deadline.h"
#include "hiremate/common/error.h"
#include "hiremate/milp/neighbourhood_search.h"
#include "hiremate/milp/solve.h"
#include "hiremate/schedule/prune.h"
#include "hiremate/stage_milp/stage_vars.h"

namespace hiremate::hierarchy {

namespace {

using stage_milp::kAbsent;
constexpr int64_t kMaxUnits = int64_t{1} << 22;

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

// The H-graph's numbers in memory units (HANs only), and the derived per-HAN and per-stage facts.
struct Levels : stage_milp::StageTables {
  const HGraph& h;
  int64_t unit = 1, sources = 0;
  std::vector<int> first, last;                // grad data id -> first producer / last touching stage

  Levels(const HGraph& hg, int64_t budget) : h(hg) {
    T = static_cast<int>(hg.nodes.size());
    const Graph& g = *h.host;
    sources = g.source_bytes();
    std::vector<int64_t> sizes;
    std::vector<char> han(g.data.size(), 0);
    for (const HNode& n : h.nodes) {
      for (const auto* list : {&n.data_in, &n.data_out, &n.grad_in, &n.grad_out})
        for (NodeId d : *list) han[d] = 1;
      for (const HChoice& c : n.choices) {
        sizes.push_back(c.kept);
        sizes.push_back(c.overhead);
      }
    }
    for (size_t d = 0; d < g.data.size(); ++d)
      if (han[d]) sizes.push_back(g.data[d].bytes);
    int64_t gcd = 0;
    for (int64_t s : sizes) gcd = std::gcd(gcd, std::max<int64_t>(s, 0));
    unit = gcd > 0 ? gcd : 1;
    if ((budget - sources) / unit > kMaxUnits) unit = std::max(unit, ceil_div(budget - sources, kMaxUnits));
    mem.assign(g.data.size(), 0);
    for (size_t d = 0; d < g.data.size(); ++d)
      if (han[d]) mem[d] = ceil_div(g.data[d].bytes, unit);
    kind.resize(T);
    data_in.resize(T);
    data_out.resize(T);
    kept.resize(T);
    overhead.resize(T);
    out_units.assign(T, 0);
    producer.assign(g.data.size(), -1);
    users.assign(g.data.size(), {});
    for (int t = 0; t < T; ++t) {
      const HNode& n = h.nodes[t];
      kind[t] = n.kind;
      data_in[t] = n.data_in;
      data_out[t] = n.data_out;
      for (const HChoice& c : n.choices) {
        kept[t].push_back(ceil_div(c.kept, unit));
        overhead[t].push_back(ceil_div(c.overhead, unit));
      }
      for (NodeId d : n.data_out) {
        out_units[t] += mem[d];
        if (n.kind == ComputeKind::Forward) producer[d] = t;
      }
      for (NodeId d : n.data_in) users[d].push_back(t);
    }
    for (int t = 0; t < T; ++t)
      for (NodeId d : h.nodes[t].data_in)
        if (producer[d] < 0 || producer[d] >= t)
          throw BadInput(fmt::format("H-ILP: '{}' reads '{}', which no earlier forward part writes", h.nodes[t].name,
                                     g.data[d].name));
    std::vector<int> keeps_for(T, -1);
    for (int t = 0; t < T; ++t)
      if (h.nodes[t].pair >= 0 && has_keeping(t)) keeps_for[t] = h.nodes[t].pair;
    find_last_need(keeps_for);
    grads_at_start.assign(T + 1, 0);
    grads_new.assign(T, 0);
    first.assign(g.data.size(), T);
    last.assign(g.data.size(), -1);
    for (int t = 0; t < T; ++t) {
      for (NodeId d : h.nodes[t].grad_out) {
        first[d] = std::min(first[d], t);
        last[d] = std::max(last[d], t);
      }
      for (NodeId d : h.nodes[t].grad_in) last[d] = std::max(last[d], t);
    }
    for (size_t d = 0; d < g.data.size(); ++d)
      if (first[d] < T) add_grad(first[d], last[d], mem[d]);
    for (int t = 0; t < T; ++t)
      for (size_t c = 0; c < h.nodes[t].choices.size(); ++c) corrected_overhead(t, c);
  }

  // §5.5 with the tags this model decides alone: at each op of a sub-cluster choice, the interface
  // bytes the stage counts but that are certainly absent there (a forward's outputs not yet created;
  // a backward's input grads it creates first and output grads it reads last) are subtracted, and
  // the choice's overhead becomes the worst op's, not the worst internal peak's.
  void corrected_overhead(int t, size_t c) {
    const HNode& n = h.nodes[t];
    const HChoice& ch = n.choices[c];
    if (ch.records.empty()) return;
    const Graph& g = *h.host;
    int64_t kept_before = ch.kept;  // what the stage already counts of the option's internal bytes
    if (n.kind == ComputeKind::Backward && ch.tie >= 0) kept_before = h.nodes[n.pair].choices[ch.tie].kept;
    int64_t worst = 0;
    for (const Correction& r : ch.records) {
      int64_t absent = 0;
      for (NodeId d : r.not_yet_created) {
        bool counted = n.kind == ComputeKind::Forward ? producer[d] == t : first[d] == t;
        if (counted && mem[d] > 0) absent += g.data[d].bytes;
      }
      if (n.kind == ComputeKind::Backward)
        for (NodeId d : r.freed)
          if (g.data[d].kind == DataKind::Grad && last[d] == t && first[d] < t) absent += g.data[d].bytes;
      worst = std::max(worst, r.save + r.overhead - absent);
    }
    overhead[t][c] = std::min(overhead[t][c], ceil_div(worst - kept_before, unit));
  }

  bool has_keeping(int k) const {
    for (const HChoice& c : h.nodes[k].choices)
      if (c.keeps) return true;
    return false;
  }
};

// The H-ILP's own variables and rows: which choices run (R) and keep (PH), and the ties between a
// backward's choices and its forward's; the rest is the shared stage MILP (stage_milp/stage_vars.h).
struct HilpModel : stage_milp::StageVars {
  const Levels& lv;
  const HGraph& h;

  HilpModel(const Levels& l, int64_t capacity) : StageVars(l, capacity), lv(l), h(l.h) { build(); }

  void add_run_vars(int t) override {
    for (int k = 0; k <= t; ++k) {
      const HNode& n = h.nodes[k];
      bool first = k == t;
      if (!first && (n.kind != ComputeKind::Forward || lv.last_need[k] < t)) continue;
      R[t][k].assign(n.choices.size(), kAbsent);
      for (size_t c = 0; c < n.choices.size(); ++c) {
        if (n.choices[c].keeps && (n.pair < 0 || n.pair < t)) continue;  // kept bytes nobody consumes
        R[t][k][c] = model.add_var(milp::VarType::Binary, 0, 1, n.choices[c].time);
      }
      if (first) model.add_row(runs(t, k), 1, 1);
    }
    for (int k = 0; k < t; ++k) {
      const HNode& n = h.nodes[k];
      if (n.kind != ComputeKind::Forward || n.pair < t || !lv.has_keeping(k)) continue;
      PH[t][k].assign(n.choices.size(), kAbsent);
      for (size_t c = 0; c < n.choices.size(); ++c)
        if (n.choices[c].keeps) PH[t][k][c] = model.add_var(milp::VarType::Binary, 0, 1, 0);
      auto one = resident(t, k);
      if (one.size() > 1) model.add_row(one, -milp::kInf, 1);
    }
  }

  void add_node_rows(int t, int k, const std::vector<milp::Term>& run) override {
    using milp::Term;
    const double inf = milp::kInf;
    const HNode& n = h.nodes[k];
    if (n.backward_needs_choice_deps) {
      for (size_t c = 0; c < n.choices.size(); ++c)
        if (R[t][k][c] != kAbsent)
          for (NodeId d : n.choices[c].deps) add_need_row(t, {{R[t][k][c], 1}}, d);
    } else {
      for (NodeId d : n.data_in) add_need_row(t, run, d);
    }
    if (n.kind == ComputeKind::Backward) {  // a backward consumes what its forward's choice kept
      int f = n.pair;
      for (size_t c = 0; c < n.choices.size(); ++c) {
        int tie = n.choices[c].tie;
        if (tie < 0 || R[t][k][c] == kAbsent) continue;
        std::vector<Term> row{{R[t][k][c], 1}};
        if (R[t][f][tie] != kAbsent) row.push_back({R[t][f][tie], -1});
        if (ph(t, f, tie) != kAbsent) row.push_back({ph(t, f, tie), -1});
        model.add_row(row, -inf, 0);
        // Only the consumed choice may keep in the backward's stage.
      }
      for (size_t fc = 0; fc < h.nodes[f].choices.size(); ++fc) {
        if (!h.nodes[f].choices[fc].keeps || R[t][f].empty() || R[t][f][fc] == kAbsent) continue;
        std::vector<Term> row{{R[t][f][fc], 1}};
        for (size_t c = 0; c < n.choices.size(); ++c)
          if (n.choices[c].tie == static_cast<int>(fc)) row.push_back({R[t][k][c], -1});
        model.add_row(row, -inf, 0);
      }
    }
    add_no_recompute_rows(t, k, run);
    if (n.kind == ComputeKind::Forward && n.pair >= 0) {
      auto kept_now = resident(t, k);
      for (size_t c = 0; c < n.choices.size(); ++c) {
        milp::Var r = R[t][k][c];
        if (r == kAbsent || !n.choices[c].keeps) continue;
        if (!kept_now.empty()) {  // no second copy of what is kept
          std::vector<Term> row{{r, 1}};
          append(row, kept_now);
          model.add_row(row, -inf, 1);
        }
        if (t < n.pair) {  // kept bytes are carried on to the backward
          std::vector<Term> row{{r, 1}};
          if (ph(t + 1, k, static_cast<int>(c)) != kAbsent) row.push_back({ph(t + 1, k, static_cast<int>(c)), -1});
          model.add_row(row, -inf, 0);
        }
      }
    }
  }

  void limit_at_loss(int64_t save_cap) {
    int l = h.loss;
    model.set_bounds(U[l][l], 0, static_cast<double>(std::clamp<int64_t>(save_cap, 0, cap)));
  }

  // Every forward once, its backward consuming what it kept, data kept while a later stage reads
  // them: a persistent schedule, checked against every row before CBC sees it. `keep[t]`: the keeping
  // choice of forward t (-1: its fastest, the backward's time included); the other HCNs run their
  // fastest choice that fits it. Empty when some HCN has no such choice.
  std::vector<double> persistent_start(const std::vector<int>& keep) const {
    std::vector<double> x(model.num_vars(), 0.0);
    std::vector<int> choice(lv.T, 0);
    for (int t = 0; t < lv.T; ++t) {
      const HNode& n = h.nodes[t];
      int best = keep[t] >= 0 && R[t][t][keep[t]] != kAbsent ? keep[t] : -1;
      for (size_t c = 0; c < n.choices.size() && keep[t] < 0; ++c) {
        if (R[t][t][c] == kAbsent) continue;
        if (n.kind == ComputeKind::Backward) {
          int tie = n.choices[c].tie;
          if (tie >= 0 && tie != choice[n.pair]) continue;
          if (tie < 0 && n.pair >= 0 && h.nodes[n.pair].choices[choice[n.pair]].keeps) continue;
        }
        auto score = [&](size_t i) {
          return std::make_pair(!n.choices[i].keeps && n.pair >= 0 && lv.has_keeping(t), keeping_time(t, i));
        };
        if (best < 0 || score(c) < score(static_cast<size_t>(best))) best = static_cast<int>(c);
      }
      if (best < 0) return {};
      choice[t] = best;
      x[R[t][t][best]] = 1;
      keep_all_residency(x, t);
      for (int k = 0; k < t; ++k)
        if (!PH[t][k].empty() && PH[t][k][choice[k]] != kAbsent && h.nodes[k].choices[choice[k]].keeps)
          x[PH[t][k][choice[k]]] = 1;
    }
    memory_values(x);  // nothing is recomputed or freed: each U holds what is resident, plus its node's
    return x;
  }

  // A forward choice's time with the fastest backward choice that consumes what it keeps.
  double keeping_time(int t, size_t c) const {
    const HNode& n = h.nodes[t];
    double time = n.choices[c].time;
    if (n.kind != ComputeKind::Forward || !n.choices[c].keeps || n.pair < 0) return time;
    double back = milp::kInf;
    for (const HChoice& b : h.nodes[n.pair].choices)
      if (b.tie == static_cast<int>(c)) back = std::min(back, b.time);
    return back < milp::kInf ? time + back : time;
  }

  bool fits(const std::vector<double>& x) const { return !x.empty() && model.max_violation(x) <= 1e-6; }

  // The autograd-like start (every forward's fastest keeping choice) where it fits; else a greedy
  // walk down the kept bytes: the forward whose next leaner keeping choice costs the least time per
  // byte it frees switches to it, until the persistent schedule fits every row (the budget, the save
  // cap) or no forward has a leaner choice. Without it CBC had no incumbent on a tight top H-ILP
  // until its own heuristics found one, and a cut search kept whatever that was.
  std::vector<double> fitting_start() const {
    std::vector<int> keep(lv.T, -1);
    std::vector<double> x = persistent_start(keep);
    if (x.empty() || fits(x)) return x;
    for (int t = 0; t < lv.T; ++t) {  // the choices the fastest start took, made explicit
      const HNode& n = h.nodes[t];
      if (n.kind != ComputeKind::Forward || n.pair < 0 || !lv.has_keeping(t)) continue;
      for (size_t c = 0; c < n.choices.size(); ++c)
        if (R[t][t][c] != kAbsent && x[R[t][t][c]] > 0.5) keep[t] = static_cast<int>(c);
    }
    for (;;) {
      int best_t = -1, best_c = -1;
      double best_rate = milp::kInf;
      for (int t = 0; t < lv.T; ++t) {
        if (keep[t] < 0) continue;
        const HNode& n = h.nodes[t];
        const int64_t kept_now = lv.kept[t][keep[t]];
        for (size_t c = 0; c < n.choices.size(); ++c) {
          if (!n.choices[c].keeps || R[t][t][c] == kAbsent || lv.kept[t][c] >= kept_now) continue;
          const double rate = (keeping_time(t, c) - keeping_time(t, keep[t])) / static_cast<double>(kept_now - lv.kept[t][c]);
          if (rate < best_rate) {
            best_rate = rate;
            best_t = t;
            best_c = static_cast<int>(c);
          }
        }
      }
      if (best_t < 0) return {};
      keep[best_t] = best_c;
      x = persistent_start(keep);
      if (x.empty()) return {};
      if (fits(x)) return x;
    }
  }

  // A schedule with recomputation, where no persistent one fits: each forward with a keeping choice
  // either keeps (mode[k].recompute false: that choice in its own stage, as persistent_start), or runs
  // its fast forward and runs keeping choice mode[k].choice again in its backward's stage, right
  // before the backward (HiRemate's lowest-memory way through a sequence of parts: only the parts'
  // interfaces stay resident). Data are resident while their next use is a read. Empty where a choice
  // is missing; max_violation says whether it fits.
  struct Mode {
    bool recompute = false;
    int choice = -1;  // the keeping choice (-1: the HCN has none; it runs its fastest)
    // Also runs its fast forward again in the first backward stage that reads its outputs, so that
    // they are not held from the forward to there (a large output cheap to make again: an
    // attention's softmax on a cut between parts).
    bool refresh = false;
    // Its outputs are never held from one stage to the next: every later stage that reads them runs
    // its fast forward again first (and so on for its own dropped inputs, in the same stage). What
    // TW-Remat does between parts, where the interfaces of the parts alone do not fit (long edges:
    // a random training graph, a U-Net's skips near its floor; bench/results/hilp_drops.md).
    // With refresh: dropped before the loss only; the first backward stage that reads them makes
    // them again and they are held from there to their last read (a chain of dropped parts is made
    // again once in the backward, not once per backward stage that reads it).
    bool drop = false;
    // With drop, how long they are held from the forward on: 0 not at all; 1 to the first later
    // stage that reads them (the next part of a chain reads them at once: made again there, they
    // would need their own inputs made again too); 2 to their last read before the loss (a random
    // graph's long edges give an output many readers in the forward). Later readers make them again.
    int hold = 0;
    bool operator==(const Mode& o) const {
      return recompute == o.recompute && choice == o.choice && refresh == o.refresh && drop == o.drop &&
             hold == o.hold;
    }
  };
  int ff_choice(int k) const {
    int best = -1;
    for (size_t c = 0; c < h.nodes[k].choices.size(); ++c)
      if (!h.nodes[k].choices[c].keeps && R[k][k][c] != kAbsent &&
          (best < 0 || h.nodes[k].choices[c].time < h.nodes[k].choices[best].time))
        best = static_cast<int>(c);
    return best;
  }
  std::vector<double> recompute_schedule(const std::vector<Mode>& mode) const {
    std::vector<double> x(model.num_vars(), 0.0);
    // The runs of each stage in op order (recomputations by HCN index, then the stage's own).
    std::vector<std::vector<std::pair<int, int>>> ops(lv.T);
    for (int t = 0; t < lv.T; ++t) {
      const HNode& n = h.nodes[t];
      int c = -1;
      if (n.kind == ComputeKind::Forward) {
        if (mode[t].choice >= 0) {
          c = mode[t].recompute ? ff_choice(t) : mode[t].choice;
        } else {  // no keeping choice: its fastest
          for (size_t i = 0; i < n.choices.size(); ++i)
            if (R[t][t][i] != kAbsent && (c < 0 || n.choices[i].time < n.choices[c].time)) c = static_cast<int>(i);
        }
      } else if (n.kind == ComputeKind::Backward && n.pair >= 0 && mode[n.pair].choice >= 0) {
        for (size_t i = 0; i < n.choices.size() && c < 0; ++i)
          if (n.choices[i].tie == mode[n.pair].choice && R[t][t][i] != kAbsent) c = static_cast<int>(i);
      } else {
        for (size_t i = 0; i < n.choices.size(); ++i)
          if (R[t][t][i] != kAbsent && n.choices[i].tie < 0 && (c < 0 || n.choices[i].time < n.choices[c].time))
            c = static_cast<int>(i);
      }
      if (c < 0 || R[t][t][c] == kAbsent) return {};
      if (n.kind == ComputeKind::Backward && n.pair >= 0 && mode[n.pair].recompute) {
        const int f = n.pair;
        if (R[t][f].empty() || R[t][f][mode[f].choice] == kAbsent) return {};
        ops[t].push_back({f, mode[f].choice});
      }
      ops[t].push_back({t, c});
      if (n.kind == ComputeKind::Forward && mode[t].choice >= 0 && !mode[t].recompute)
        for (int u = t + 1; u <= n.pair; ++u) {
          const milp::Var v = ph(u, t, mode[t].choice);
          if (v == kAbsent) return {};
          x[v] = 1;
        }
    }
    // Refreshes: the fast forward of k again, before the first op after the loss that reads its outputs.
    for (int k = 0; k < lv.T; ++k) {
      if (!mode[k].refresh || mode[k].drop) continue;
      const int ff = ff_choice(k);
      if (ff < 0) return {};
      const auto& outs = h.nodes[k].data_out;
      auto reads = [&](int kk, int cc) {
        const HNode& r = h.nodes[kk];
        const auto& in = r.backward_needs_choice_deps ? r.choices[cc].deps : r.data_in;
        return std::any_of(in.begin(), in.end(), [&](NodeId d) { return std::find(outs.begin(), outs.end(), d) != outs.end(); });
      };
      int at = -1;
      for (int t = h.loss + 1; t < lv.T && at < 0; ++t)
        for (const auto& [kk, cc] : ops[t])
          if (kk != k && reads(kk, cc)) {
            at = t;
            break;
          }
      if (at < 0) continue;  // nothing after the loss reads them
      if (R[at][k].empty() || R[at][k][ff] == kAbsent) return {};
      auto& stage = ops[at];
      if (std::any_of(stage.begin(), stage.end(), [&](const std::pair<int, int>& o) { return o.first == k; })) return {};
      stage.insert(std::upper_bound(stage.begin(), stage.end(), std::make_pair(k, ff),
                                    [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; }),
                   {k, ff});
    }
    // Drops: in each stage, every read of a dropped forward's outputs is preceded by its fast forward
    // (ops in index order, so the producers' own reads are seen after them, walking down); after
    // the loss, a refreshed drop is made once, in the first stage that reads it, and held.
    if (std::any_of(mode.begin(), mode.end(), [](const Mode& m) { return m.drop; })) {
      std::vector<char> held(lv.T, 0);
      for (int k = 0; k < lv.T; ++k) held[k] = mode[k].drop && mode[k].hold > 0;
      std::vector<int> read_in;  // the dropped forwards read in this stage
      for (int t = 0; t < lv.T; ++t) {
        read_in.clear();
        auto& stage = ops[t];
        for (size_t i = stage.size(); i-- > 0;) {
          const auto [k, c] = stage[i];
          const HNode& r = h.nodes[k];
          size_t added = 0;
          for (NodeId d : r.backward_needs_choice_deps ? r.choices[c].deps : r.data_in) {
            const int p = lv.producer[d];
            if (p < 0 || !mode[p].drop) continue;
            if (p < t) read_in.push_back(p);
            if (held[p]) continue;
            auto at = std::lower_bound(stage.begin(), stage.end(), p,
                                       [](const std::pair<int, int>& o, int key) { return o.first < key; });
            if (at != stage.end() && at->first == p) continue;
            const int ff = ff_choice(p);
            if (ff < 0 || R[t][p].empty() || R[t][p][ff] == kAbsent) return {};
            stage.insert(at, {p, ff});
            ++added;
          }
          i += added;  // op k moved up by the ops inserted below it, which are read next
        }
        for (int p : read_in)  // held to its first reader, or through the forward: no further
          if (!(mode[p].refresh && t > h.loss) && !(mode[p].hold == 2 && t <= h.loss)) held[p] = 0;
        if (t > h.loss)
          for (const auto& [k, c] : stage)
            if (mode[k].drop && mode[k].refresh) held[k] = 1;
      }
    }
    // Residency: walking the stages backwards, a datum is resident on entry to t when its next event
    // from t on is a read.
    std::vector<char> next_is_read(lv.mem.size(), 0);
    for (int t = lv.T - 1; t >= 0; --t) {
      for (auto it = ops[t].rbegin(); it != ops[t].rend(); ++it) {
        const auto [k, c] = *it;
        x[R[t][k][c]] = 1;
        for (NodeId d : h.nodes[k].data_out)
          if (lv.producer[d] == k) next_is_read[d] = 0;
        const HNode& n = h.nodes[k];
        for (NodeId d : n.backward_needs_choice_deps ? n.choices[c].deps : n.data_in) next_is_read[d] = 1;
      }
      for (const auto& [d, var] : S[t]) x[var] = next_is_read[d];
    }
    free_values(x);
    memory_values(x);
    return x;
  }
  // Time of forward k and its backward under m.
  double mode_time(int k, const Mode& m) const {
    double time = keeping_time(k, static_cast<size_t>(m.choice));
    if (m.recompute) time += h.nodes[k].choices[ff_choice(k)].time;
    if (m.refresh) time += h.nodes[k].choices[ff_choice(k)].time;
    return time;
  }
  // Every forward recomputed in its backward's stage with its leanest keeping choice (least kept and
  // overhead, its backward's included); then, in one pass over the changes that save time (most
  // first), each that still fits is taken: another keeping choice, recomputed or kept; the pass ends
  // after `seconds` (each change is checked against every row). Empty where even the first does not
  // fit; `mode` gets the modes of the schedule returned.
  std::vector<double> fitting_recompute_start(double seconds) const {
    std::vector<Mode> mode;
    return fitting_recompute_start(seconds, mode);
  }
  std::vector<double> fitting_recompute_start(double seconds, std::vector<Mode>& mode, bool drops = true) const {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    mode.assign(lv.T, Mode{});
    auto total = [&](int k, const Mode& m) { return mode_time(k, m); };
    for (int k = 0; k < lv.T; ++k) {
      const HNode& n = h.nodes[k];
      if (n.kind != ComputeKind::Forward || n.pair < 0 || !lv.has_keeping(k)) continue;
      const bool ff = ff_choice(k) >= 0;  // else it keeps, with its fastest keeping choice
      for (size_t c = 0; c < n.choices.size(); ++c) {
        if (!n.choices[c].keeps || R[k][k][c] == kAbsent) continue;
        const auto rank = [&](size_t i) {
          int64_t back = 0;  // the overhead of the backward that consumes it: the option's peak may be there
          for (size_t b = 0; b < h.nodes[n.pair].choices.size(); ++b)
            if (h.nodes[n.pair].choices[b].tie == static_cast<int>(i)) back = std::max(back, lv.overhead[n.pair][b]);
          return ff ? std::make_pair(static_cast<double>(lv.kept[k][i] + std::max(lv.overhead[k][i], back)),
                                     n.choices[i].time)
                    : std::make_pair(keeping_time(k, i), 0.0);
        };
        if (mode[k].choice < 0 || rank(c) < rank(static_cast<size_t>(mode[k].choice))) mode[k] = {ff, static_cast<int>(c)};
      }
    }
    std::vector<double> x = recompute_schedule(mode);
    if (!fits(x)) {
      if (!drops) return {};
      // Holding drops through the forward helps where outputs have many readers (random graphs:
      // 248 -> 184 % on a 801-node one at 45 %) and costs the memory later drops need elsewhere
      // (unet-100 at 25 %: 114.3 -> 120.2 %): both passes, the faster plan.
      std::vector<Mode> longer = mode;
      std::vector<double> y;
      if (!fitting_drops(mode, x, until, 1)) return {};
      if (fitting_drops(longer, y, until, 2) && model.objective_value(y) < model.objective_value(x)) {
        mode = std::move(longer);
        x = std::move(y);
      }
    }
    struct Change {
      double gain;
      int k;
      Mode m;
    };
    std::vector<Change> changes;
    for (int k = 0; k < lv.T; ++k) {
      if (mode[k].choice < 0 || !mode[k].recompute) continue;
      for (size_t c = 0; c < h.nodes[k].choices.size(); ++c) {
        if (!h.nodes[k].choices[c].keeps || R[k][k][c] == kAbsent) continue;
        for (bool recompute : {true, false}) {
          const Mode m{recompute, static_cast<int>(c), mode[k].drop && mode[k].refresh, mode[k].drop, mode[k].hold};
          const double gain = total(k, mode[k]) - total(k, m);
          if (gain > 0) changes.push_back({gain, k, m});
        }
      }
    }
    std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.gain > b.gain; });
    for (const Change& ch : changes) {
      if (std::chrono::steady_clock::now() > until) break;
      const Mode was = mode[ch.k];
      if (total(ch.k, ch.m) >= total(ch.k, was)) continue;
      mode[ch.k] = ch.m;
      std::vector<double> y = recompute_schedule(mode);
      // Its gain is the mode's own; with drops the fast forwards it brings along differ too.
      if (fits(y) && model.objective_value(y) < model.objective_value(x)) x = std::move(y);
      else mode[ch.k] = was;
    }
    return x;
  }

  // Where the leanest modes do not fit: every forward with a fast forward drops its outputs, held
  // only to their first reader where that fits, else never held between stages (the least any part
  // holds); then, the costliest fast forward first, each drop is undone where the schedule still
  // fits, or else changed to the fastest variant that fits (refreshed: made once in the backward;
  // held longer, up to `max_hold`: to the first reader, through the forward). False where even
  // dropping every one does not fit; else `mode` and `x` are the fitting ones.
  template <class TimePoint>
  bool fitting_drops(std::vector<Mode>& mode, std::vector<double>& x, TimePoint until, int max_hold) const {
    std::vector<int> dropped;
    for (int k = 0; k < lv.T; ++k)
      if (h.nodes[k].kind == ComputeKind::Forward && ff_choice(k) >= 0) dropped.push_back(k);
    std::vector<double> y;
    bool fitted = false;
    for (int hold : {1, 0}) {
      for (int k : dropped) {
        mode[k].drop = true;
        mode[k].refresh = false;
        mode[k].hold = hold;
      }
      y = recompute_schedule(mode);
      if ((fitted = fits(y))) break;
    }
    if (!fitted) {
      for (int k : dropped) {
        mode[k].drop = false;
        mode[k].hold = 0;
      }
      return false;
    }
    x = std::move(y);
    // What each drop costs in that schedule: its fast forward's time, times the stages that run it
    // again (dropped inputs are made again in every stage that makes a dropped consumer again).
    std::vector<double> cost(lv.T, 0);
    for (int k : dropped) {
      const int ff = ff_choice(k);
      for (int t = k + 1; t < lv.T; ++t)
        if (!R[t][k].empty() && R[t][k][ff] != kAbsent && x[R[t][k][ff]] > 0.5) cost[k] += h.nodes[k].choices[ff].time;
    }
    std::stable_sort(dropped.begin(), dropped.end(), [&](int a, int b) { return cost[a] > cost[b]; });
    for (int k : dropped) {
      if (std::chrono::steady_clock::now() > until) break;
      const Mode was = mode[k];
      mode[k].drop = false;
      mode[k].hold = 0;
      y = recompute_schedule(mode);
      if (fits(y)) {
        x = std::move(y);
        continue;
      }
      Mode best = was;
      for (int flags = 0; flags < 6; ++flags) {  // refreshed or not, held longer or not
        Mode m = was;
        m.refresh = (flags & 1) != 0;
        m.hold = flags / 2;
        if (m == was || m.hold < was.hold || m.hold > max_hold) continue;
        mode[k] = m;
        y = recompute_schedule(mode);
        if (fits(y) && model.objective_value(y) < model.objective_value(x)) {
          x = std::move(y);
          best = m;
        }
      }
      mode[k] = best;
    }
    return true;
  }

  // The modes of a persistent solution x (persistent_start's): each forward with a keeping choice
  // keeps the one x runs.
  std::vector<Mode> modes_of(const std::vector<double>& x) const {
    std::vector<Mode> mode(lv.T);
    for (int t = 0; t < lv.T; ++t) {
      const HNode& n = h.nodes[t];
      if (n.kind != ComputeKind::Forward || n.pair < 0 || !lv.has_keeping(t)) continue;
      for (size_t c = 0; c < n.choices.size(); ++c)
        if (n.choices[c].keeps && R[t][t][c] != kAbsent && x[R[t][t][c]] > 0.5) mode[t] = {false, static_cast<int>(c)};
    }
    return mode;
  }

  // Local search over the modes of recompute_schedule from a fitting `mode` (x its schedule), first
  // improvement until none is left or `until`: a change of one forward's mode that saves time, and
  // where it does not fit, an ejection chain: other forwards made leaner, the least time per byte
  // they free first, while what they cost stays below what the first saves, until it fits (the
  // exchanges a greedy walk by time per byte cannot undo: a part's outputs refreshed in the backward
  // so that another part keeps more). Each try is checked against every row of the model. Returns
  // the schedule of the modes it ends with.
  std::vector<double> exchange_search(std::vector<Mode>& mode, std::vector<double> x,
                                      std::chrono::steady_clock::time_point until, bool drops = true) const {
    struct Move {
      int k;
      Mode m;
      double delta;  // time under m less time under the current mode
    };
    std::vector<int64_t> out_bytes(lv.T, 0);  // units of the data each forward makes
    for (int k = 0; k < lv.T; ++k)
      for (NodeId d : h.nodes[k].data_out)
        if (lv.producer[d] == k) out_bytes[k] += lv.mem[d];
    // What a mode holds from its forward on: its kept bytes unless it recomputes, its outputs unless
    // it refreshes or drops them (none kept without a keeping choice).
    auto footprint = [&](int k, const Mode& m) {
      return (m.recompute || m.choice < 0 ? int64_t{0} : lv.kept[k][m.choice]) +
             (m.refresh || m.drop ? int64_t{0} : out_bytes[k]);
    };
    // The later stages that read forward k's outputs in x: a drop runs its fast forward again in
    // each (and an undone drop saves that many), not once.
    auto later_readers = [&](std::vector<int>& after_loss) {
      std::vector<int> readers(lv.T, 0);
      after_loss.assign(lv.T, 0);
      std::vector<int> last_stage(lv.T, -1);
      for (int t = 0; t < lv.T; ++t)
        for (int k = 0; k <= t; ++k)
          for (size_t c = 0; c < R[t][k].size(); ++c) {
            if (R[t][k][c] == kAbsent || x[R[t][k][c]] < 0.5) continue;
            const HNode& r = h.nodes[k];
            for (NodeId d : r.backward_needs_choice_deps ? r.choices[c].deps : r.data_in) {
              const int p = lv.producer[d];
              if (p < 0 || p >= t || last_stage[p] == t) continue;
              last_stage[p] = t;
              ++readers[p];
              if (t > h.loss) ++after_loss[p];
            }
          }
      return readers;
    };
    auto moves = [&] {
      std::vector<Move> out;
      std::vector<int> after_loss;
      const std::vector<int> readers = later_readers(after_loss);
      for (int k = 0; k < lv.T; ++k) {
        const int ffc = ff_choice(k);
        const bool ff = ffc >= 0;
        if (ff && drops && h.nodes[k].kind == ComputeKind::Forward) {
          // Its outputs kept between stages, dropped (its fast forward again in every later stage
          // that reads them), or dropped before the loss and refreshed: what each runs again.
          const double once = h.nodes[k].choices[ffc].time;
          const int before_loss = readers[k] - after_loss[k];
          auto reruns = [&](const Mode& m) {
            if (!m.drop) return m.refresh ? once : 0.0;
            const int runs = m.refresh ? before_loss + (after_loss[k] > 0 ? 1 : 0) : std::max(1, readers[k]);
            const int held = m.hold == 2 ? before_loss : m.hold;  // the reads it serves without a run
            return once * std::max(0, runs - held);
          };
          // Kept, or dropped: refreshed or not, held for a while or not (only from a drop: held, it
          // is not as lean as its footprint says, and ejection chains took it for a leaner move than
          // it is: unet-100 at 50 %, 10 s, 19.09 % with those moves, 14.62 % without).
          for (int flags = 0; flags < (mode[k].drop ? 7 : 3); ++flags) {
            Mode m = mode[k];
            m.drop = flags > 0;
            m.refresh = flags == 0 ? m.refresh && !mode[k].drop : (flags & 1) == 0;
            m.hold = flags > 0 ? (flags - 1) / 2 : 0;
            if (m == mode[k]) continue;
            out.push_back({k, m, reruns(m) - reruns(mode[k])});
          }
        }
        if (mode[k].choice < 0) continue;
        for (size_t c = 0; c < h.nodes[k].choices.size(); ++c) {
          if (!h.nodes[k].choices[c].keeps || R[k][k][c] == kAbsent) continue;
          for (int flags = 0; flags < 4; ++flags) {
            const Mode m{(flags & 1) != 0, static_cast<int>(c), (flags & 2) != 0, mode[k].drop, mode[k].hold};
            if ((m.recompute || m.refresh) && !ff) continue;
            if (m == mode[k]) continue;
            out.push_back({k, m, mode_time(k, m) - mode_time(k, mode[k])});
          }
        }
      }
      return out;
    };
    auto expired = [&] { return std::chrono::steady_clock::now() > until; };
    for (bool improved = true; improved && !expired();) {
      improved = false;
      std::vector<Move> faster, leaner;
      for (Move& mv : moves()) {
        if (mv.delta < 0) faster.push_back(mv);
        else if (footprint(mv.k, mv.m) < footprint(mv.k, mode[mv.k])) leaner.push_back(mv);
      }
      std::sort(faster.begin(), faster.end(), [](const Move& a, const Move& b) { return a.delta < b.delta; });
      auto rate = [&](const Move& b) {
        return b.delta / static_cast<double>(footprint(b.k, mode[b.k]) - footprint(b.k, b.m));
      };
      std::sort(leaner.begin(), leaner.end(), [&](const Move& a, const Move& b) { return rate(a) < rate(b); });
      for (const Move& a : faster) {
        if (expired()) break;
        std::vector<std::pair<int, Mode>> undo{{a.k, mode[a.k]}};
        std::vector<char> touched(lv.T, 0);
        touched[a.k] = 1;
        mode[a.k] = a.m;
        double cost = a.delta;
        for (size_t i = 0;; ++i) {
          std::vector<double> y = recompute_schedule(mode);
          if (fits(y) && model.objective_value(y) < model.objective_value(x)) {  // drops: the modes' times are estimates
            x = std::move(y);
            improved = true;
            break;
          }
          // The next leaner change of an untouched forward that keeps the chain a saving.
          while (i < leaner.size() && (touched[leaner[i].k] || cost + leaner[i].delta >= 0)) ++i;
          if (i >= leaner.size() || expired()) break;
          const Move& b = leaner[i];
          undo.emplace_back(b.k, mode[b.k]);
          touched[b.k] = 1;
          mode[b.k] = b.m;
          cost += b.delta;
        }
        if (improved) break;
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) mode[it->first] = it->second;
      }
    }
    return x;
  }

  std::vector<Op> decode(const std::vector<double>& x) const {
    std::vector<Op> ops;
    for (int t = 0; t < lv.T; ++t)
      for (int k = 0; k <= t; ++k)
        for (size_t c = 0; c < R[t][k].size(); ++c)
          if (R[t][k][c] != kAbsent && x[R[t][k][c]] > 0.5) {
            const auto& more = h.nodes[k].choices[c].ops;
            ops.insert(ops.end(), more.begin(), more.end());
          }
    return ops;
  }
};

}  // namespace

namespace {

// The schedule of a solution (or a start) of `m`, simulated in the host under both budgets. One the
// simulator refuses is a model bug: counted, never returned.
void extract(const HilpModel& m, const std::vector<double>& x, int64_t budget, std::optional<int64_t> save_budget,
             HilpResult& out) {
  const Graph& g = *m.h.host;
  // The drops' and recompute modes' fast forwards run whole parts; only what a later op reads stays.
  const std::vector<Op> ops = m.decode(x);
  double model_time = 0;
  for (const Op& op : ops) {
    const NodeId c = op.kind == Op::Kind::Loss ? g.loss : op.node;
    if (op.kind != Op::Kind::Delete && c != kNone) model_time += g.compute[c].time;
  }
  Schedule s = insert_frees(g, prune_dead_recomputations(g, ops));
  SimResult sim = simulate(g, s);
  if (!Budget{budget, save_budget}.admits(sim)) {
    out.rejected = 1;
    out.status = PlanStatus::Infeasible;
    out.note = fmt::format("the extracted schedule was rejected by the simulator ({}); this is a model bug",
                           !sim.valid ? sim.reason
                                      : fmt::format("peak {} / budget {}, at loss {}", sim.peak, budget, sim.bytes_at_loss));
    return;
  }
  out.schedule = std::move(s);
  out.sim = sim;
  out.model_time = model_time;
  out.has_schedule = true;
}

// What choice c of HCN t runs and keeps, in host ids (HilpSolution's names): equal in two models over
// the same parts exactly where the choices are the same option. Two options can share a forward half
// and differ in their backward's, so a keeping forward's names the backward choices that consume it,
// and a backward's the forward choice it consumes.
std::string own_signature(const HChoice& c) {
  std::string s = fmt::format("{}|{}|{}|{}|", c.keeps, c.kept, c.overhead, c.time);
  for (const Op& op : c.ops) s += fmt::format("{}:{}:{},", static_cast<int>(op.kind), op.node, op.keep_phantoms);
  return s;
}

std::string signature(const HGraph& h, int t, size_t c) {
  const HNode& n = h.nodes[t];
  std::string s = own_signature(n.choices[c]);
  if (n.pair >= 0 && n.kind == ComputeKind::Forward) {
    for (const HChoice& b : h.nodes[n.pair].choices)
      if (b.tie == static_cast<int>(c)) s += ">" + own_signature(b);
  } else if (n.pair >= 0 && n.choices[c].tie >= 0) {
    s += "<" + signature(h, n.pair, static_cast<size_t>(n.choices[c].tie));
  }
  return s;
}

std::shared_ptr<const HilpSolution> record(const HilpModel& m, const std::vector<double>& x) {
  auto out = std::make_shared<HilpSolution>();
  for (int t = 0; t < m.lv.T; ++t) {
    for (int k = 0; k <= t; ++k) {
      for (size_t c = 0; c < m.R[t][k].size(); ++c)
        if (m.R[t][k][c] != kAbsent && x[m.R[t][k][c]] > 0.5) out->runs.push_back({t, k, signature(m.h, k, c)});
      for (size_t c = 0; c < m.PH[t][k].size(); ++c)
        if (m.PH[t][k][c] != kAbsent && x[m.PH[t][k][c]] > 0.5) out->kept.push_back({t, k, signature(m.h, k, c)});
    }
    for (const auto& [d, var] : m.S[t])
      if (x[var] > 0.5) out->resident.emplace_back(t, d);
  }
  return out;
}

// `s` as a solution of m (its FREE and U completed from the rest), or empty where m lacks one of
// the choices it runs or keeps.
std::vector<double> translate(const HilpModel& m, const HilpSolution& s) {
  std::vector<std::vector<std::string>> sig(m.h.nodes.size());  // of the HCNs s names, made once each
  std::vector<double> x(m.model.num_vars(), 0.0);
  auto var = [&](const std::vector<std::vector<std::vector<milp::Var>>>& table, const HilpSolution::Pick& p) {
    if (p.stage >= m.lv.T || p.hcn > p.stage) return kAbsent;
    auto& names = sig[p.hcn];
    if (names.empty())
      for (size_t c = 0; c < m.h.nodes[p.hcn].choices.size(); ++c) names.push_back(signature(m.h, p.hcn, c));
    const auto c = static_cast<size_t>(std::find(names.begin(), names.end(), p.choice) - names.begin());
    return c < table[p.stage][p.hcn].size() ? table[p.stage][p.hcn][c] : kAbsent;
  };
  for (const auto* picks : {&s.runs, &s.kept})
    for (const auto& p : *picks) {
      const milp::Var v = var(picks == &s.runs ? m.R : m.PH, p);
      if (v == kAbsent) return {};
      x[v] = 1;
    }
  for (const auto& [t, d] : s.resident)
    if (const milp::Var v = m.s(t, d); v != kAbsent) x[v] = 1;
  m.free_values(x);
  m.memory_values(x);
  return x;
}

std::string below_sources(int64_t budget, const Levels& lv) {
  return fmt::format("the budget ({} bytes) is below the sources ({} bytes)", budget, lv.sources);
}

}  // namespace

// The two constructive schedules (fitting_start, fitting_recompute_start within half of `seconds`),
// then, with `exchange`, each that fits improved by exchange_search, the faster start first, the other
// from half of what is left (local searches from different starts end in different optima;
// measured: bench/results/exchange_search.md#both-starts-e0689e9); the fastest. Empty where neither fits.
std::vector<double> improved_constructive(const HilpModel& m, double seconds, std::chrono::steady_clock::time_point until,
                                          bool exchange, bool drops) {
  const Levels& lv = m.lv;
  auto faster = [&](const std::vector<double>& a, const std::vector<double>& b) {
    return m.fits(a) && (!m.fits(b) || m.model.objective_value(a) < m.model.objective_value(b));
  };
  struct Start {
    std::vector<double> x;
    std::vector<HilpModel::Mode> mode;  // empty: no search from it
  };
  std::vector<Start> starts;
  Start persistent{m.fitting_start(), {}};
  if (m.fits(persistent.x)) {  // its modes, where recompute_schedule reproduces it (or does better)
    std::vector<HilpModel::Mode> mode = m.modes_of(persistent.x);
    std::vector<double> y = m.recompute_schedule(mode);
    if (m.fits(y) && !faster(persistent.x, y)) persistent = {std::move(y), std::move(mode)};
    starts.push_back(std::move(persistent));
  }
  if (starts.empty() || !m.fits(m.persistent_start(std::vector<int>(lv.T, -1)))) {
    Start recompute;
    recompute.x = m.fitting_recompute_start(seconds / 2, recompute.mode, drops);
    if (m.fits(recompute.x)) starts.push_back(std::move(recompute));
  }
  if (starts.empty()) return {};
  std::sort(starts.begin(), starts.end(), [&](const Start& a, const Start& b) { return faster(a.x, b.x); });
  std::vector<double> best = starts.front().x;
  if (!exchange) return best;
  for (size_t i = 0; i < starts.size(); ++i) {
    Start& s = starts[i];
    if (s.mode.empty()) continue;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) break;
    const auto end = i + 1 < starts.size() ? now + (until - now) / 2 : until;
    std::vector<double> y = m.exchange_search(s.mode, std::move(s.x), end, drops);
    if (faster(y, best)) best = std::move(y);
  }
  return best;
}

HilpResult persistent_hilp(const HGraph& h, int64_t budget, std::optional<int64_t> save_budget, double seconds,
                           bool exchange, bool drops) {
  HilpResult out;
  out.status = PlanStatus::NoPlanFound;
  Levels lv(h, budget);
  if (budget < lv.sources) {
    out.status = PlanStatus::Infeasible;
    out.note = below_sources(budget, lv);
    return out;
  }
  HilpModel m(lv, std::max<int64_t>(budget - lv.sources, 0) / lv.unit);
  if (save_budget) m.limit_at_loss((*save_budget - lv.sources) / lv.unit);
  out.vars = m.model.num_vars();
  out.rows = m.model.num_rows();
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<double> x = improved_constructive(m, seconds, until, exchange, drops);
  if (!m.fits(x)) {
    out.note = "no schedule of these choices that runs each part once, or recomputes it in its backward's stage or "
               "wherever its outputs are read, fits";
    return out;
  }
  extract(m, x, budget, save_budget, out);
  if (out.has_schedule) out.status = PlanStatus::Feasible;
  return out;
}

namespace {

// HilpOptions::neighbourhood_share's groups: per forward part, in stage order, every choice it runs
// or keeps in any stage and every choice of its backward.
std::vector<std::vector<milp::Var>> neighbourhood_groups(const HilpModel& m) {
  std::vector<std::vector<milp::Var>> groups;
  const int T = m.lv.T;
  auto add = [&](std::vector<milp::Var>& group, const std::vector<std::vector<std::vector<milp::Var>>>& table, int k) {
    for (int t = 0; t < T; ++t)
      if (static_cast<size_t>(k) < table[t].size())
        for (milp::Var v : table[t][k])
          if (v != kAbsent) group.push_back(v);
  };
  for (int k = 0; k < T; ++k) {
    if (m.h.nodes[k].kind != ComputeKind::Forward) continue;
    std::vector<milp::Var> group;
    add(group, m.R, k);
    add(group, m.PH, k);
    if (m.h.nodes[k].pair >= 0) add(group, m.R, m.h.nodes[k].pair);
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace

HilpResult solve_hilp(const HGraph& h, int64_t budget, const HilpOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  const Graph& g = *h.host;
  HilpResult out;
  Levels lv(h, budget);
  const int64_t cap = std::max<int64_t>(budget - lv.sources, 0) / lv.unit;
  if (budget < lv.sources) {
    out.note = below_sources(budget, lv);
    return out;
  }
  HilpModel m(lv, cap);
  if (opt.save_budget) m.limit_at_loss((*opt.save_budget - lv.sources) / lv.unit);
  // CBC starts from the autograd-like schedule where it fits. The greedy persistent one (fitting_start)
  // is no start: from it CBC settled 6.96 % from its bound where it reached 0.05 % without (a 529-node
  // encoder-decoder's top at 50 %); it is the plan where CBC finds none in time.
  // Where it does not fit, the schedule recomputing parts in their backward's stage is computed
  // (HilpOptions::recompute_start): CBC's start only with that option, the plan where CBC ends with
  // none or a slower one.
  std::vector<double> x0 = m.persistent_start(std::vector<int>(lv.T, -1));
  std::vector<double> recompute;
  if (!m.fits(x0)) {
    recompute = m.fitting_recompute_start(opt.recompute_start_share * opt.time_limit);
    if (opt.recompute_start) x0 = recompute;
  }
  std::vector<double> given = opt.start ? translate(m, *opt.start) : std::vector<double>{};
  if (!m.fits(given)) given.clear();
  out.start_held = !given.empty();
  if (!given.empty() && (!m.fits(x0) || m.model.objective_value(given) < m.model.objective_value(x0))) x0 = given;
  if (m.fits(x0)) {
    std::vector<std::pair<milp::Var, double>> values;
    for (size_t v = 0; v < x0.size(); ++v)
      if (x0[v] != 0) values.push_back({static_cast<milp::Var>(v), x0[v]});
    m.model.set_start(std::move(values));
  }
  out.vars = m.model.num_vars();
  out.rows = m.model.num_rows();
  bool integral = true;
  for (double c : m.model.objective()) integral &= c == std::floor(c);
  milp::Options mo;
  double built = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double neighbourhood = std::clamp(opt.neighbourhood_share, 0.0, 1.0);
  mo.time_limit = std::max(0.1, (opt.time_limit - built) * (1 - neighbourhood));
  mo.threads = opt.threads;
  mo.grace_seconds = opt.grace_seconds;
  mo.relative_gap = integral ? 0 : 1e-9;
  mo.absolute_gap = integral ? 0.999 : 0;
  mo.log = false;
  milp::Result res;
  if (neighbourhood < 1) {
    res = milp::solve(m.model, mo);
  } else {
    res.status = milp::Status::TimeLimitNoSolution;
    res.note = "no search of the whole model (the neighbourhood search has the limit)";
  }
  if (std::isfinite(res.bound)) out.bound = res.bound;
  auto finish = [&] {
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (opt.verbose)
      std::cerr << fmt::format("  H-ILP '{}': {} HCNs, {} vars, {} rows, unit {} B, {} in {:.2f} s{}\n", g.name,
                               h.nodes.size(), out.vars, out.rows, lv.unit, to_string(out.status), out.seconds,
                               out.note.empty() ? "" : " (" + out.note + ")");
    return out;
  };
  if (res.status == milp::Status::Infeasible) {
    out.note = "proven infeasible in this model";
    return finish();
  }
  std::vector<double> solution = std::move(res.solution);
  // Where CBC has no solution, or one cut by its limit, a constructive schedule when faster: a
  // search cut by its limit can end above them.
  auto faster = [&](std::vector<double> x, const char* what) {
    if (!m.fits(x) || (!solution.empty() && m.model.objective_value(x) >= m.model.objective_value(solution))) return;
    solution = std::move(x);
    out.note += fmt::format("; {} {}", what, milp::has_solution(res.status) ? "is faster" : "instead");
  };
  if (!milp::has_solution(res.status)) {
    out.status = PlanStatus::TimedOut;
    out.note = neighbourhood >= 1 ? res.note
                                  : fmt::format("CBC: {}{}", milp::to_string(res.status), res.note.empty() ? "" : "; " + res.note);
    solution.clear();
  } else if (res.status != milp::Status::Optimal) {
    out.note = std::isfinite(res.gap) ? fmt::format("time limit: gap {:.2f} %", 100 * res.gap) : "time limit: no bound";
  }
  if (res.status != milp::Status::Optimal) {
    faster(m.fitting_start(), "the persistent schedule of the fastest choices that fit");
    faster(std::move(recompute), "the schedule recomputing parts in their backward's stage");
    faster(std::move(given), "the start given");
    if (solution.empty()) return finish();
    if (neighbourhood > 0 && m.fits(solution)) {
      milp::NeighbourhoodOptions no;
      no.round_seconds = opt.neighbourhood_round_seconds;
      no.solve = mo;
      const Deadline until(opt.time_limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      milp::NeighbourhoodResult nr = milp::neighbourhood_search(m.model, solution, neighbourhood_groups(m), until, no);
      if (nr.improvements > 0) {
        solution = std::move(nr.x);
        out.note += fmt::format("; neighbourhood search: {} of {} windows faster, up to {} parts", nr.improvements,
                                nr.rounds, nr.width);
      } else if (nr.rounds > 0) {
        out.note += fmt::format("; neighbourhood search: none of {} windows faster", nr.rounds);
      }
    }
  }
  extract(m, solution, budget, opt.save_budget, out);
  if (out.has_schedule) {
    out.status = res.status == milp::Status::Optimal ? PlanStatus::Optimal : PlanStatus::TimedOut;
    out.solution = record(m, solution);
  }
  return finish();
}

}  // namespace hiremate::hierarchy
