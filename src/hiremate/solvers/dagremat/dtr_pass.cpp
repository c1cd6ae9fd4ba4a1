#include "hiremate/solvers/dagremat/dtr_pass.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "hiremate/common/random.h"

namespace hiremate::dagremat {

namespace {

struct Dtr {
  const FixedOrderDag& dag;
  const int64_t cap;
  const DtrOptions& opt;
  std::vector<char> resident;
  std::vector<int> pending;     // reads by computations of the current stage still to run: pinned while > 0
  std::vector<long> last_access;  // clock_ops when it was last made or read
  long clock_ops = 0;            // computations so far
  std::vector<int> slot;        // position in `live` (-1: not resident)
  std::vector<int> live;        // the resident values
  std::vector<size_t> next_user;  // index into dag.users[v] of its first user at or after the stage
  std::vector<int> next_read;     // that user (int max: none)
  std::vector<int> missing_inputs;  // how many of v's inputs are not resident: a lower bound on its cone
  int64_t memory = 0;
  int now = 0;
  DtrResult out;

  Dtr(const FixedOrderDag& d, int64_t c, const DtrOptions& o) : dag(d), cap(c), opt(o) {
    resident.assign(dag.n, 0);
    pending.assign(dag.n, 0);
    slot.assign(dag.n, -1);
    last_access.assign(dag.n, 0);
    listed.assign(dag.n, 0);
    next_user.assign(dag.n, 0);
    next_read.assign(dag.n, -1);
    missing_inputs.resize(dag.n);
    for (int v = 0; v < dag.n; ++v) missing_inputs[v] = static_cast<int>(dag.pred[v].size());
    out.held.assign(dag.n, {});
    if (opt.guard_cones) {
      guards.assign(dag.n, 0);
      frontier.assign(dag.n, {});
      cone_seen.assign(dag.n, 0);
    }
  }

  // Steps from now to v's next first-computation read; values read no more get the largest.
  // The read is cached in next_read (the users' lists are touched only when it has passed): the
  // scans of every resident value between stages and per eviction ask it of each.
  double distance(int v) {
    if (next_read[v] < now) {
      const auto& us = dag.users[v];
      size_t& i = next_user[v];
      while (i < us.size() && us[i] < now) ++i;
      next_read[v] = i < us.size() ? us[i] : std::numeric_limits<int>::max();
    }
    return next_read[v] != std::numeric_limits<int>::max() ? 1.0 + next_read[v] - now : 2.0 * dag.n;
  }

  void add(int v) {
    resident[v] = 1;
    slot[v] = static_cast<int>(live.size());
    live.push_back(v);
    memory += dag.mem[v];
    for (int u : dag.users[v]) --missing_inputs[u];
    out.held[v].emplace_back(now, dag.n);
  }
  void remove(int v) {
    resident[v] = 0;
    const int last = live.back();
    live[slot[v]] = last;
    slot[last] = slot[v];
    live.pop_back();
    slot[v] = -1;
    memory -= dag.mem[v];
    for (int u : dag.users[v]) ++missing_inputs[u];
    out.held[v].back().second = now;
  }

  // Whether v is an input of an evicted value that a first computation still reads: evicting it too
  // would make that value's recomputation a cone.
  bool protects(int v) {
    for (int u : dag.users[v])
      if (u < now && !resident[u] && distance(u) < 2.0 * dag.n) return true;
    return false;
  }

  bool inputs_resident(int v) const {
    for (int p : dag.pred[v])
      if (!resident[p]) return false;
    return true;
  }

