"""Helpers shared by the benchmark scripts: where the binary and the public graphs are, how to run
one `hiremate solve` / `info` / `generate` and read its JSON, how to print a published cell, and
the generator arguments that give graphs of a given number of compute nodes.

Import it from a script in bench/ or below with:
    sys.path.insert(0, <path of bench/>); import benchlib
Nothing here writes files except `generate`.
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIREMATE = os.environ.get("HIREMATE", os.path.join(ROOT, "build", "hiremate"))

# Generator arguments that give about N compute nodes (training graphs: 2 per op plus the loss).
SIZES = {
    "transformer": {100: ["-n", "3"], 500: ["-n", "18"], 2000: ["-n", "71"], 5000: ["-n", "178"]},
    "unet": {100: ["-n", "4", "--convs", "4"], 500: ["-n", "4", "--convs", "27"], 2000: ["-n", "4", "--convs", "110"],
             5000: ["-n", "4", "--convs", "277"]},
    "encoder_decoder": {100: ["-n", "1"], 500: ["-n", "7"], 2000: ["-n", "27"], 2500: ["-n", "34"], 5000: ["-n", "67"]},
    "chain": {100: ["-n", "50"], 500: ["-n", "250"], 2000: ["-n", "1000"], 5000: ["-n", "2500"]},
}


def shared_dir():
    """The shared benchmarks/ folder (../shared next to the checkout, else /work/shared)."""
    for d in (os.path.join(ROOT, "..", "shared"), "/work/shared"):
        if os.path.exists(os.path.join(d, "benchmarks", "expected.json")):
            return os.path.normpath(os.path.join(d, "benchmarks"))
    sys.exit("bench: no ../shared/benchmarks/expected.json found")


def shared_graphs():
    return os.path.join(shared_dir(), "graphs")


def expected():
    """expected.json's per-graph entries (file, peak_order, sum_cost, budgets, published cells)."""
    return json.load(open(os.path.join(shared_dir(), "expected.json")))["graphs"]


def published_cell(published, solver):
    """A published cell as 'CI / peak % / s', 'TLE' (no solution in their limit) or '-' (not reported)."""
    c = (published or {}).get(solver)
    if c is None:
        return "-" if published is None or solver not in published else "TLE"
    return f"{c['ci_percent']} / {c['peak_percent']} / {c['seconds']}"


def require_binary():
    if not os.path.exists(HIREMATE):
        sys.exit(f"bench: build first ({HIREMATE} is missing)")


def solve(graph, solver, budget, limit, extra=(), threads=None, kill_after=None):
    """Runs `hiremate solve ... --json`; returns its JSON plus `wall` (s) and `exit`. A refusal (exit 2)
    or a crash gives {"status": "refused" or "error", "note": the last stderr line}; a solve still
    running after kill_after seconds (default 1.5 x limit + 120) is killed: {"status": "killed"}."""
    kill_after = kill_after or limit * 1.5 + 120
    cmd = [HIREMATE, "solve", graph, "--solver", solver, "--budget", str(budget), "--time-limit", str(limit),
           "--json", *extra]
    if threads:
        cmd += ["--threads", str(threads)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=kill_after)
    except subprocess.TimeoutExpired:
        return {"status": "killed", "note": f"still running after {kill_after:.0f} s (limit {limit:g} s): killed",
                "wall": time.time() - t0, "solve_seconds": time.time() - t0, "exit": None}
    wall = time.time() - t0
    try:
        out = json.loads(p.stdout)
    except json.JSONDecodeError:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        out = {"status": "refused" if p.returncode == 2 else "error", "note": last}
    out["wall"] = wall
    out["exit"] = p.returncode
    return out


def info(graph, extra=()):
    """`hiremate info GRAPH --json`: nodes, baseline_peak, baseline_time, memory_model, ..."""
    p = subprocess.run([HIREMATE, "info", graph, "--json", *extra], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def generate(kind, args, path):
    """Writes `hiremate generate KIND ARGS -o PATH`."""
    subprocess.run([HIREMATE, "generate", kind, *args, "-o", path], check=True, capture_output=True)
    return path
