#include "hiremate/solvers/twremat/twremat.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <limits>

#include "hiremate/common/error.h"
#include "hiremate/solvers/twremat/dag.h"
#include "hiremate/solvers/twremat/greedy.h"
#include "hiremate/solvers/twremat/memory_model.h"
#include "hiremate/solvers/twremat/start.h"
#include "hiremate/solvers/twremat/tree_decomposition.h"

namespace hiremate {

using namespace twremat;

namespace {

twremat::Deadline deadline_after(double seconds) {
  auto now = std::chrono::steady_clock::now();
  double capped = std::min(seconds, 1e7);  // a year: "no limit" without overflowing the clock
  return {now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(capped))};
}

size_t op_cap(const Dag& dag) { return TwRematSolver::kOpsPerNode * static_cast<size_t>(dag.n) + TwRematSolver::kOpsBase; }

}  // namespace

std::optional<std::string> TwRematSolver::unsupported(const Graph& g) const {
  if (g.is_training()) return std::nullopt;
  for (const auto& d : g.data)
    if (d.kind == DataKind::Grad)
      return fmt::format("grad '{}' in a generic DAG: grads belong to training graphs (with backward nodes)", d.name);
  return std::nullopt;
}

Plan TwRematSolver::solve(const Graph& g, int64_t budget, const SolveOptions& opt) const {
  // The caller's deadline where it set one (a composition's part may start with little or nothing
  // left of it), or the limit from now.
  const twremat::Deadline deadline = deadline_after(std::min(opt.time_limit, deadline_of(opt).left()));
  Plan plan;
  auto fits = [&](int64_t peak, int64_t at_loss) {
    return opt.budget(budget).admits(peak, at_loss);
  };

  // Keep-all runs every node once: when it fits, nothing is faster.
  Schedule keep = keep_all_schedule(g);
  SimResult kept = simulate(g, keep);
  if (fits(kept.peak, kept.bytes_at_loss)) {
    plan.status = PlanStatus::Optimal;
    plan.has_schedule = true;
    plan.schedule = std::move(keep);
    plan.note = "the keep-all schedule fits: every node runs once";
    return plan;
  }

  Dag dag(g);
  TreeDecomposition td;
  try {
    // Tearing down an abandoned elimination takes time after its deadline (measured: 0.25 s at
    // 10,000 nodes, about 1.6 s at 100,000): the decomposition stops that much earlier.
    const double margin = std::min(0.1 * opt.time_limit, 1.5e-5 * static_cast<double>(dag.n));
    td = decompose(dag.neighbours, Heuristic::MinFill,
                   deadline.at - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(margin)));
  } catch (const DecompositionOutOfTime&) {
    plan.status = PlanStatus::TimedOut;
    plan.note = fmt::format("time limit of {} s reached while decomposing the graph ({} nodes); no plan was built",
                            opt.time_limit, dag.n);
    return plan;
  }
  if (opt.verbose)
    std::cerr << fmt::format("twremat: {} nodes, tree decomposition of width {}\n", dag.n, td.width());
  struct Best {
    std::vector<Op> ops;
    double time = 0;
    int64_t peak = 0;
    int leaf = 0;
    PathOrder order = PathOrder::LowestPeak;
  };
  std::optional<Best> best;
  int64_t lowest = std::numeric_limits<int64_t>::max();
  int lowest_leaf = 0, too_long = 0;
  bool cut = false;
  for (int leaf = 1; leaf < dag.n; leaf *= 4) {
    if (deadline.expired()) {
      cut = true;
      break;
    }
    std::vector<Entry> entries;
    try {
      entries = low_memory_start(g, dag, td, leaf, op_cap(dag), deadline);
    } catch (const TooManyOps&) {
      ++too_long;
      if (opt.verbose)
        std::cerr << fmt::format("twremat: leaf size {}: over {} ops even in order, skipped\n", leaf, op_cap(dag));
      continue;
    } catch (const OutOfTime&) {
      cut = true;
      break;
    }
    MemoryModel model(g, dag, std::move(entries));
    model.drop_unread();
    const int64_t start_peak = model.peak();
    if (start_peak < lowest) {
      lowest = start_peak;
      lowest_leaf = leaf;
    }
    if (!fits(start_peak, model.at_loss())) {
      if (opt.verbose)
        std::cerr << fmt::format("twremat: leaf size {}: {} ops, low-memory peak {} over budget\n", leaf,
                                 model.active(), start_peak);
      continue;
    }
    for (PathOrder order : {PathOrder::LowestPeak, PathOrder::TimePerByte}) {
      MemoryModel walked = model;
      WalkResult walk = walk_removal_path(walked, g, order, budget, opt.save_budget, deadline);
      const double time = walked.time();
      if (opt.verbose)
        std::cerr << fmt::format("twremat: leaf size {}: {} ops, low-memory peak {}; {}: {} removals -> time {}, "
                                 "peak {}\n",
                                 leaf, model.active(), start_peak, to_string(order), walk.merges, time, walked.peak());
      if (!best || time < best->time) best = Best{walked.ops(), time, walked.peak(), leaf, order};
      if (walk.out_of_time) {
        cut = true;
        break;
      }
    }
    if (cut) break;
  }

  if (!best) {
    // A heuristic that found nothing proves nothing: "no plan found", with the lowest peak it reached.
    plan.status = cut ? PlanStatus::TimedOut : PlanStatus::NoPlanFound;
    if (lowest != std::numeric_limits<int64_t>::max() && lowest > budget) plan.lowest_peak = lowest;
    std::string reached =
        lowest == std::numeric_limits<int64_t>::max()
            ? fmt::format("no low-memory schedule was built ({} leaf sizes over the cap of {} ops)", too_long, op_cap(dag))
            : fmt::format("the lowest peak TW-Remat reached is {} bytes (leaf size {}, tree width {})", lowest,
                          lowest_leaf, td.width());
    plan.note = cut ? fmt::format("time limit of {} s reached before a plan fit; {}", opt.time_limit, reached)
                    : fmt::format("found no plan within {} bytes{}: {}", budget,
                                  opt.save_budget ? fmt::format(" with {} bytes at the loss", *opt.save_budget) : "",
                                  reached);
    return plan;
  }
  plan.schedule = insert_frees(g, best->ops);
  SimResult sim = simulate(g, plan.schedule);
  HM_ASSERT(sim.valid && sim.peak == best->peak,
            fmt::format("twremat: the memory model and the simulator disagree ({} vs {} bytes; {})", best->peak,
                        sim.peak, sim.reason));
  plan.has_schedule = true;
  plan.status = cut ? PlanStatus::TimedOut : PlanStatus::Feasible;
  plan.note = fmt::format("leaf size {}, {}, tree width {}, {} recomputations{}", best->leaf, to_string(best->order),
                          td.width(), sim.recomputations, cut ? fmt::format("; time limit of {} s cut the search", opt.time_limit) : "");
  return plan;
}

std::optional<Schedule> twremat_low_memory_schedule(const Graph& g, int leaf_size) {
  Dag dag(g);
  TreeDecomposition td = decompose(dag.neighbours);
  try {
    auto entries = low_memory_start(g, dag, td, leaf_size, op_cap(dag), deadline_after(1e7));
    return insert_frees(g, to_ops(entries));
  } catch (const TooManyOps&) {
    return std::nullopt;
  }
}

int twremat_width(const Graph& g) {
  Dag dag(g);
  return decompose(dag.neighbours).width();
}

}  // namespace hiremate
