#!/usr/bin/env python3
"""Runs solvers for generic DAGs (hiremate solve --solver checkmate, dagremat, ...) on the public
benchmark graphs at 90, 80 and 70 % of peak(order) and writes a markdown table beside the published
Checkmate, Moccasin and FastSA cells of ../shared/benchmarks/expected.json.

Usage: bench/checkmate_table.py [--solvers checkmate,dagremat] [--graphs rl1-n100,fcn8-b32-train]
                                [--budgets 90,80,70] [--time-limit 600] [--threads 2]
                                [--out bench/results/checkmate.md] [--append]
A graph named dense-nN-wW-sS is generated (`hiremate generate random --dag -n N --width-ratio W
--seed S`: the public random layered family, edge density 0.2, skip density 0.14, issue 23's dense
graphs with W 0.45-0.5) into a temporary folder; budgets of any percentage are ceil(p x peak(order)),
as expected.json's are.
--append adds a dated section (its own provenance and table) under what --out holds instead of
replacing the file, so that the rows of a slow solver and of a fast one can be run separately.
Every table is headed by its run's provenance (benchlib.provenance: commit and dirty flag, date,
machine, exact command, CBC's version read from the library).
Every number of ours is measured in this run, in Checkmate's fixed-order memory model (the graphs
are imported as generic DAGs, as the published results were obtained).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import benchlib  # noqa: E402
from benchlib import provenance, provenance_lines, published_cell as cell, shared_dir  # noqa: E402

DENSE = re.compile(r"^dense-n(\d+)-w([0-9.]+)-s(\d+)$")


def graph_entry(name, expected, tmp):
    """expected.json's entry for a public graph, or a generated dense graph's (file, peak_order, sum_cost)."""
    if name in expected:
        return expected[name]
    m = DENSE.match(name)
    if not m:
        sys.exit(f"bench: unknown graph {name} (a public one from expected.json, or dense-nN-wW-sS)")
    path = benchlib.generate("random", ["--dag", "-n", m.group(1), "--width-ratio", m.group(2), "--seed", m.group(3)],
                             os.path.join(tmp, name + ".json"))
    inf = benchlib.info(path)
    return {"file": path, "peak_order": inf["baseline_peak"], "sum_cost": inf["baseline_time"], "budgets": {}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--solvers", default="checkmate", help="comma-separated solver names")
    ap.add_argument("--append", action="store_true", help="add the rows to the existing --out file")
    ap.add_argument("--graphs", default="rl1-n100,fcn8-b32-train,resnet50-b256-train,rl2-n250")
    ap.add_argument("--budgets", default="90,80,70")
    ap.add_argument("--time-limit", type=float, default=600)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hiremate", default=os.path.join(ROOT, "build", "hiremate"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "checkmate.md"))
    args = ap.parse_args()
    benchlib.HIREMATE = args.hiremate
    prov = provenance(binary=args.hiremate)  # at the start: the commit and tree the rows are measured with
    bench = shared_dir()
    expected = json.load(open(os.path.join(bench, "expected.json")))["graphs"]
    tmp = tempfile.mkdtemp(prefix="checkmate_table_")
    entries = {g: graph_entry(g, expected, tmp) for g in args.graphs.split(",")}
    rows = []
    for name, solver in [(g, s) for g in args.graphs.split(",") for s in args.solvers.split(",")]:
        e = entries[name]
        path = os.path.join(bench, e["file"])
        for pct in args.budgets.split(","):
            budget = e["budgets"].get(pct) or math.ceil(int(pct) * e["peak_order"] / 100)
            cmd = [args.hiremate, "solve", path, "--solver", solver, "--budget", str(budget),
                   "--time-limit", str(args.time_limit), "--threads", str(args.threads), "--json"]
            print(f"bench: {solver} on {name} at {pct} % ({budget} bytes), limit {args.time_limit} s ...", file=sys.stderr, flush=True)
            start = time.time()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.time() - start
            if proc.returncode not in (0, 3, 4):  # 3: proven infeasible, 4: no plan found
                print(proc.stderr, file=sys.stderr)
                rows.append((name, solver, pct, budget, "error", "", "", "", "", f"{wall:.1f}", e))
                continue
            r = json.loads(proc.stdout)
            ok = r["valid"]
            ci = f"{r['overhead_percent']:.2f}" if ok else "-"
            peak = f"{100.0 * r['peak'] / e['peak_order']:.1f}" if ok else "-"
            bound = "-"
            if r["bound"] is not None:
                bound = f"{100.0 * (r['bound'] - e['sum_cost']) / e['sum_cost']:.2f}"
            gap = f"{100 * r['gap']:.2f}" if r["gap"] is not None else "-"
            rows.append((name, solver, pct, budget, r["status"], ci, peak, bound, gap, f"{r['solve_seconds']:.1f}", e))
            print(f"bench:   {r['status']}, CI {ci} %, peak {peak} %, bound {bound} %, {r['solve_seconds']:.1f} s",
                  file=sys.stderr, flush=True)
    run = provenance_lines(prov)
    header = ["| graph | solver | budget | status | CI % | peak % | bound (CI %) | gap % | solve s | Checkmate (pub.) "
              "| Moccasin (pub.) | FastSA (pub.) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    table = []
    for name, solver, pct, budget, status, ci, peak, bound, gap, secs, e in rows:
        pub = e.get("published", {}).get(pct)
        table.append(f"| {name} | {solver} | {pct} % ({budget}) | {status} | {ci} | {peak} | {bound} | {gap} | {secs} | "
                     f"{cell(pub, 'checkmate')} | {cell(pub, 'moccasin')} | {cell(pub, 'fastsa')} |")
    if args.append and os.path.exists(args.out):
        lines = open(args.out).read().rstrip("\n").split("\n")
        lines += ["", f"## Run of {prov['date']}", ""] + run + [""] + header + table
    else:
        lines = [
            "# Generic-DAG solvers on the public graphs",
            "",
        ] + run + [
            "",
            "Our columns are measured in Checkmate's fixed-order model (generic DAG import), like the published ones.",
            "CI = compute increase over the sum of costs; bound = the solver's proven lower bound, as a CI.",
            "Published cells: CI % / peak % of peak(order) / seconds (Checkmate on Gurobi, Moccasin on CP-SAT with",
            "16 workers, FastSA free order); TLE = no solution within their limit; - = not reported.",
            "",
        ] + header + table
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"bench: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
