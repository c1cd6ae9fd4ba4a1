#!/usr/bin/env python3
"""How far below the keep-all peak a generic DAG can go with cheap drops only (issue 23).

Usage: bench/solvers/cheap_drops.py GRAPH.json [--budgets 90,85,80,70] [--out FILE]

In Checkmate's fixed-order model (the graph's order; every value freed after its last reader), at
the stage where keep-all memory peaks it counts:
- the resident values, and those held only for readers two or more layers on (skip connections;
  layer = longest path from a source);
- the *cheap* ones: values whose inputs are all still resident after that stage (their last readers
  come later), so that dropping one and recomputing it before its next read costs its own time only.
A budget below peak - (cheap bytes) needs some recomputation whose inputs are gone: a cone of
recomputations. This is the knee where dagremat's plans on dense DAGs get costly.
With --budgets (percentages of the keep-all peak), over every stage rather than the peak's: the
*excess* (the bytes keep-all holds above the budget, summed over the stages) and the most of it that
one-op recomputations can relieve: each value dropped after each read (or its computation) and
recomputed at the latest stage before its next read where its inputs are all still resident in
keep-all. An upper bound: it lets every such drop happen at once, though dropping a value's input
takes that input away from its own recomputation. What it leaves is relieved only by recomputing
cones or by holding inputs past their last read.
Prints a markdown block headed by the run's provenance (benchlib.provenance); --out appends it to a file.
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchlib  # noqa: E402


def analyse(path):
    with open(path) as f:
        g = json.load(f)
    order = g["order"]
    pos = {name: i for i, name in enumerate(order)}
    size = {d["name"]: d["bytes"] for d in g["data"]}
    preds = {c["name"]: c["deps"] for c in g["compute"]}
    outputs = {c["name"]: c["outputs"] for c in g["compute"]}
    if any(len(o) != 1 for o in outputs.values()):
        sys.exit("cheap_drops: a generic DAG (one output per compute node, as `generate random --dag` writes) is expected")
    producer = {outputs[c][0]: c for c in preds}
    users = collections.defaultdict(list)
    for c, ds in preds.items():
        for d in ds:
            users[producer[d]].append(c)
    layer = {}
    for c in order:
        layer[c] = 1 + max((layer[producer[d]] for d in preds[c]), default=-1)
    last = {c: max((pos[u] for u in users[c]), default=pos[c]) for c in order}
    mem = peak = at = 0
    freed = collections.defaultdict(list)
    for c in order:
        freed[last[c]].append(c)
    for i, c in enumerate(order):
        mem += size[outputs[c][0]]
        if mem > peak:
            peak, at = mem, i
        for f in freed[i]:
            mem -= size[outputs[f][0]]
    live = [c for c in order if pos[c] < at < last[c]]
    skip = [c for c in live if all(layer[u] - layer[c] > 1 for u in users[c] if pos[u] > at)]
    cheap = [c for c in live if preds[c] and min(last[producer[d]] for d in preds[c]) > at]
    nbytes = lambda cs: sum(size[outputs[c][0]] for c in cs)
    # Keep-all memory per stage (values computed at or before it and read at or after it), and the
    # bytes one-op recomputations can take out of each stage (see the module's docstring).
    n = len(order)
    diff = [0] * (n + 1)
    relief = [0] * (n + 1)
    for c in order:
        b = size[outputs[c][0]]
        diff[pos[c]] += b
        diff[last[c] + 1] -= b
        inputs_until = min((last[producer[d]] for d in preds[c]), default=n)
        lo = pos[c]
        for hi in sorted(pos[u] for u in users[c]):
            r = min(hi, inputs_until)
            if r - lo >= 2:  # stages lo+1 .. r-1 relieved
                relief[lo + 1] += b
                relief[r] -= b
            lo = hi
    memory, cheap_relief, m, rl = [], [], 0, 0
    for i in range(n):
        m += diff[i]
        rl += relief[i]
        memory.append(m)
        cheap_relief.append(rl)
    return {
        "graph": os.path.basename(path), "nodes": len(order), "layers": max(layer.values()) + 1,
        "peak": peak, "stage": at, "resident": len(live), "resident_bytes": nbytes(live),
        "skip": len(skip), "skip_bytes": nbytes(skip), "cheap": len(cheap), "cheap_bytes": nbytes(cheap),
        "memory": memory, "cheap_relief": cheap_relief,
    }


def excess_cover(r, percent):
    """Stages over the budget, their excess (byte-stages), and the most of it one-op recomputations relieve."""
    cap = percent / 100 * r["peak"]
    over = [max(0.0, m - cap) for m in r["memory"]]
    covered = sum(min(o, c) for o, c in zip(over, r["cheap_relief"]))
    return sum(o > 0 for o in over), sum(over), covered


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph")
    ap.add_argument("--budgets", default="", help="percentages of the keep-all peak, comma-separated")
    ap.add_argument("--out")
    a = ap.parse_args()
    r = analyse(a.graph)
    lines = ["", *benchlib.provenance_lines(benchlib.provenance()), "",
             f"- {r['graph']}: {r['nodes']} nodes, {r['layers']} layers; keep-all peak {r['peak']} bytes at stage {r['stage']}",
             f"- resident there: {r['resident']} values ({r['resident_bytes']} bytes); held only for skip connections: "
             f"{r['skip']} ({r['skip_bytes']} bytes, {100 * r['skip_bytes'] / r['peak']:.1f} % of the peak)",
             f"- cheap drops (inputs still resident after the stage): {r['cheap']} values, {r['cheap_bytes']} bytes = "
             f"{100 * r['cheap_bytes'] / r['peak']:.1f} % of the peak: below about "
             f"{100 * (1 - r['cheap_bytes'] / r['peak']):.1f} % of the peak every plan recomputes cones"]
    for p in [float(b) for b in a.budgets.split(",") if b]:
        stages, excess, covered = excess_cover(r, p)
        share = 100 * covered / excess if excess else 100.0
        lines.append(f"- at {p:g} % of the peak: {stages} stages over it, excess {excess:.0f} byte-stages; one-op "
                     f"recomputations relieve at most {share:.1f} % of it")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
