#!/usr/bin/env python3
"""A/B of two hiremate CLIs (two commits, or a change and its base) on generated training graphs: per
cell (graph, budget) both run the same solver under the same limit and threads, one after the other,
alternating which goes first, so that load drifts hit both alike. Writes a markdown table with both
overheads and B - A per cell, and their mean.

Usage: bench/planner/ab_binaries.py --a /tmp/hiremate-base --a-label 9e3ba9d --b build/hiremate
           --b-label HEAD [--solver hilp] [--sizes 500,1200] [--shapes transformer,unet,encoder_decoder]
           [--budgets 35,25] [--time-limit 30] [--threads 2] [--repeat 1] --out bench/results/X.md
The labels are what the file records about each binary (say which commit it was built at); the
provenance lines are the checkout's. The graphs are generated once, by B; both solve the same files.
"""
import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchlib import SIZES, generate, provenance, provenance_lines, solve  # noqa: E402


def overhead(r):
    return r.get("overhead_percent") if r else None


def cell(r):
    o = overhead(r)
    return f"{o:.2f} %" if o is not None else r.get("status", "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the first CLI (the base)")
    ap.add_argument("--a-label", required=True, help="what the first CLI is, e.g. the commit it was built at")
    ap.add_argument("--b", required=True, help="the second CLI (the change)")
    ap.add_argument("--b-label", required=True)
    ap.add_argument("--solver", default="hilp")
    ap.add_argument("--sizes", default="500,1200")
    ap.add_argument("--shapes", default="transformer,unet,encoder_decoder")
    ap.add_argument("--budgets", default="35,25", help="percentages of the keep-all peak, comma-separated")
    ap.add_argument("--time-limit", type=float, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each CLI per cell (each run its own row)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    for path in (a.a, a.b):
        if not os.path.exists(path):
            sys.exit(f"ab_binaries: {path} does not exist (build it first)")
    lines = [f"# A/B: {a.a_label} against {a.b_label}", ""] + provenance_lines(provenance(binary=a.b)) + [
        "", f"`--solver {a.solver}`, {a.time_limit:g} s, {a.threads} threads. A: `{a.a}` ({a.a_label}); "
        f"B: `{a.b}` ({a.b_label}). Cells: overhead (time over keep-all); B - A in points (negative: B better).",
        "", "| graph | compute nodes | budget | run | A | B | B - A |", "|---|---|---|---|---|---|---|"]
    deltas = []
    turn = 0
    with tempfile.TemporaryDirectory() as tmp:
        for shape in a.shapes.split(","):
            for size in [int(s) for s in a.sizes.split(",")]:
                if size not in SIZES[shape]:
                    sys.exit(f"ab_binaries: no {size}-node {shape} in benchlib.SIZES")
                path = os.path.join(tmp, f"{shape}-{size}.json")
                generate(shape, SIZES[shape][size], path, binary=a.b)
                nodes = len(json.load(open(path))["compute"])
                for budget in a.budgets.split(","):
                    for run in range(a.repeat):
                        order = [("A", a.a), ("B", a.b)] if turn % 2 == 0 else [("B", a.b), ("A", a.a)]
                        turn += 1
                        res = {k: solve(path, a.solver, budget + "%", a.time_limit, threads=a.threads, binary=b)
                               for k, b in order}
                        oa, ob = overhead(res["A"]), overhead(res["B"])
                        d = "-"
                        if oa is not None and ob is not None:
                            deltas.append(ob - oa)
                            d = f"{ob - oa:+.2f}"
                        lines.append(f"| {shape}-{size} | {nodes} | {budget} % | {run + 1} | {cell(res['A'])} | "
                                     f"{cell(res['B'])} | {d} |")
                        print(lines[-1], file=sys.stderr, flush=True)
                        open(a.out, "w").write("\n".join(lines) + "\n")
    if deltas:
        better = sum(d < -0.005 for d in deltas)
        worse = sum(d > 0.005 for d in deltas)
        lines += ["", f"Over {len(deltas)} cells with both plans: B - A mean {sum(deltas) / len(deltas):+.2f} points; "
                  f"B better in {better}, worse in {worse}, equal in {len(deltas) - better - worse}."]
    open(a.out, "w").write("\n".join(lines) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
