#!/usr/bin/env python3
"""The benchmark report (issue 10): runs the four suites of suites.py (the example PyTorch models
captured, planned and executed; public graphs beside the published cells; generated models over
budgets; solve time against size), one process per model or graph (run_model.py, run_graph.py),
then writes into bench/results/: README.md (every table, the plots, machine, date and
commit), one CSV per suite, the PNG plots, and raw.json (every measured row, to re-render from).

Usage: bench/report/report.py [--quick] [--suites models,public,generated,scale] [--out bench/results]
                              [--jobs N] [--render-only] [--models-file STEM]
`make bench` runs it in full (hours), `make bench-quick` with --quick (under 10 minutes on 2 cores:
two models or graphs at a time, then the scale suite alone).
--render-only rewrites the tables and plots from OUT/raw.json without solving anything.
Progress goes to stderr: which model or graph, which solver, at which budget, the elapsed time.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402
import suites  # noqa: E402


ALL_SUITES = "models,public,generated,scale"


def skip_after_limit(job, done):
    """Scale suite: a solver killed past its time limit, or out of time without a plan, on a smaller
    graph is not run on the larger ones (an anytime solver that returns a plan at its limit is)."""
    for res in done:
        if not res or res["suite"] != "scale":
            continue
        for r in res["runs"]:
            no_plan = r.get("overhead_percent") is None
            hit = r["status"] == "timed_out" or r.get("solve_seconds", 0) >= 0.97 * r.get("limit", float("inf"))
            if (r["status"] in ("killed", "error") or (hit and no_plan)) and r["solver"] not in job["skip"]:
                why = "killed" if r["status"] == "killed" else "no plan within its limit"
                job["skip"][r["solver"]] = (f"{why} at {res['info']['nodes']} nodes "
                                            f"(limit {r.get('limit', 0):g} s): not run on larger graphs")
            elif r["status"] == "skipped" and r["solver"] != "checkmate" and r["solver"] not in job["skip"]:
                job["skip"][r["solver"]] = r["note"]


def run_job(job, k, n, tmp, t0):
    print(f"[report {k}/{n} +{time.time() - t0:.0f} s] {job['suite']}: {job['name']} ({job['model']})",
          file=sys.stderr, flush=True)
    jpath, rpath = os.path.join(tmp, f"job{k}.json"), os.path.join(tmp, f"result{k}.json")
    json.dump(job, open(jpath, "w"))
    worker = "run_model.py" if job["suite"] == "models" else "run_graph.py"
    p = subprocess.run([sys.executable, os.path.join(HERE, worker), jpath, rpath])
    if p.returncode != 0:
        print(f"[report] {job['name']}: the worker failed (exit {p.returncode}); its rows are missing",
              file=sys.stderr, flush=True)
        return None
    return json.load(open(rpath))


def run_all(jobs, parallel, tmp):
    """Public and generated graphs, `parallel` at a time; then the scale suite, one at a time (its
    solve times are the result, and a solver that hit its limit is skipped on the larger graphs).
    In quick mode no solve starts that could end past the mode's budget_minutes."""
    t0 = time.time()
    for j in jobs:
        if j.get("budget_minutes"):
            j["deadline"] = t0 + 60 * j["budget_minutes"]
    first = [j for j in jobs if j["suite"] != "scale"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        futures = [pool.submit(run_job, j, k, len(jobs), tmp, t0) for k, j in enumerate(first, 1)]
        done = [f.result() for f in futures]
    for k, job in enumerate((j for j in jobs if j["suite"] == "scale"), len(first) + 1):
        skip_after_limit(job, done)
        done.append(run_job(job, k, len(jobs), tmp, t0))
    return [d for d in done if d], time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small graphs, short limits: under 10 minutes")
    ap.add_argument("--suites", default=ALL_SUITES, help=f"a comma-separated subset of {ALL_SUITES}")
    ap.add_argument("--out", default=os.path.join(benchlib.ROOT, "bench", "results"))
    ap.add_argument("--render-only", action="store_true", help="re-render from OUT/raw.json")
    ap.add_argument("--models-file", metavar="STEM", help="only the models suite, written to OUT/STEM.md, "
                    "OUT/STEM.csv and OUT/STEM.raw.json; nothing else in OUT is touched (README.md stays)")
    ap.add_argument("--jobs", type=int, help="models or graphs run at once, outside the scale suite (default: "
                    "1 in full mode, 2 in quick mode)")
    a = ap.parse_args()
    import render  # matplotlib: imported here so that --help works without it

    unknown = set(a.suites.split(",")) - set(ALL_SUITES.split(","))
    if unknown:
        ap.error(f"--suites: unknown suite(s) {', '.join(sorted(unknown))}; choose among {ALL_SUITES}")

    if a.models_file and a.suites != "models":
        ap.error("--models-file writes the models suite only: give --suites models")
    raw = os.path.join(a.out, a.models_file + ".raw.json" if a.models_file else "raw.json")
    if a.render_only:
        run = json.load(open(raw))
    else:
        benchlib.require_binary()
        mode = "quick" if a.quick else "full"
        cmd = "bench/report/report.py" + (" --quick" if a.quick else "") + \
            ("" if a.suites == ALL_SUITES else f" --suites {a.suites}") + \
            (f" --jobs {a.jobs}" if a.jobs else "") + (f" --models-file {a.models_file}" if a.models_file else "")
        parallel = a.jobs or suites.MODES[mode]["jobs"]
        chosen = a.suites.split(",")
        missing = benchlib.torch_missing() if "models" in chosen else None
        if missing:
            print(f"[report] models suite not run: {missing}", file=sys.stderr, flush=True)
            chosen.remove("models")
        meta = render.machine(cmd, mode)
        meta["models_missing"] = missing
        meta["parallel"] = parallel
        with tempfile.TemporaryDirectory() as tmp:
            results, wall = run_all(suites.jobs(mode, chosen), parallel, tmp)
        meta["wall_seconds"] = wall
        run = {"meta": meta, "results": results}
        os.makedirs(a.out, exist_ok=True)
        json.dump(run, open(raw, "w"), indent=1)
    if a.models_file:
        render.write_models_file(run, a.out, a.models_file)
        print(f"[report] wrote {a.out}/{a.models_file}.md", file=sys.stderr)
        return
    render.write_all(run, a.out)
    print(f"[report] wrote {a.out}/README.md ({run['meta']['wall_seconds']:.0f} s of solving)", file=sys.stderr)


if __name__ == "__main__":
    main()
