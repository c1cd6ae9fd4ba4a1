#!/usr/bin/env python3
"""Benchmark of the hierarchical planner (issue 6): on generated training graphs of about 100, 500,
2,000 and 5,000 compute nodes (transformer layer chains, U-Nets, encoder-decoders), and on the
Checkmate-derived training graphs of ../shared/benchmarks, it runs `hiremate solve` with several
solvers under the same budget and writes a markdown table: overhead (time over keep-all), peak, solve
time and status per solver, and the gap of hiremate to the best plan any solver found.

Usage: bench/planner/planner_table.py [--sizes 100,500,2000,5000] [--shapes transformer,unet,encoder_decoder]
           [--budget 60] [--solvers hiremate,hilp,rockmate,twremat,checkmate] [--time-limit 120]
           [--large-time-limit 300] [--checkmate-max-nodes 600] [--public fcn8-b32-train,resnet50-b256-train]
           [--public-budgets 90,80,70] [--out bench/results/planner.md]
Every number is measured in this run on this machine (2 shared cores: compare within a row).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchlib import HIREMATE, SIZES, shared_graphs, solve  # noqa: E402


def cell(r):
    if r is None:
        return "skipped"
    if r.get("overhead_percent") is None:
        return f"{r['status']}"
    return f"{r['overhead_percent']:.2f} % / {100 * r['peak'] / r['baseline_peak']:.1f} % / {r['wall']:.1f} s"


def row(name, nodes, budget, solvers, results):
    best = min((r["overhead_percent"] for r in results.values() if r and r.get("overhead_percent") is not None),
               default=None)
    h = results.get("hiremate")
    gap = "-"
    if best is not None and h and h.get("overhead_percent") is not None:
        gap = f"{h['overhead_percent'] - best:+.2f}"
    return f"| {name} | {nodes} | {budget} % | " + " | ".join(cell(results.get(s)) for s in solvers) + f" | {gap} |"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100,500,2000,5000")
    ap.add_argument("--shapes", default="transformer,unet,encoder_decoder")
    ap.add_argument("--budget", default="60")
    ap.add_argument("--solvers", default="hiremate,hilp,rockmate,twremat,checkmate")
    ap.add_argument("--time-limit", type=float, default=120)
    ap.add_argument("--large-time-limit", type=float, default=300, help="for graphs of 1,000 compute nodes or more")
    ap.add_argument("--checkmate-max-nodes", type=int, default=600,
                    help="the flat MILP has O(nodes^2) variables: skipped above this")
    ap.add_argument("--public", default="fcn8-b32-train,resnet50-b256-train,vgg16-b256-train")
    ap.add_argument("--public-budgets", default="90,80,70")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "planner.md"))
    a = ap.parse_args()
    if not os.path.exists(HIREMATE):
        sys.exit(f"bench: build first ({HIREMATE} is missing)")
    solvers = a.solvers.split(",")
    lines = ["# Hierarchical planner benchmark", "",
             f"`bench/planner/planner_table.py` on {time.strftime('%Y-%m-%d')}, 2 shared cores. Cells: overhead "
             "(time over keep-all) / peak (% of keep-all) / wall seconds. `gap`: hiremate minus the best overhead "
             "of the row, in points.", "",
             "## Generated training graphs", "",
             "| graph | compute nodes | budget | " + " | ".join(solvers) + " | gap |",
             "|---|---|---|" + "---|" * len(solvers) + "---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for shape in a.shapes.split(","):
            for size in [int(s) for s in a.sizes.split(",")]:
                if size not in SIZES[shape]:
                    continue
                path = os.path.join(tmp, f"{shape}-{size}.json")
                subprocess.run([HIREMATE, "generate", shape, *SIZES[shape][size], "-o", path], check=True,
                               capture_output=True)
                nodes = len(json.load(open(path))["compute"])
                limit = a.large_time_limit if nodes >= 1000 else a.time_limit
                results = {}
                for s in solvers:
                    if s == "checkmate" and nodes > a.checkmate_max_nodes:
                        results[s] = None
                        continue
                    results[s] = solve(path, s, a.budget + "%", limit)
                    print(f"{shape} {nodes} {s}: {cell(results[s])}", file=sys.stderr, flush=True)
                lines.append(row(f"{shape}-{size}", nodes, a.budget, solvers, results))
                open(a.out, "w").write("\n".join(lines) + "\n")
    if a.public:
        lines += ["", "## Checkmate-derived training graphs (`--training`)", "",
                  "| graph | compute nodes | budget | " + " | ".join(solvers) + " | gap |",
                  "|---|---|---|" + "---|" * len(solvers) + "---|"]
        for name in a.public.split(","):
            path = os.path.join(shared_graphs(), name + ".json")
            for b in a.public_budgets.split(","):
                results = {}
                for s in solvers:
                    results[s] = solve(path, s, b + "%", a.time_limit, ["--training"])
                    print(f"{name} {b} {s}: {cell(results[s])}", file=sys.stderr, flush=True)
                lines.append(row(name, "-", b, solvers, results))
                open(a.out, "w").write("\n".join(lines) + "\n")
    open(a.out, "w").write("\n".join(lines) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
