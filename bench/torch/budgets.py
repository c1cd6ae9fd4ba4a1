"""Measured activation peaks of the executor against the budget and the simulator, for every
example model and every torch test model, at 100 %, 70 % and 50 % of the keep-all activation peak
and at the lowest budget the solver finds feasible (bisection).

    /usr/bin/python3 bench/torch/budgets.py [--hiremate build/hiremate] [--solver twremat]
                                            [--names gpt2,mlp,...] [--steps 3] [--bisect 7]

Traces the models (examples/models/trace.py, tests/torch/make_models.py) into a temporary folder,
then per model and budget runs `hiremate train MODEL --budget B --json`: the solver plans, the
executor trains `--steps` steps beside plain PyTorch. The lowest feasible budget is found by
bisection on the fraction of the keep-all peak (`--bisect` halvings; a budget is feasible when
`hiremate train --steps 1` finds a plan). Prints a markdown table; a row is "ok" when every step's
measured peak is at most the budget and within 5 % of the simulated one, and gradients match
plain PyTorch's to 1e-6 relative."""
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
EXAMPLES = ["gpt2", "unet", "mlp_mixer", "transformer", "resnet"]
TESTS = ["mlp", "views", "inplace", "tied", "dropout", "multi_output", "non_tensor_output", "gpt2_small",
         "resnet_small"]


def train(a, models, name, budget, steps):
    cmd = [a.hiremate, "train", os.path.join(models, name + ".pt"), "--inputs",
           os.path.join(models, name + ".inputs.pt"), "--budget", budget, "--solver", a.solver,
           "--steps", str(steps), "--threads", "1", "--time-limit", str(a.time_limit), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    return json.loads(p.stdout), ""


def lowest(a, models, name):
    return benchlib.lowest_feasible(lambda f: train(a, models, name, f, 1)[0] is not None, a.bisect)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hiremate", default=os.path.join(ROOT, "build", "hiremate"))
    ap.add_argument("--names", default=",".join(EXAMPLES + TESTS))
    ap.add_argument("--solver", default="twremat")
    ap.add_argument("--time-limit", type=float, default=20, help="the solver's, seconds")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--bisect", type=int, default=7, help="halvings of the lowest-budget search")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as models:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "torch", "make_models.py"), models], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "trace.py"), models], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # The run's provenance heads the table (commit, date, machine, command, CBC).
        print("\n".join(benchlib.provenance_lines(benchlib.provenance())) + "\n", flush=True)
        print(f"solver {a.solver}, {a.steps} steps; bytes are activations (parameters, their gradients and the "
              "inputs excluded)\n")
        print("| model | budget | budget B | simulated B | measured B | measured - simulated | plain B | grad diff | "
              "losses equal | ok |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        bad = 0
        for name in a.names.split(","):
            budgets = ["1.0", "0.7", "0.5"]
            budgets.append(lowest(a, models, name))
            for budget in budgets:
                r, err = train(a, models, name, budget, a.steps)
                label = budget if budget in ("1.0", "0.7", "0.5") else f"lowest {float(budget) * 100:.1f} %"
                if r is None:
                    print(f"| {name} | {label} | {err[:100]} ||||||||", flush=True)
                    continue
                worst = max(s["peak"] for s in r["steps"])
                rel = (worst - r["simulated_peak"]) / r["simulated_peak"] * 100 if r["simulated_peak"] else 0.0
                losses = all(abs(s["loss"] - s["plain_loss"]) <= 1e-6 * max(1.0, abs(s["plain_loss"])) for s in r["steps"])
                ok = (all(s["peak"] <= r["budget"] for s in r["steps"]) and
                      all(abs(s["peak"] - r["simulated_peak"]) <= 0.05 * r["simulated_peak"] for s in r["steps"]) and
                      r["max_grad_diff"] <= 1e-6 and losses)
                bad += not ok
                print(f"| {name} | {label} | {r['budget']} | {r['simulated_peak']} | {worst} | {rel:+.2f} % | "
                      f"{r['plain_peak']} | {r['max_grad_diff']:.2g} | {'yes' if losses else 'NO'} | "
                      f"{'ok' if ok else 'NO'} |", flush=True)
        print(f"\n{bad} rows not ok")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
