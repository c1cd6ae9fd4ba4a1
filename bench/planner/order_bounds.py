#!/usr/bin/env python3
"""Where RK-Checkmate's bound is not a bound: on training graphs with more than one topological order,
checkmate's MILP fixes the order of first computations to the graph's, so its optimum and its bound
hold over that order only; TW-Remat (which reorders) and the hierarchy can beat both. Per graph and
budget: checkmate's plan, its reported `bound` (the loss-point or chain bound where the order is not forced),
its `model_bound` (CBC's, over the graph's order: what checkmate reported as `bound` before), and the
best plan of the other solvers; a row where that plan is faster than the model bound is one where the
old `bound` was no lower bound.

Usage: bench/planner/order_bounds.py [--time-limit 20] [--budgets 90,70,50,35,25] [--out FILE]
"""
import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchlib import SIZES, generate, provenance, provenance_lines, require_binary, solve  # noqa: E402

GRAPHS = [
    ("transformer-100", "transformer", SIZES["transformer"][100]),
    ("unet-100", "unet", SIZES["unet"][100]),
    ("encoder_decoder-100", "encoder_decoder", SIZES["encoder_decoder"][100]),
    ("random -n 12 --seed 21", "random", ["-n", "12", "--seed", "21"]),
    ("random -n 70 --seed 3", "random", ["-n", "70", "--seed", "3"]),
]
OTHERS = ["twremat", "hilp"]


def pct(x, base):
    return None if x is None else 100.0 * (x / base - 1)


def fmt(x):
    return "-" if x is None else f"{x:.2f} %"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--time-limit", type=float, default=20)
    ap.add_argument("--budgets", default="90,70,50,35,25")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "order_bounds.md"))
    args = ap.parse_args()
    require_binary()
    prov = provenance()
    rows, beaten, bounded = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for label, kind, gargs in GRAPHS:
            path = generate(kind, gargs, os.path.join(tmp, f"{kind}.json"))
            for b in args.budgets.split(","):
                cm = solve(path, "checkmate", f"{b}%", args.time_limit, threads=args.threads)
                base = cm.get("baseline_time")
                if not base:
                    rows.append(f"| {label} | {b} % | {cm['status']} | - | - | - | - | - |")
                    continue
                best, who = None, "-"
                for s in OTHERS:
                    r = solve(path, s, f"{b}%", args.time_limit, threads=args.threads)
                    if r.get("overhead_percent") is not None and (best is None or r["overhead_percent"] < best):
                        best, who = r["overhead_percent"], s
                model = pct(cm.get("model_bound"), base)
                bounded += model is not None
                below = model is not None and best is not None and best < model - 1e-9
                beaten += below
                rows.append(f"| {label} | {b} % | {cm['status']} {fmt(cm.get('overhead_percent'))} | "
                            f"{fmt(pct(cm.get('bound'), base))} | {fmt(model)} | {fmt(best)} ({who}) | "
                            f"{'**yes**' if below else 'no'} |")
                print(rows[-1], file=sys.stderr)
    lines = ["# RK-Checkmate's bound over the graph's order, against plans in other orders", "",
             *provenance_lines(prov), "",
             f"checkmate, {' and '.join(OTHERS)} at {args.time_limit:g} s, {args.threads} threads, per budget (% of "
             "the keep-all activation peak). `bound`: what checkmate reports (the loss-point or chain bound where the graph "
             "has other orders, valid for every schedule); `model bound`: CBC's over the graph's order "
             "(`model_bound` in --json; reported as `bound` before ec370ad); `best other`: the fastest plan of the "
             "other solvers; `below`: that plan beats the model bound, so it was no lower bound. Overheads over "
             "keep-all.", "",
             "| graph | budget | checkmate | bound | model bound | best other | below |",
             "|---|---|---|---|---|---|---|", *rows, "",
             f"Rows with a model bound: {bounded}; beaten by a plan in another order: {beaten}."]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[-1:]))


if __name__ == "__main__":
    main()
