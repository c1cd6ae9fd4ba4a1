"""Peak and time agreement of `hiremate profile` with plain PyTorch, for every example model.

    /usr/bin/python3 bench/torch/agreement.py [--hiremate build/hiremate] [--models DIR] [--wall]

Traces the models of examples/models (trace.py) into DIR (a temporary folder by default), runs
`hiremate profile MODEL --compare --json` on each and prints a markdown table: the graph's
keep-all activation peak against the counting allocator's peak over plain forward+backward
(parameters and their gradients excluded on both sides), and the sum of node times against the
step's time. One thread; CPU time unless --wall (the machine may be shared)."""
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
    ap.add_argument("--wall", action="store_true", help="wall-clock times instead of CPU time")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    outdir = args.models or tempfile.mkdtemp(prefix="hiremate-models-")
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "trace.py"), outdir],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The run's provenance heads the table (commit, date, machine, command, CBC).
    print("\n".join(benchlib.provenance_lines(benchlib.provenance())) + "\n", flush=True)
    print("| model | forward nodes | signatures | parameters MiB | graph peak MiB | PyTorch peak MiB | peak error |"
          " node times ms | PyTorch step ms | time error | profiled in s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in MODELS:
        cmd = [args.hiremate, "profile", os.path.join(outdir, name + ".pt"), "--inputs",
               os.path.join(outdir, name + ".inputs.pt"), "--compare", "--json", "--threads", "1",
               "--runs", str(args.runs)] + ([] if args.wall else ["--cpu-time"])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"| {name} | failed: {r.stderr.strip().splitlines()[-1]} |")
            continue
        s = json.loads(r.stdout)
        print(f"| {name} | {s['forward_nodes']} | {s['signatures']} | {mib(s['parameter_bytes'])} |"
              f" {mib(s['keep_all_activation_peak'])} | {mib(s['reference_peak'])} | {100 * s['peak_error']:+.2f} % |"
              f" {1e3 * s['step_time']:.1f} | {1e3 * s['reference_time']:.1f} | {100 * s['time_error']:+.1f} % |"
              f" {s['profile_seconds']:.1f} |", flush=True)
    print(f"\nParameters and their gradients are outside both peaks; inputs too. Times: "
          f"{'wall clock' if args.wall else 'process CPU time'}, one thread, trimmed mean of {args.runs} runs.")


if __name__ == "__main__":
    main()
