"""What a HiRemate module's plan is (`.plan`) and its readable report (`.report()`).

Bytes are activation bytes: the graph's memory less the model inputs; parameters and their
gradients are outside them, as in HiRemate. Times are sums of the nodes' measured times."""
from dataclasses import dataclass
from typing import Optional


def format_bytes(n):
    """1536 -> '1.50 KiB' (as the CLI prints sizes)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


@dataclass(frozen=True)
class PlanInfo:
    solver: str             # the solver that made the plan ("hiremate", "checkmate", ...)
    status: str             # "optimal", "feasible" or "timed_out" (never "infeasible": that raises)
    budget: int             # activation bytes the plan had to fit
    keep_all_peak: int      # simulated activation peak of PyTorch's keep-everything schedule
    simulated_peak: int     # the plan's simulated activation peak (<= budget)
    bytes_at_loss: int      # activation bytes the forward half hands the backward half
    simulated_time: float   # seconds per step, the plan (sum of measured node times)
    keep_all_time: float    # seconds per step, keep-everything
    predicted_overhead: float  # simulated_time / keep_all_time - 1 (0.2: 20 % slower)
    recomputations: int     # forward computations beyond the first of each node
    solve_seconds: float    # planning wall time (from the file's planning when loaded)
    profile_seconds: float  # profiling wall time (0 when loaded)
    loaded: bool            # read by HiRemate.load_plan
    input_bytes: int        # the model inputs (outside the activation bytes)
    compute_nodes: int      # in the measured graph
    note: str               # the solver's note (which plan won, what a time limit cut)
    levels: Optional[dict] = None  # the hierarchical planner's per-cluster report (hiremate, hilp)
    input_shapes: tuple = ()  # the input shapes the plan is for, one tuple per input (HiRemate.plans' keys)
    planning_seconds: float = 0.0  # wall time to make this plan: trace, capture, profile and solve (or load)
    bound: Optional[float] = None  # seconds per step no plan under `budget` can beat (a lower bound), or None

    @classmethod
    def from_summary(cls, s):
        keep = s["keep_all_time"]
        overhead = s["simulated_time"] / keep - 1.0 if keep > 0 else 0.0
        return cls(solver=s["solver"], status=s["status"], budget=s["budget"], keep_all_peak=s["keep_all_peak"],
                   simulated_peak=s["simulated_peak"], bytes_at_loss=s["bytes_at_loss"],
                   simulated_time=s["simulated_time"], keep_all_time=keep, predicted_overhead=overhead,
                   recomputations=s["recomputations"], solve_seconds=s["solve_seconds"],
                   profile_seconds=s["profile_seconds"], loaded=s["loaded"], input_bytes=s["input_bytes"],
                   compute_nodes=s["compute_nodes"], note=s["note"], levels=s["levels"], bound=s.get("bound"))

    @property
    def least_overhead(self):
        """The lower bound as an overhead over keep-all (0.08: no plan under this budget is less than 8 %
        slower than keep-all in the simulator), or None without a bound."""
        if self.bound is None or self.keep_all_time <= 0:
            return None
        return self.bound / self.keep_all_time - 1.0

    def report(self):
        """A readable summary, and for the hierarchical planner a table per level."""
        def pct(b):
            return f"{100.0 * b / self.keep_all_peak:6.1f}%" if self.keep_all_peak else "      -"
        how = "loaded from a plan file" if self.loaded else (
            f"planned in {self.solve_seconds:.1f} s after {self.profile_seconds:.1f} s of profiling")
        if self.planning_seconds:
            how += f" ({self.planning_seconds:.1f} s in all with tracing)"
        shapes = (" for input shapes " + ", ".join(str(list(s)) for s in self.input_shapes)) if self.input_shapes else ""
        lines = [f"HiRemate plan{shapes}: solver {self.solver} ({self.status}), {how}; {self.compute_nodes} compute "
                 "nodes",
                 f"{'activations':<18}{'bytes':>13}{'':>12} {'keep-all':>8}"]
        for name, b in (("keep-all (sim.)", self.keep_all_peak), ("budget", self.budget),
                        ("simulated peak", self.simulated_peak), ("at the loss", self.bytes_at_loss)):
            lines.append(f"{name:<18}{b:>13,}{format_bytes(b):>12} {pct(b):>8}")
        lines.append(f"step time (sim.)  {self.simulated_time * 1e3:.2f} ms against {self.keep_all_time * 1e3:.2f} ms "
                     f"keep-all: {100 * self.predicted_overhead:+.1f} % predicted, {self.recomputations} recomputations")
        if self.least_overhead is not None:
            lines.append(f"lower bound       {self.bound * 1e3:.2f} ms ({100 * self.least_overhead:+.1f} %): no plan under this "
                         "budget is faster in the simulator")
        lines.append(f"(parameters, their gradients and the inputs ({format_bytes(self.input_bytes)}) are outside "
                     "these bytes)")
        if self.levels:
            lines.extend(level_table(self.levels))
        elif self.loaded:
            lines.append("(plan files keep no per-level table)")
        else:
            lines.append(f"(solver {self.solver} is flat: no per-level table)")
        return "\n".join(lines)


def level_rows(levels):
    """Per level, bottom-up then the top: clusters, largest cluster (units), H-ILP solves and their
    statuses, the largest H-ILP (variables, rows), options kept, seconds."""
    by_level = {}
    for c in levels["solved"]:
        row = by_level.setdefault(c["level"], dict(level=str(c["level"]), clusters=0, units=0, solves=0, optimal=0,
                                                   timed_out=0, infeasible=0, max_vars=0, max_rows=0, options=0,
                                                   seconds=0.0))
        row["clusters"] += 1
        row["units"] = max(row["units"], c["units"])
        for k in ("solves", "optimal", "timed_out", "infeasible", "options", "seconds"):
            row[k] += c[k]
        row["max_vars"] = max(row["max_vars"], c["max_vars"])
        row["max_rows"] = max(row["max_rows"], c["max_rows"])
    rows = [by_level[k] for k in sorted(by_level)]
    t = levels["top"]
    rows.append(dict(level="top", clusters=1, units=t["units"], solves=t["solves"], optimal=t["optimal"],
                     timed_out=t["timed_out"], infeasible=t["infeasible"], max_vars=t["max_vars"],
                     max_rows=t["max_rows"], options=t["options"], seconds=t["seconds"]))
    return rows


def level_table(levels):
    head = (f"{'level':<6}{'clusters':>9}{'units':>7}{'solves':>8}{'optimal':>8}{'timeout':>8}{'infeas.':>8}"
            f"{'vars':>7}{'rows':>7}{'options':>8}{'seconds':>9}")
    out = [f"H-ILP by level ({levels['clusters']} clusters, partitioned in {levels['partition_seconds']:.2f} s; "
           f"returned {levels['winner'] or 'nothing'}):", head]
    for r in level_rows(levels):
        out.append(f"{r['level']:<6}{r['clusters']:>9}{r['units']:>7}{r['solves']:>8}{r['optimal']:>8}"
                   f"{r['timed_out']:>8}{r['infeasible']:>8}{r['max_vars']:>7}{r['max_rows']:>7}{r['options']:>8}"
                   f"{r['seconds']:>9.2f}")
    return out