  // DTR's e*: the time of the evicted values connected to v through evicted values (inputs and
  // readers already computed), which evicting v joins into one cone; with VictimCost::Cone, through
  // inputs only (v's own recomputation cone). Infinity once above `limit`.
  std::vector<int> seen, todo;
  int seen_clock = 0;
  double evicted_neighbourhood(int v, double limit) {
    if (seen.size() != static_cast<size_t>(dag.n)) seen.assign(dag.n, 0);
    ++seen_clock;
    seen[v] = seen_clock;
    todo.assign(1, v);
    double sum = 0;
    while (!todo.empty()) {
      const int k = todo.back();
      todo.pop_back();
      for (const auto* list : {&dag.pred[k], &dag.users[k]})
        for (int w : *list) {
          if (opt.victim_cost == DtrOptions::VictimCost::Cone && list != &dag.pred[k]) break;
          if (w >= now || resident[w] || seen[w] == seen_clock) continue;
          seen[w] = seen_clock;
          sum += dag.cost[w];
          if (sum > limit) return std::numeric_limits<double>::infinity();
          todo.push_back(w);
        }
    }
    return sum;
  }

  // The value's score: what evicting it costs, per byte, per step it would not be needed. Values a
  // first computation still reads: steps until that read (the fixed order tells the future). Others
  // are read only by recomputations: steps since their last access (DTR's staleness), so that the
  // inputs of a stage's recomputations are not evicted between sibling recomputations.
  double score(int v, double limit_score) {
    const double d = distance(v);
    const double factor = d < 2.0 * dag.n ? d : 1.0 + static_cast<double>(clock_ops - last_access[v]);
    const double scale = static_cast<double>(dag.mem[v]) * factor;
    double e = 0;
    if (opt.victim_cost != DtrOptions::VictimCost::Inputs) {
      e = opt.neighbourhood * evicted_neighbourhood(v, limit_score * scale);
    } else {
      for (int p : dag.pred[v])
        if (!resident[p]) e += opt.neighbourhood * dag.cost[p];
    }
    return (dag.cost[v] + e + 1e-12) / scale;
  }

  // Between stages: values no first computation reads and no evicted value needs are freed (the
  // protected ones stay), then evicted values whose inputs are all resident are recomputed, nearest
  // read first, while they fit without evicting anything. This is the DTR pass's cheap resume: a value
  // evicted at a peak comes back right after it, before its inputs die; recomputed at its read instead,
  // its inputs were gone and the cones reached back to the graph's start (dense DAGs).
  std::vector<int> evicted_live;  // evicted values a first computation still reads (once each: `listed`)
  std::vector<char> listed;

  // DtrOptions::guard_cones. guards[v]: how many evicted values hold v in the resident frontier of
  // their recomputation cone (v is then neither evicted nor freed); frontier[w]: the values w holds.
  std::vector<int> guards;
  std::vector<std::vector<int>> frontier;
  std::vector<int> cone_seen, cone_todo, cone_front;
  int cone_seen_clock = 0;
  double cone_time = 0;  // the time of the cone last walked by missing_cone()

