"""Helpers shared by the benchmark scripts: where the binary and the public graphs are, how to run
one `hiremate solve` / `info` / `generate` and read its JSON, how to print a published cell, and
the generator arguments that give graphs of a given number of compute nodes.

The torch side (needs the build's LibTorch plugin and Debian's python3-torch): `trace` the example
models, `profile` one, `train` it under a budget with a solver (`hiremate train --json`), and
`lowest_feasible`, the bisection on the budget fraction that bench/torch/budgets.py and the report's
models suite share.

Import it from a script in bench/ or below with:
    sys.path.insert(0, <path of bench/>); import benchlib
`provenance()` is what every results file records about its run (commit and dirty flag, date,
machine, exact command, CBC's version read from the library). Nothing here writes files except
`generate`.
"""
import ctypes
import ctypes.util
import json
import os
import platform
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIREMATE = os.environ.get("HIREMATE", os.path.join(ROOT, "build", "hiremate"))

# Generator arguments that give about N compute nodes (training graphs: 2 per op plus the loss).
SIZES = {
    "transformer": {100: ["-n", "3"], 500: ["-n", "18"], 1200: ["-n", "43"], 2000: ["-n", "71"], 5000: ["-n", "178"],
                    20000: ["-n", "712"]},
    "unet": {100: ["-n", "4", "--convs", "4"], 500: ["-n", "4", "--convs", "27"], 1200: ["-n", "4", "--convs", "64"],
             2000: ["-n", "4", "--convs", "110"],
             5000: ["-n", "4", "--convs", "277"], 20000: ["-n", "4", "--convs", "1108"]},
    "encoder_decoder": {100: ["-n", "1"], 500: ["-n", "7"], 1200: ["-n", "16"], 2000: ["-n", "27"], 2500: ["-n", "34"], 5000: ["-n", "67"],
                        20000: ["-n", "270"]},
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


def _git(*args):
    p = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else "?"


def cbc_version(binary=None):
    """CBC's version as reported by the library itself (Cbc_getVersion): the libCbcSolver that
    `binary` (default: the hiremate CLI) links, else the system's; '?' where neither loads."""
    path = None
    try:
        ldd = subprocess.run(["ldd", binary or HIREMATE], capture_output=True, text=True).stdout
        path = next((line.split("=>")[1].split()[0] for line in ldd.splitlines()
                     if "libCbcSolver" in line and "=>" in line), None)
    except (OSError, IndexError):
        pass
    try:
        get = ctypes.CDLL(path or ctypes.util.find_library("CbcSolver")).Cbc_getVersion
        get.restype = ctypes.c_char_p
        return f"{get().decode()} ({path or 'the system libCbcSolver'})"
    except (OSError, AttributeError, TypeError):
        return "?"


def provenance(argv=None, binary=None):
    """What a results file records about its run: the exact command (argv, default sys.argv, with the
    script relative to the checkout), the UTC date, the commit and whether the tree had uncommitted
    changes outside bench/results/, the machine, its load, and CBC's version from the library."""
    argv = list(sys.argv if argv is None else argv)
    if argv and os.path.isabs(argv[0]) and argv[0].startswith(ROOT + os.sep):
        argv[0] = os.path.relpath(argv[0], ROOT)
    cpu = "?"
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    except OSError:
        pass
    dirty = [l for l in _git("status", "--porcelain").splitlines() if "bench/results/" not in l]
    return {"command": " ".join(shlex.quote(a) for a in argv),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "commit": _git("rev-parse", "HEAD"), "dirty": bool(dirty),
            "machine": f"{platform.node()}: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
            "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
            "cbc": cbc_version(binary)}


def provenance_lines(p):
    """Markdown lines for a provenance(): one per fact, the commit line first."""
    return [f"- Commit: `{p['commit']}`" + (" with uncommitted changes (dirty tree)" if p["dirty"] else " (clean tree)"),
            f"- Date: {p['date']}",
            f"- Command: `{p['command']}`",
            f"- Machine: {p['machine']}; load average at the start: {p['load']}",
            f"- CBC: {p['cbc']}"]


def require_binary():
    if not os.path.exists(HIREMATE):
        sys.exit(f"bench: build first ({HIREMATE} is missing)")


def solve(graph, solver, budget, limit, extra=(), threads=None, kill_after=None, binary=None):
    """Runs `hiremate solve ... --json` (`binary`, default the build's CLI); returns its JSON plus `wall` (s) and `exit`. A refusal (exit 2)
    or a crash gives {"status": "refused" or "error", "note": the last stderr line}; a solve still
    running after kill_after seconds (default 1.5 x limit + 120) is killed: {"status": "killed"}."""
    kill_after = kill_after or limit * 1.5 + 120
    cmd = [binary or HIREMATE, "solve", graph, "--solver", solver, "--budget", str(budget), "--time-limit", str(limit),
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


def generate(kind, args, path, binary=None):
    """Writes `hiremate generate KIND ARGS -o PATH` (`binary`, default the build's CLI)."""
    subprocess.run([binary or HIREMATE, "generate", kind, *args, "-o", path], check=True, capture_output=True)
    return path


def torch_missing():
    """Why the models suite cannot run here (hiremate built without its LibTorch plugin, or no torch for
    Debian's python3 to trace with), or None when it can."""
    if not os.path.exists(os.path.join(os.path.dirname(HIREMATE), "libhiremate_torch_plugin.so")):
        return f"{HIREMATE} was built without LibTorch (install libtorch-dev and rebuild)"
    if subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode != 0:
        return "/usr/bin/python3 cannot import torch (install python3-torch) to trace the example models"
    return None


def trace(names, outdir):
    """examples/models/trace.py OUTDIR NAMES...: NAME.pt and NAME.inputs.pt per model (Debian's python3
    sees the torch the build links)."""
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "examples", "models", "trace.py"), outdir, *names],
                   check=True, capture_output=True)
    return {n: (os.path.join(outdir, n + ".pt"), os.path.join(outdir, n + ".inputs.pt")) for n in names}


