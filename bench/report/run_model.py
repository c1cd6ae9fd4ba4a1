#!/usr/bin/env python3
"""Runs one job of the models suite (suites.py) in its own process: one example model
(examples/models), every solver at every budget, so that the ratios of one model come from one run.

Usage: bench/report/run_model.py JOB.json RESULT.json
Traces the model (examples/models/trace.py) and profiles it once (`hiremate profile`); then per
budget and solver `hiremate train --times-from` that profile (benchlib.train): the solver plans on
the profile's node times (each run's sizes are its own capture's, and equal), the executor trains
`steps` SGD steps beside plain PyTorch, and the row gets the simulated overhead and peak, the
measured peak, the step times of both, the solve time and the status. With "lowest" in the job, the
lowest budget its solver finds feasible (benchlib.lowest_feasible, one step per try) is added as a
last budget, "lowest". The result has the shape of run_graph.py's; "info" is `hiremate info` of the
profile with baseline_peak the keep-all *activation* peak (sources excluded, as `train` counts).
Progress goes to stderr: model, solver, budget, the elapsed time of the whole job.
"""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

THREADS = 1  # torch intra-op threads: steadier times on a shared machine, and what the profile used


def row(r, label, fraction, solver, limit):
    """`hiremate train --json` as a report row (the fields tables.py reads for `hiremate solve` rows).
    train plans through solve_checked: a plan it returns was accepted by the simulator (valid)."""
    r = dict(r, budget_bytes=r.get("budget"), budget=label, budget_fraction=fraction, solver=solver, limit=limit)
    if "simulated_time" in r:
        r.update(valid=True, peak=r["simulated_peak"], baseline_peak=r["keep_all_peak"],
                 overhead_percent=100.0 * (r["simulated_time"] / r["keep_all_time"] - 1.0))
    return r


def run(job, tmp):
    t0 = time.time()

    def log(msg):
        print(f"[models {job['name']} +{time.time() - t0:6.1f} s] {msg}", file=sys.stderr, flush=True)

    model, inputs = benchlib.trace([job["name"]], tmp)[job["name"]]
    graph = benchlib.profile(model, inputs, os.path.join(tmp, job["name"] + ".graph.json"), THREADS)
    info = benchlib.info(graph)
    log(f"traced and profiled: {info['nodes']} compute nodes")
    budgets = [list(b) for b in job["budgets"]]
    if job.get("lowest"):
        solver, halvings = job["lowest"]

        def feasible(f):
            r = benchlib.train(model, inputs, solver, f, job["limits"].get(solver, 10), 1, THREADS, graph)
            return "simulated_time" in r

        low = benchlib.lowest_feasible(feasible, halvings)
        log(f"lowest budget {solver} finds feasible: {float(low) * 100:.1f} % ({halvings} halvings)")
        budgets.append(["lowest", low])
    cap, deadline = job.get("checkmate_max_nodes"), job.get("deadline")
    runs = []
    for label, budget in budgets:
        for s in job["solvers"]:
            limit = job["limits"][s]
            reason = job["skip"].get(s)
            if reason is None and s == "checkmate" and cap and info["nodes"] > cap:
                reason = f"the flat MILP is not run above {cap} compute nodes"
            if reason is None and deadline and time.time() + limit > deadline:
                reason = f"not run: the {job['budget_minutes']:g}-minute budget of this report was spent"
            if reason:
                runs.append({"budget": label, "solver": s, "status": "skipped", "note": reason})
                continue
            log(f"{s} at {label} % (limit {limit:g} s, {job['steps']} steps) ...")
            r = row(benchlib.train(model, inputs, s, budget, limit, job["steps"], THREADS, graph), label, budget, s, limit)
            runs.append(r)
            if "simulated_time" in r:
                log(f"{s} at {label} %: {r['status']}, {r['overhead_percent']:.2f} % simulated overhead, measured "
                    f"peak {r['measured_peak']} B (simulated {r['simulated_peak']}), step {r['step_time'] * 1e3:.1f} ms "
                    f"(plain {r['plain_step_time'] * 1e3:.1f}), {r['wall']:.1f} s")
            else:
                log(f"{s} at {label} %: {r['status']}, {(r.get('note') or '')[:120]}, {r['wall']:.1f} s")
    keep_all = next((r["keep_all_peak"] for r in runs if "keep_all_peak" in r), None)
    if keep_all is not None:
        info["baseline_peak"] = keep_all
        info["baseline_time"] = next(r["keep_all_time"] for r in runs if "keep_all_time" in r)
    return dict(job, info=info, runs=runs, wall=time.time() - t0)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    job = json.load(open(sys.argv[1]))
    with tempfile.TemporaryDirectory() as tmp:
        result = run(job, tmp)
    with open(sys.argv[2], "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