  // The values w's recomputation would recompute now: its ancestors reached through values that are
  // not resident (w excluded), with their time in cone_time; the resident values met on the way
  // (those it would read) into *front. Stops once above `limit`.
  int missing_cone(int w, int limit, std::vector<int>* front) {
    ++cone_seen_clock;
    cone_seen[w] = cone_seen_clock;
    cone_todo.assign(1, w);
    int count = 0;
    cone_time = 0;
    while (!cone_todo.empty()) {
      const int k = cone_todo.back();
      cone_todo.pop_back();
      for (int p : dag.pred[k]) {
        if (cone_seen[p] == cone_seen_clock) continue;
        cone_seen[p] = cone_seen_clock;
        if (resident[p]) {
          if (front) front->push_back(p);
          continue;
        }
        if (++count > limit) return count;
        cone_time += dag.cost[p];
        cone_todo.push_back(p);
      }
    }
    return count;
  }
  void unguard(int w) {
    for (int f : frontier[w]) --guards[f];
    frontier[w].clear();
  }
  // w was just evicted: while it is still read (by a first computation, or through the cone of an
  // evicted value that guards it), its frontier stays resident, so that its cone cannot grow.
  void guard(int w) {
    if (distance(w) >= 2.0 * dag.n && guards[w] == 0) return;
    std::vector<int> front;
    missing_cone(w, std::numeric_limits<int>::max(), &front);
    for (int f : front) ++guards[f];
    frontier[w] = std::move(front);
  }
  // Between stages: guards of values that are back or read no more are lifted; values no first
  // computation reads and nothing guards are freed.
  void between_stages_guarded() {
    size_t keep = 0;
    for (int v : evicted_live) {
      if (resident[v] || (distance(v) >= 2.0 * dag.n && guards[v] == 0)) {
        unguard(v);
        listed[v] = 0;
        continue;
      }
      evicted_live[keep++] = v;
    }
    evicted_live.resize(keep);
    for (size_t i = 0; i < live.size();) {
      const int v = live[i];
      if (pending[v] == 0 && distance(v) >= 2.0 * dag.n && guards[v] == 0) {
        remove(v);
        continue;
      }
      ++i;
    }
  }
  // A guarded candidate's score: (its time + its cone's) per byte-step relieved: its bytes times the
  // steps to its next read, less the byte-steps the values it would newly guard are held beyond their
  // own next read. Infinity where the cone is above `limit` or nothing is relieved.
  double guarded_score(int v, int limit) {
    const bool read = distance(v) < 2.0 * dag.n;
    if (!read && guards[v] == 0) return score(v, std::numeric_limits<double>::infinity());
    // Its missing inputs are in its cone: no walk where they are already above the limit (most
    // candidates of the first tier, whose limit is 0, in the scans of every resident value).
    if (missing_inputs[v] > limit) return std::numeric_limits<double>::infinity();
    cone_front.clear();
    if (missing_cone(v, limit, &cone_front) > limit) return std::numeric_limits<double>::infinity();
    const double steps = read ? distance(v) : 1.0;
    double relieved = static_cast<double>(dag.mem[v]) * steps;
    for (int f : cone_front) {
      if (guards[f] > 0) continue;
      const double own = distance(f) < 2.0 * dag.n ? distance(f) : 0.0;
      if (own < steps) relieved -= static_cast<double>(dag.mem[f]) * (steps - own);
    }
    if (relieved <= 0) return std::numeric_limits<double>::infinity();
    return (dag.cost[v] + cone_time + 1e-12) / relieved;
  }

  void between_stages(int next) {
    now = next;
    if (opt.guard_cones) return between_stages_guarded();
    for (size_t i = 0; i < live.size();) {
      const int v = live[i];
      if (pending[v] == 0 && distance(v) >= 2.0 * dag.n && !protects(v)) {
        remove(v);  // swaps the last resident value into slot i
        continue;
      }
      ++i;
    }
    if (!opt.restore) return;
    std::vector<std::pair<double, int>> ready;
    size_t keep = 0;
    for (int v : evicted_live) {
      if (resident[v] || distance(v) >= 2.0 * dag.n) {  // restored on demand, or read no more
        listed[v] = 0;
        continue;
      }
      evicted_live[keep++] = v;
      bool inputs = true;
      for (int p : dag.pred[v]) inputs = inputs && resident[p];
      if (inputs) ready.emplace_back(distance(v), v);
    }
    evicted_live.resize(keep);
    std::sort(ready.begin(), ready.end());
    for (const auto& [d, v] : ready) {
      if (memory + dag.mem[v] + dag.overhead[v] > cap) continue;
      add(v);
      last_access[v] = ++clock_ops;
      out.positions.push_back(v);
      out.recompute_cost += dag.cost[v];
    }
  }

