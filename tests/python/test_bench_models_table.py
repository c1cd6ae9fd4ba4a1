"""The report's models table (bench/report/tables.py, issue 21): the "CPU - sim." column (measured CPU
overhead against plain PyTorch minus the simulated overhead, in points) in the table and models.csv,
and the computed line that counts the plans beyond 3 points; benchlib.train's reading of
`hiremate train --json`'s error object."""
import csv
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "report"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import tables  # noqa: E402


def run(solver, budget, sim, cpu, plain, steps):
    return {"budget": budget, "solver": solver, "status": "feasible", "valid": True, "overhead_percent": sim,
            "peak": 50, "baseline_peak": 100, "keep_all_peak": 100, "simulated_peak": 50, "measured_peak": 50,
            "budget_bytes": 60, "step_time": cpu, "plain_step_time": plain, "step_cpu_time": cpu,
            "plain_step_cpu_time": plain, "max_grad_diff": 0.0, "solve_seconds": 0.1, "limit": 6,
            "steps": [{"cpu_time": c, "plain_cpu_time": p} for c, p in steps]}


RESULT = {"suite": "models", "name": "toy", "model": "training", "steps": 3, "solvers": ["autograd", "twremat"],
          "limits": {"autograd": 6, "twremat": 6}, "info": {"nodes": 4, "baseline_peak": 100, "baseline_time": 0.01},
          "runs": [run("autograd", "100", 0.0, 0.0101, 0.0100, [(1, 1), (1.01, 1.0), (1.02, 1.0)]),
                   run("twremat", "100", 0.0, 0.0100, 0.0100, [(1, 1), (1.0, 1.0), (1.0, 1.0)]),
                   run("autograd", "50", 0.0, 0.0, 0.0, []) | {"status": "no_plan_found", "overhead_percent": None},
                   run("twremat", "50", 20.0, 0.0130, 0.0100, [(1, 1), (1.3, 1.0), (1.3, 1.0)])]}


class ModelsTable(unittest.TestCase):
    def test_difference_column_and_count(self):
        text = "\n".join(tables.models_table([RESULT]))
        self.assertIn("| CPU - sim. |", text)
        self.assertIn("| +30.0 % | +10.0 |", text)          # twremat at 50 %: CPU +30 %, simulated +20 %
        self.assertIn("1 of 3 executed plans differ by more than 3 points", text)
        self.assertIn("largest +10.0 points (twremat at 50 %)", text)

    def test_csv_columns(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "models.csv")
            tables.write_csv([RESULT], path)
            rows = list(csv.DictReader(open(path)))
        row = next(r for r in rows if r["solver"] == "twremat" and r["budget_percent"] == "50")
        self.assertEqual(row["cpu_overhead_percent"], "30.00")
        self.assertEqual(row["cpu_minus_sim_points"], "10.00")
        self.assertEqual(next(r for r in rows if r["status"] == "no_plan_found")["cpu_minus_sim_points"], "")


class TrainJsonError(unittest.TestCase):
    def test_error_object_becomes_a_status(self):
        import benchlib
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "hiremate")
            with open(fake, "w") as f:
                f.write('#!/bin/sh\necho \'{"error": "autograd found no plan", "exit_code": 4}\'\nexit 4\n')
            os.chmod(fake, 0o755)
            old, benchlib.HIREMATE = benchlib.HIREMATE, fake
            try:
                r = benchlib.train("m.pt", "i.pt", "autograd", "50%", 1, 1)
            finally:
                benchlib.HIREMATE = old
        self.assertEqual(r["status"], "no_plan_found")
        self.assertEqual(r["note"], "autograd found no plan")


if __name__ == "__main__":
    unittest.main()
