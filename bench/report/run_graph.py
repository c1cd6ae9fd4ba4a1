#!/usr/bin/env python3
"""Runs one report job (one graph, see suites.py) in its own process: every solver at every budget,
one after the other, so that the ratios of one graph come from one run. Writes the results as JSON.

Usage: bench/report/run_graph.py JOB.json RESULT.json
The result is the job plus "info" (`hiremate info --json` of the graph: nodes, keep-all peak and
time, memory model) and "runs": [{"budget": label, "solver": name, ...`hiremate solve --json`...,
"wall": s}]; a solver not run has "status": "skipped" and the reason in "note"; one still running
at twice its time limit plus 10 s is killed ("status": "killed"); with "deadline" (epoch seconds) in
the job, a solve that could end after it is not started.
Progress goes to stderr: graph, solver, budget, the elapsed time of the whole job.
"""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402


def run(job, tmp):
    t0 = time.time()

    def log(msg):
        print(f"[{job['suite']} {job['name']} ({job['model']}) +{time.time() - t0:6.1f} s] {msg}", file=sys.stderr,
              flush=True)

    graph = job["graph"]
    if graph is None:
        graph = benchlib.generate(job["generate"][0], job["generate"][1:], os.path.join(tmp, job["name"] + ".json"))
    info = benchlib.info(graph, job["flags"])
    log(f"{info['nodes']} compute nodes, keep-all peak {info['baseline_peak']} bytes")
    cap = job.get("checkmate_max_nodes")
    runs = []
    deadline = job.get("deadline")
    for label, budget in job["budgets"]:
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
            log(f"{s} at {label} % (limit {limit:g} s) ...")
            r = benchlib.solve(graph, s, budget, limit, job["flags"], kill_after=2 * limit + 10)
            r["budget_bytes"] = r.get("budget")  # the solve's bytes; "budget" becomes the label
            r.update({"budget": label, "solver": s, "limit": limit})
            runs.append(r)
            ov = r.get("overhead_percent")
            shown = f"{ov:.2f} % overhead" if ov is not None else (r.get("note") or "")[:100]
            log(f"{s} at {label} %: {r['status']}, {shown}, {r['wall']:.1f} s")
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