  // Evicts the unpinned resident value of least score, in tiers (DtrOptions::tiers). Above
  // DtrOptions::sample resident values each tier looks at that many drawn at random (DTR's
  // sampling): a full scan per eviction is O(resident x degree), seconds per pass on a 20,000-node
  // dense DAG. Where no drawn value qualifies for a tier, every resident value is looked at before
  // the next tier: the victim is always of the tier a full scan would take it from (only not the
  // best of it), and the pass is stuck only when nothing at all can be evicted.
  SplitMix64 rng{0x5eed};
  std::vector<int> drawn;
  int pick(int tier, const std::vector<int>& candidates) {
    int best = -1;
    double best_score = std::numeric_limits<double>::infinity();
    for (int v : candidates) {
      if (pending[v] > 0 || dag.mem[v] == 0) continue;
      if (opt.guard_cones) {
        // Tiers: unguarded values by growing cone limits, then guarded ones the same way.
        const size_t limits = opt.cone_limits.size();
        if (guards[v] > 0 && static_cast<size_t>(tier) < limits) continue;
        const double sc = guarded_score(v, opt.cone_limits[static_cast<size_t>(tier) % limits]);
        if (sc < best_score) {
          best_score = sc;
          best = v;
        }
        continue;
      }
      // Tier 0: values whose eviction costs one recomputation; tier 1 (of 3): any that no evicted
      // value needs; last: any.
      if (tier < opt.tiers - 1 && protects(v)) continue;
      if (tier == 0 && opt.tiers > 1 && distance(v) < 2.0 * dag.n && !inputs_resident(v)) continue;
      const double sc = score(v, best_score);
      if (sc < best_score) {
        best_score = sc;
        best = v;
      }
    }
    return best;
  }
  bool evict_one() {
    const bool sampled = opt.sample > 0 && live.size() > static_cast<size_t>(opt.sample);
    if (sampled) {
      drawn.clear();
      for (int i = 0; i < opt.sample; ++i)
        drawn.push_back(live[static_cast<size_t>(rng.between(0, static_cast<int64_t>(live.size()) - 1))]);
    }
    const int tiers = opt.guard_cones ? 2 * static_cast<int>(opt.cone_limits.size()) : opt.tiers;
    for (int tier = 0; tier < tiers; ++tier) {
      int best = pick(tier, sampled ? drawn : live);
      if (best < 0 && sampled) best = pick(tier, live);  // the tiers stay strict
      if (best >= 0) {
        remove(best);
        if (opt.guard_cones) guard(best);
        const bool guarded = opt.guard_cones && !frontier[best].empty();
        if ((guarded || distance(best) < 2.0 * dag.n) && !listed[best]) {
          listed[best] = 1;
          evicted_live.push_back(best);
        }
        return true;
      }
    }
    return false;
  }

  // Runs v (its inputs resident and pinned): evicts until it fits, then makes it resident.
  bool run(int v) {
    while (memory + dag.mem[v] + dag.overhead[v] > cap)
      if (!evict_one()) return false;
    add(v);
    if (opt.guard_cones && !frontier[v].empty()) unguard(v);
    last_access[v] = ++clock_ops;
    out.positions.push_back(v);
    if (v != now) out.recompute_cost += dag.cost[v];
    return true;
  }

  // Stage t: t's inputs are made resident, those that are gone recomputed with theirs, recursively
  // (an explicit stack: chains of evicted values can be as long as the graph). A frame first pins the
  // inputs that are resident (so that recomputing the others cannot evict them), then recomputes the
  // others one by one, pinning each when it is made; after its run it unpins its inputs. Only the
  // inputs of the frames on the stack are pinned: pinning the whole missing cone at once got stuck
  // at 80 % on the 2,000-node dense DAG.
  struct Frame {
    int v;
    size_t next;      // the next input to make resident
    size_t pins;      // where its pins begin in `pins`: those of entry first (in input order), then the others
    size_t entry;     // how many it pinned on entry
    size_t seen = 0;  // how many of those the walk has passed
  };
  std::vector<Frame> frames;
  std::vector<int> pins;

  void enter(int v) {
    Frame f{v, 0, pins.size(), 0};
    for (int p : dag.pred[v])
      if (resident[p]) {
        ++pending[p];
        last_access[p] = clock_ops;
        pins.push_back(p);
      }
    f.entry = pins.size() - f.pins;
    frames.push_back(f);
  }

