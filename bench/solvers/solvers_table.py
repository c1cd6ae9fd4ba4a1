#!/usr/bin/env python3
"""bench/results/solvers.md with its provenance: runs build/bench_solvers (the solvers on the same
generated training graphs and budgets, in one run) and hands it the run's commit, dirty flag, date,
exact command, machine and CBC version (benchlib.provenance) to print under the title.

    /usr/bin/python3 bench/solvers/solvers_table.py [--out bench/results/solvers.md]
                                                    [--limit S] [--checkmate-limit S]
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(benchlib.ROOT, "bench", "results", "solvers.md"))
    ap.add_argument("--limit", type=float, default=60, help="seconds per solve (default 60)")
    ap.add_argument("--checkmate-limit", type=float, default=30, help="seconds per checkmate solve (default 30)")
    a = ap.parse_args()
    binary = os.path.join(os.path.dirname(benchlib.HIREMATE), "bench_solvers")
    if not os.path.exists(binary):
        sys.exit(f"solvers_table: build first ({binary} is missing)")
    lines = benchlib.provenance_lines(benchlib.provenance(binary=binary))
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        subprocess.run([binary, "--out", a.out, "--limit", str(a.limit), "--checkmate-limit", str(a.checkmate_limit),
                        "--provenance", f.name], check=True)
    finally:
        os.unlink(f.name)


if __name__ == "__main__":
    main()
