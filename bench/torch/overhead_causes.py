"""Why a plan's measured step overhead differs from the simulated one (issue 21), by measurement.

    /usr/bin/python3 bench/torch/overhead_causes.py [--hiremate build/hiremate] [--names gpt2,resnet]
        [--plans autograd:1.0,twremat:lowest,hiremate:lowest] [--steps 11] [--repeats 3] [--out FILE]
        [--profiles 5] [--old-raw bench/results/raw.json]

Per model: traces it (examples/models/trace.py), profiles it once (`hiremate profile --threads 1`: the
PROFILE every plan is made on, as in the report's models suite), finds `lowest` as the suite does
(the lowest budget twremat finds feasible, 5 halvings), then runs each plan `--repeats` times, each a
separate `hiremate train MODEL --budget B --solver S --times-from PROFILE --threads 1 --steps N --trace
--json` (executor and plain PyTorch alternate within each step), and once more with glibc's malloc told
to keep freed memory (GLIBC_TUNABLES: no mmap below 32 MiB, no trim), to see the allocator's share.
Then it profiles the model --profiles times more and plans each plan again on each fresh profile (one
step): how far the prediction itself moves from one profile to the next.

What it reports per run, all measured:
  sim.        the plan's simulated overhead over keep-all (the profile's per-op times, each op group
              measured in isolation by `hiremate profile`)
  CPU         the executor's median step CPU time over plain PyTorch's (the report's "CPU vs plain")
  paired      the median and quartiles over steps 2..N of (executor step k / plain step k - 1)
  ops/sim.    the sum of the executor's per-op CPU times in sequence (`--trace`, median per op over
              steps 2..N) over the sum of the profile's times for the same ops: >1 = the profile,
              in isolation, under-estimates the ops as they run in a step
  recomp.     the same ratio over the recomputations alone (2nd and later computes of a node)
  outside     the executor's step CPU time not spent inside any op (bookkeeping between ops), % of the step
  sys, minflt the child process's system CPU seconds and minor page faults over the whole run (capture,
              profile and both trainers: compare runs of one model, not absolute values)
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402

KEEP_MALLOC = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=268435456"


def quartiles(v):
    v = sorted(v)
    if not v:
        return (float("nan"),) * 3

    def q(f):
        x = f * (len(v) - 1)
        lo = int(x)
        return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (x - lo)
    return q(0.25), q(0.5), q(0.75)


def train(hm, model, inputs, profile, solver, budget, steps, env=None):
    cmd = [hm, "train", model, "--inputs", inputs, "--solver", solver, "--budget", str(budget), "--times-from",
           profile, "--threads", "1", "--steps", str(steps), "--trace", "--json", "--time-limit", "6"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        return None
    r = json.loads(p.stdout)
    ops = []
    for line in p.stderr.splitlines():
        if line.startswith("op-time\t"):
            _, i, what, grad, sim, cpu = line.split("\t")
            ops.append({"what": what, "grad": grad == "1", "sim": float(sim), "cpu": float(cpu)})
    r["ops"] = ops
    r["sys"] = after.ru_stime - before.ru_stime
    r["user"] = after.ru_utime - before.ru_utime
    r["minflt"] = after.ru_minflt - before.ru_minflt
    return r


def analyse(r):
    steps = r["steps"][1:]
    paired = [100.0 * (s["cpu_time"] / s["plain_cpu_time"] - 1) for s in steps]
    computes = [o for o in r["ops"] if o["what"].startswith("compute(")]
    seen, recomp = set(), []
    for o in computes:
        key = o["what"].replace(", no phantoms", "")
        if key in seen:
            recomp.append(o)
        seen.add(key)
    ops_cpu = sum(o["cpu"] for o in r["ops"])
    sim_ops = sum(o["sim"] for o in computes)
    return {
        "sim": 100.0 * (r["simulated_time"] / r["keep_all_time"] - 1),
        "cpu": 100.0 * (r["step_cpu_time"] / r["plain_step_cpu_time"] - 1),
        "paired": quartiles(paired),
        "exec_ms": 1e3 * r["step_cpu_time"], "plain_ms": 1e3 * r["plain_step_cpu_time"],
        "sim_ms": 1e3 * r["simulated_time"], "keep_all_ms": 1e3 * r["keep_all_time"],
        "ops_ms": 1e3 * ops_cpu, "sim_ops_ms": 1e3 * sim_ops,
        "ops_ratio": ops_cpu / sim_ops if sim_ops else float("nan"),
        "recomp_n": len(recomp), "recomp_sim_ms": 1e3 * sum(o["sim"] for o in recomp),
        "recomp_ms": 1e3 * sum(o["cpu"] for o in recomp),
        "nograd_n": sum(1 for o in computes if not o["grad"]),
        "delete_ms": 1e3 * sum(o["cpu"] for o in r["ops"] if o["what"].startswith("delete(")),
        "outside": 100.0 * (1 - ops_cpu / r["step_cpu_time"]) if r["step_cpu_time"] else float("nan"),
        "sys": r["sys"], "minflt": r["minflt"],
    }


def old_spread(path):
    """The models rows of an earlier report: how many steps its medians had, and how far the per-step CPU
    overheads of one row (executor step k against plain step k) lie apart."""
    run = json.load(open(path))
    out = [f"## The models rows of {path} (commit {run['meta']['commit'][:10]}, {run['meta']['date']}, "
           f"`{run['meta']['command']}`)", ""]
    rows = [(res["name"], r) for res in run["results"] if res["suite"] == "models" for r in res["runs"]
            if r.get("steps") and r.get("overhead_percent") is not None]
    if not rows:
        return out + ["No executed models rows.", ""]
    nsteps = sorted({len(r["steps"]) for _, r in rows})
    out.append(f"- {len(rows)} executed plans, {'/'.join(map(str, nsteps))} steps each: the median after the first "
               f"step is over {'/'.join(str(n - 1) for n in nsteps)} step(s).")
    gaps = []
    for name, r in rows:
        per = [100.0 * (s["cpu_time"] / s["plain_cpu_time"] - 1) for s in r["steps"] if s.get("plain_cpu_time")]
        gaps.append((max(per) - min(per), name, r, per))
    gaps.sort(key=lambda g: -g[0])
    for gap, name, r, per in gaps[:4]:
        out.append(f"- {name}, {r['solver']} at {r['budget']}: simulated {r['overhead_percent']:.2f} %, per-step CPU "
                   f"overheads {', '.join(f'{p:+.1f}' for p in per)} % ({gap:.1f} points apart); step CPU times "
                   + ", ".join(f"{1e3 * s['cpu_time']:.1f}/{1e3 * s['plain_cpu_time']:.1f}" for s in r["steps"])
                   + " ms (executor/plain).")
    same = {}
    for name, r in rows:
        same.setdefault((name, r["budget"], round(r["overhead_percent"], 6), r.get("simulated_peak")), []).append(r)
    for (name, budget, ov, _), rs in same.items():
        if len(rs) > 1:
            c = [100.0 * (r["step_cpu_time"] / r["plain_step_cpu_time"] - 1) for r in rs]
            if max(c) - min(c) > 10:
                out.append(f"- {name} at {budget}: {', '.join(r['solver'] for r in rs)} planned the same simulated "
                           f"overhead {ov:.2f} % and peak; measured CPU overheads {', '.join(f'{x:+.1f}' for x in c)} %.")
    return out + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hiremate", default=benchlib.HIREMATE)
    ap.add_argument("--names", default="gpt2,resnet")
    ap.add_argument("--plans", default="autograd:1.0,twremat:lowest,hiremate:lowest")
    ap.add_argument("--steps", type=int, default=11)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", help="also write the markdown here")
    ap.add_argument("--profiles", type=int, default=5, help="fresh profiles per model, to see how far the "
                    "prediction itself moves from one profile to the next (0: none)")
    ap.add_argument("--old-raw", help="an earlier report's raw.json: the per-step spread of its models rows")
    a = ap.parse_args()
    names = a.names.split(",")
    plans = [p.split(":") for p in a.plans.split(",")]
    lines = ["# Predicted against measured step overhead: the causes (issue 21)", "",
             *benchlib.provenance_lines(benchlib.provenance(binary=a.hiremate)),
             "- Load average at the end: filled in below", "", __doc__.split("What it reports per run, all measured:")[1]
             .strip("\n").join(["```\n", "\n```"]), ""]
    t0 = time.time()
    summary = {}
    with tempfile.TemporaryDirectory() as tmp:
        traced = benchlib.trace(names, tmp)
        for name in names:
            model, inputs = traced[name]
            prof = benchlib.profile(model, inputs, os.path.join(tmp, name + ".graph.json"), 1)

            def feasible(f):
                return train(a.hiremate, model, inputs, prof, "twremat", f, 1) is not None
            low = benchlib.lowest_feasible(feasible, 5)
            lines += [f"## {name} (lowest = {float(low) * 100:.1f} % of the keep-all activation peak)", "",
                      "| plan | run | sim. % | CPU % | CPU - sim. | paired q1/med/q3 % | exec ms | plain ms | "
                      "ops ms (sim. ms) | ops/sim. | recomp. n: ms (sim. ms) | no-grad fwd | deletes ms | outside % | "
                      "sys s | minflt |", "|" + "---|" * 16]
            for solver, budget in plans:
                b = low if budget == "lowest" else budget
                runs = [("default", None)] * a.repeats + [("malloc kept", {"GLIBC_TUNABLES": KEEP_MALLOC})]
                for k, (label, env) in enumerate(runs):
                    r = train(a.hiremate, model, inputs, prof, solver, b, a.steps, env)
                    if r is None:
                        lines.append(f"| {solver} at {budget} | {label} | no plan |" + " |" * 13)
                        continue
                    x = analyse(r)
                    summary.setdefault((name, solver, budget, label), []).append(x)
                    lines.append(
                        f"| {solver} at {budget} | {label} {k + 1 if label == 'default' else ''} | {x['sim']:.2f} | "
                        f"{x['cpu']:+.1f} | {x['cpu'] - x['sim']:+.1f} | "
                        + "/".join(f"{q:+.1f}" for q in x["paired"]) +
                        f" | {x['exec_ms']:.2f} | {x['plain_ms']:.2f} | {x['ops_ms']:.2f} ({x['sim_ops_ms']:.2f}) | "
                        f"{x['ops_ratio']:.2f} | {x['recomp_n']}: {x['recomp_ms']:.2f} ({x['recomp_sim_ms']:.2f}) | "
                        f"{x['nograd_n']} | {x['delete_ms']:.2f} | {x['outside']:.1f} | {x['sys']:.2f} | {x['minflt']} |")
                    print(lines[-1], file=sys.stderr, flush=True)
            lines += [""]
            # Computed: the decomposition of the median default run of each plan against autograd's.
            base = summary.get((name, "autograd", "1.0", "default"))
            if base:
                bo = statistics.median(x["ops_ms"] for x in base)
                be = statistics.median(x["exec_ms"] for x in base)
                bp = statistics.median(x["plain_ms"] for x in base)
                lines.append(f"- {name}, autograd (keep-all) through the executor: step CPU {be:.2f} ms against plain "
                             f"{bp:.2f} ms ({100 * (be / bp - 1):+.1f} %: the executor's own cost); its ops in sequence "
                             f"{bo:.2f} ms against the profile's {base[0]['sim_ops_ms']:.2f} ms "
                             f"(x{bo / base[0]['sim_ops_ms']:.2f}: isolation against sequence).")
                for solver, budget in plans:
                    xs = summary.get((name, solver, budget, "default"))
                    if not xs or solver == "autograd":
                        continue
                    med = lambda f: statistics.median(x[f] for x in xs)  # noqa: E731
                    extra_meas = med("ops_ms") - bo
                    extra_sim = xs[0]["sim_ms"] - xs[0]["keep_all_ms"]
                    lines.append(
                        f"- {name}, {solver} at {budget}: simulated {xs[0]['sim']:.2f} %, measured CPU "
                        f"{min(x['cpu'] for x in xs):+.1f} .. {max(x['cpu'] for x in xs):+.1f} % over {len(xs)} runs "
                        f"(median {med('cpu'):+.1f}); the plan's ops in sequence cost {extra_meas:+.2f} ms over "
                        f"autograd's ({100 * extra_meas / bo:+.1f} % of them) where the profile predicts "
                        f"{extra_sim:+.2f} ms; the {xs[0]['recomp_n']} recomputations cost {med('recomp_ms'):.2f} ms "
                        f"in sequence against {xs[0]['recomp_sim_ms']:.2f} ms in the profile; plain PyTorch "
                        f"{med('plain_ms'):.2f} ms in these runs against {bp:.2f} ms in autograd's; the ops it does "
                        f"not recompute {med('ops_ms') - med('recomp_ms'):.2f} ms against autograd's {bo:.2f} ms "
                        f"({med('ops_ms') - med('recomp_ms') - bo:+.2f} ms).")
                    kept = summary.get((name, solver, budget, "malloc kept"))
                    kb = summary.get((name, "autograd", "1.0", "malloc kept"))
                    if kept:
                        k = kept[0]
                        lines.append(
                            f"  - with malloc kept (GLIBC_TUNABLES above): CPU {k['cpu']:+.1f} % (CPU - sim. "
                            f"{k['cpu'] - k['sim']:+.1f} against {med('cpu') - xs[0]['sim']:+.1f} by default); plain "
                            f"{k['plain_ms']:.2f} ms against {med('plain_ms'):.2f}; minor page faults of the run "
                            f"{k['minflt']} against {int(med('minflt'))}"
                            + (f"; autograd's ops {kb[0]['ops_ms']:.2f} ms, this plan's not recomputed "
                               f"{k['ops_ms'] - k['recomp_ms']:.2f} ms" if kb else "") + ".")
                lines.append("")
            if a.profiles:
                # The prediction's own spread: each plan made again on fresh profiles of the same model
                # (one step each: only the simulated overhead is read).
                sims = {}
                for k in range(a.profiles):
                    pk = benchlib.profile(model, inputs, os.path.join(tmp, f"{name}.{k}.graph.json"), 1)
                    for solver, budget in plans:
                        if solver == "autograd":
                            continue
                        r = train(a.hiremate, model, inputs, pk, solver, low if budget == "lowest" else budget, 1)
                        if r is not None:
                            sims.setdefault((solver, budget), []).append(
                                (100.0 * (r["simulated_time"] / r["keep_all_time"] - 1), 1e3 * r["keep_all_time"]))
                lines.append(f"- {name}, the prediction on {a.profiles} fresh profiles (`hiremate profile --threads 1` "
                             "again, the plan made again on each): simulated keep-all step "
                             + ", ".join(f"{t:.2f}" for _, t in next(iter(sims.values()), [])) + " ms; per plan, "
                             "the simulated overhead: " + "; ".join(
                                 f"{s_} at {b_} {min(v for v, _ in x):.2f} .. {max(v for v, _ in x):.2f} %"
                                 for (s_, b_), x in sims.items()) + ".")
                lines.append("")
    lines[lines.index("- Load average at the end: filled in below")] = (
        f"- Load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {time.time() - t0:.0f} s")
    if a.old_raw:
        lines += old_spread(a.old_raw)
    text = "\n".join(lines).rstrip() + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
