"""Step time and memory of the executor against plain PyTorch, for the example models.

    /usr/bin/python3 bench/torch/step_time.py [--hiremate build/hiremate] [--models DIR]
                                              [--budgets 1.0,0.5] [--steps 11] [--solver NAME]

Traces the models of examples/models (trace.py) into DIR (a temporary folder by default), runs
`hiremate train MODEL --budget B --json` for each budget (autograd at 1.0: the keep-all plan, so
the time is the executor's overhead alone; --solver below it) and prints a markdown table: step
time against plain PyTorch's, simulated and measured activation peaks, and the largest gradient
difference. `hiremate train` runs the executor's and plain PyTorch's steps in one process,
interleaved (each step's order alternates), and reports the median over the steps after the first,
of the wall clock and of the process's CPU time (with one thread, the CPU time is what a loaded
machine disturbs least). Target at 1.0: within 10 % of plain."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402
MODELS = ["gpt2", "unet", "mlp_mixer", "transformer", "resnet"]


def mib(b):
    return f"{b / 2**20:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hiremate", default=os.path.join(ROOT, "build", "hiremate"))
    ap.add_argument("--models", help="folder for the traced models (default: a temporary one)")
    ap.add_argument("--names", default=",".join(MODELS))
    ap.add_argument("--budgets", default="1.0,0.5")
    ap.add_argument("--steps", type=int, default=11)
    ap.add_argument("--solver", default="hiremate", help="the solver below 100 %%")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    names = a.names.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        models = a.models or tmp
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "trace.py"), models, *names],
                       check=True, stdout=subprocess.DEVNULL)
        # The run's provenance heads the table (commit, date, machine, command, CBC).
        print("\n".join(benchlib.provenance_lines(benchlib.provenance())) + "\n", flush=True)
        print("| model | budget | solver | step ms | plain ms | vs plain | CPU ms | plain CPU ms | CPU vs plain | "
              "simulated MiB | measured MiB | plain MiB | grad diff |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name in names:
            for budget in a.budgets.split(","):
                solver = "autograd" if float(budget) >= 1.0 else a.solver
                cmd = [a.hiremate, "train", os.path.join(models, name + ".pt"), "--inputs",
                       os.path.join(models, name + ".inputs.pt"), "--budget", budget, "--solver", solver,
                       "--steps", str(a.steps), "--threads", str(a.threads), "--json"]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"| {name} | {budget} | {solver} | failed: {p.stderr.strip()[:120]} ||||||||||")
                    continue
                r = json.loads(p.stdout)
                rel = (r["step_time"] - r["plain_step_time"]) / r["plain_step_time"] * 100
                cpu = (r["step_cpu_time"] - r["plain_step_cpu_time"]) / r["plain_step_cpu_time"] * 100
                print(f"| {name} | {budget} | {solver} | {r['step_time'] * 1e3:.1f} | {r['plain_step_time'] * 1e3:.1f} | "
                      f"{rel:+.1f} % | {r['step_cpu_time'] * 1e3:.1f} | {r['plain_step_cpu_time'] * 1e3:.1f} | {cpu:+.1f} % | "
                      f"{mib(r['simulated_peak'])} | {mib(r['measured_peak'])} | {mib(r['plain_peak'])} | "
                      f"{r['max_grad_diff']:.2g} |", flush=True)


if __name__ == "__main__":
    main()
