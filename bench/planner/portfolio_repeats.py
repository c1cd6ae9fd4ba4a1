#!/usr/bin/env python3
"""The portfolio against its components, run several times per cell (issue 21: `hiremate` at most 0.05
points above the best of its components alone). The anytime MILP searches (the H-ILPs, the flat MILP)
end where the time limit cuts them, so one run of a cell is one draw: this runs every solver `--repeat`
times per cell, rotating which goes first so that load drifts hit all alike, and reports per solver the
median and the range of the overhead, and hiremate's median minus the best component's median.

Usage: bench/planner/portfolio_repeats.py --cells unet:100:35,unet:100:25 [--solvers hiremate,hilp,checkmate]
           [--time-limit 30] [--threads 2] [--repeat 3] --out bench/results/X.md
A cell is SHAPE:SIZE:BUDGET (a generated training graph of benchlib.SIZES, the budget in % of keep-all).
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchlib import HIREMATE, SIZES, generate, provenance, provenance_lines, solve  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", required=True, help="SHAPE:SIZE:BUDGET, comma-separated")
    ap.add_argument("--solvers", default="hiremate,hilp,twremat,checkmate",
                    help="hiremate first, then the components to compare it with")
    ap.add_argument("--time-limit", type=float, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    solvers = a.solvers.split(",")
    if solvers[0] != "hiremate":
        sys.exit("portfolio_repeats: --solvers must begin with hiremate (the portfolio), then its components")
    if not os.path.exists(HIREMATE):
        sys.exit(f"portfolio_repeats: build first ({HIREMATE} is missing)")
    cells = []
    for c in a.cells.split(","):
        shape, size, budget = c.split(":")
        if shape not in SIZES or int(size) not in SIZES[shape]:
            sys.exit(f"portfolio_repeats: no {size}-node {shape} in benchlib.SIZES")
        cells.append((shape, int(size), budget))
    lines = ["# The portfolio against its components, repeated", ""] + provenance_lines(provenance(binary=HIREMATE)) + [
        "", f"{a.time_limit:g} s, {a.threads} threads, {a.repeat} runs per solver and cell (the order rotated per "
        "run). Cells: median overhead (time over keep-all) [lowest - highest] of the runs with a plan, and how "
        "many runs had one; `gap`: hiremate's median minus the best component's median, in points.", "",
        "| graph | compute nodes | budget | " + " | ".join(solvers) + " | gap |",
        "|---|---|---|" + "---|" * len(solvers) + "---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for shape, size, budget in cells:
            path = os.path.join(tmp, f"{shape}-{size}.json")
            generate(shape, SIZES[shape][size], path)
            nodes = len(json.load(open(path))["compute"])
            runs = {s: [] for s in solvers}
            for r in range(a.repeat):
                order = solvers[r % len(solvers):] + solvers[:r % len(solvers)]
                for s in order:
                    res = solve(path, s, budget + "%", a.time_limit, threads=a.threads)
                    runs[s].append(res.get("overhead_percent"))
                    print(f"{shape}-{size} {budget} % {s} run {r + 1}: {res.get('overhead_percent', res.get('status'))}",
                          file=sys.stderr, flush=True)
            medians, cols = {}, []
            for s in solvers:
                got = [o for o in runs[s] if o is not None]
                if got:
                    medians[s] = statistics.median(got)
                    cols.append(f"{medians[s]:.2f} % [{min(got):.2f} - {max(got):.2f}] ({len(got)}/{a.repeat})")
                else:
                    cols.append(f"no plan (0/{a.repeat})")
            parts = [medians[s] for s in solvers[1:] if s in medians]
            gap = f"{medians['hiremate'] - min(parts):+.2f}" if "hiremate" in medians and parts else "-"
            lines.append(f"| {shape}-{size} | {nodes} | {budget} % | " + " | ".join(cols) + f" | {gap} |")
            open(a.out, "w").write("\n".join(lines) + "\n")
    open(a.out, "w").write("\n".join(lines) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