  // Stage t with the whole missing cone at once: collected in depth-first post-order (inputs before
  // readers), each value computed once; every input of a pending computation is pinned until that
  // computation has run (reads counted in `pending`), so nothing is recomputed twice in a stage.
  std::vector<int> cone_order, dfs;
  std::vector<size_t> child;
  std::vector<int> cone_stamp;
  int cone_clock = 0;
  bool stage_cone(int t, std::chrono::steady_clock::time_point deadline) {
    if (cone_stamp.empty()) {
      cone_stamp.assign(dag.n, 0);
      child.assign(dag.n, 0);
    }
    now = t;
    ++cone_clock;
    cone_order.clear();
    dfs.assign(1, t);
    cone_stamp[t] = cone_clock;
    child[t] = 0;
    while (!dfs.empty()) {
      const int k = dfs.back();
      const auto& ps = dag.pred[k];
      if (child[k] < ps.size()) {
        const int p = ps[child[k]++];
        if (resident[p] || cone_stamp[p] == cone_clock) continue;
        cone_stamp[p] = cone_clock;
        child[p] = 0;
        dfs.push_back(p);
      } else {
        cone_order.push_back(k);
        dfs.pop_back();
      }
    }
    for (int k : cone_order)
      for (int p : dag.pred[k]) {
        ++pending[p];
        last_access[p] = clock_ops;
      }
    for (size_t i = 0; i < cone_order.size(); ++i) {
      const int k = cone_order[i];
      // A stage's evictions can take long (a cone of hundreds, each eviction a scan): the deadline
      // is checked within it too (a 20,000-node dense DAG's passes ended 0.35 s past it).
      if ((i & 31) == 31 && std::chrono::steady_clock::now() > deadline) return false;
      if (!run(k)) {
        // The pinned cone does not fit: release what is still pending and let the depth-first
        // stage, which pins only the inputs on its stack, finish it.
        for (size_t j = i; j < cone_order.size(); ++j)
          for (int p : dag.pred[cone_order[j]]) --pending[p];
        ++out.depth_first_stages;
        return opt.depth_first_fallback && stage(t, deadline);
      }
      for (int p : dag.pred[k]) --pending[p];
    }
    return true;
  }

  bool stage(int t, std::chrono::steady_clock::time_point deadline) {
    now = t;
    frames.clear();
    pins.clear();
    enter(t);
    long steps = 0;
    while (!frames.empty()) {
      if ((++steps & 1023) == 0 && std::chrono::steady_clock::now() > deadline) return false;
      Frame& f = frames.back();
      const auto& ps = dag.pred[f.v];
      for (; f.next < ps.size(); ++f.next) {
        const int p = ps[f.next];
        if (f.seen < f.entry && pins[f.pins + f.seen] == p) {
          ++f.seen;  // pinned on entry
          continue;
        }
        if (!resident[p]) break;
        ++pending[p];  // made by a sibling's recomputation since
        last_access[p] = clock_ops;
        pins.push_back(p);
      }
      if (f.next < ps.size()) {
        enter(ps[f.next]);
        continue;
      }
      const int v = f.v;
      if (!run(v)) return false;
      for (size_t i = f.pins; i < pins.size(); ++i) --pending[pins[i]];
      pins.resize(f.pins);
      frames.pop_back();
      if (!frames.empty()) {  // the parent's input, now resident
        ++pending[v];
        pins.push_back(v);
        ++frames.back().next;
      }
    }
    return true;
  }
};

}  // namespace

std::optional<DtrResult> dtr_pass(const FixedOrderDag& dag, int64_t cap, std::chrono::steady_clock::time_point deadline,
                                  const DtrOptions& opt, int* stuck_stage) {
  if (opt.guard_cones && opt.cone_limits.empty()) throw std::invalid_argument("dtr_pass: guard_cones needs cone_limits");
  Dtr d(dag, cap, opt);
  for (int t = 0; t < dag.n; ++t) {
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    if (!(opt.whole_cone ? d.stage_cone(t, deadline) : d.stage(t, deadline))) {
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      if (stuck_stage) *stuck_stage = t;
      return std::nullopt;
    }
    d.between_stages(t + 1);
  }
  return std::move(d.out);
}

}  // namespace hiremate::dagremat