def profile(model, inputs, out, threads=1):
    """`hiremate profile MODEL --inputs INPUTS --threads T -o OUT`: the measured training graph."""
    subprocess.run([HIREMATE, "profile", model, "--inputs", inputs, "--threads", str(threads), "-o", out],
                   check=True, capture_output=True)
    return out


def train(model, inputs, solver, budget, limit, steps, threads=1, times_from=None, kill_after=None):
    """Runs `hiremate train ... --json` (capture, profile, plan, execute beside plain PyTorch); returns
    its JSON plus `wall` and `exit`. No plan under the budget gives {"status": "infeasible", "note"}
    where that is proven (exit 3), {"status": "no_plan_found", "note"} where the solver gave up (exit 4);
    another refusal (exit 2: the solver does not apply) {"status": "refused", "note"}; a crash
    {"status": "error"}; still running after kill_after s (default 2 x limit + 60) {"status": "killed"}."""
    kill_after = kill_after or 2 * limit + 60
    cmd = [HIREMATE, "train", model, "--inputs", inputs, "--solver", solver, "--budget", str(budget),
           "--time-limit", str(limit), "--steps", str(steps), "--threads", str(threads), "--json"]
    if times_from:
        cmd += ["--times-from", times_from]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=kill_after)
    except subprocess.TimeoutExpired:
        return {"status": "killed", "note": f"still running after {kill_after:.0f} s (limit {limit:g} s): killed",
                "wall": time.time() - t0, "exit": None}
    try:
        out = json.loads(p.stdout)
    except json.JSONDecodeError:
        last = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        out = {"note": last}
    if "status" not in out:  # no plan: a parse failure above, or `--json`'s {"error", "exit_code"} object
        status = {2: "refused", 3: "infeasible", 4: "no_plan_found"}.get(p.returncode, "error")
        out = {"status": status, "note": out.get("error") or out.get("note") or f"exit {p.returncode}"}
    out["wall"] = time.time() - t0
    out["exit"] = p.returncode
    return out


def lowest_feasible(feasible, halvings):
    """Bisection on the budget fraction in (0, 1]: nothing fits in no memory, keep-all fits in 1.0.
    `feasible(fraction_string)` says whether a plan exists; returns the lowest feasible fraction found
    as a string ("0.3828"), within 2**-halvings of the true threshold (when feasibility is monotone)."""
    lo, hi = 0.0, 1.0
    for _ in range(halvings):
        mid = (lo + hi) / 2
        if feasible(f"{mid:.4f}"):
            hi = mid
        else:
            lo = mid
    return f"{hi:.4f}"
