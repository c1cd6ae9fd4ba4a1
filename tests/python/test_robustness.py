"""A small robustness sweep (bench/robustness/robustness.py has the whole one): every solver on a
training graph, a random DAG and a dense layered DAG, from 'min' to below the floor, one second each:
exits 0, 3 or 4 only, below the floor 3 (at it 3 only on a DAG), never 3 where another solver
plans, every plan valid in `hiremate simulate` with the peak solve
reported and within the budget, and on the DAGs in the sweep's own fixed-order simulator too; no
solver's bound above a plan's time at the same budget."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from support import CLI, SOURCE_DIR

sys.path.insert(0, os.path.join(SOURCE_DIR, "bench", "robustness"))
import robustness  # noqa: E402

GRAPHS = [
    ("transformer", ["-n", "2"], robustness.TRAINING_SOLVERS),
    ("random", ["-n", "60", "--dag", "--seed", "2"], robustness.DAG_SOLVERS),
    ("random", ["-n", "150", "--dag", "--width-ratio", "0.5", "--edge-density", "0.4", "--seed", "3"],
     robustness.DAG_SOLVERS),
]
BUDGETS = ["min", "70%", "30%", "5%"]


class Robustness(unittest.TestCase):
    def test_every_solver_answers_within_the_contract(self):
        with tempfile.TemporaryDirectory() as tmp:
            codes = []
            for i, (kind, args, solvers) in enumerate(GRAPHS):
                path = os.path.join(tmp, f"g{i}.json")
                subprocess.run([CLI, "generate", kind, *args, "-o", path], check=True, capture_output=True)
                graph = robustness.load_json(path)
                for budget in BUDGETS:
                    by_solver, times = {}, {}
                    for j, solver in enumerate(solvers):
                        threads = 1 + (i + j) % 2
                        with self.subTest(graph=kind, args=args, budget=budget, solver=solver):
                            code, found = robustness.check_solve(CLI, path, graph, budget, solver, threads, 1, tmp,
                                                                 times)
                            self.assertEqual(found, [])
                            codes.append(code)
                            by_solver[solver] = code
                    with self.subTest(graph=kind, args=args, budget=budget):
                        self.assertEqual(robustness.contradictions(by_solver), [])
                        self.assertEqual(robustness.bounds_under_plans(times), [])
            self.assertIn(0, codes)  # the sweep saw plans (each checked), not only refusals
            self.assertIn(3, codes)  # and proven infeasible budgets (5 % is below every floor here)

    def test_the_own_simulator_rejects_a_broken_schedule(self):
        with tempfile.TemporaryDirectory() as tmp:
            path, sched = os.path.join(tmp, "g.json"), os.path.join(tmp, "s.json")
            subprocess.run([CLI, "generate", "random", "-n", "30", "--dag", "--seed", "2", "-o", path], check=True,
                           capture_output=True)
            subprocess.run([CLI, "solve", path, "--budget", "70%", "--time-limit", "2", "--schedule-out", sched],
                           check=True, capture_output=True)
            graph, schedule = robustness.load_json(path), robustness.load_json(sched)
            sim = json.loads(subprocess.run([CLI, "simulate", path, sched, "--json"], capture_output=True,
                                            text=True).stdout)
            error, peak, time = robustness.fixed_order_check(graph, schedule)
            self.assertIsNone(error)
            self.assertEqual(peak, sim["peak"])
            self.assertAlmostEqual(time, sim["time"])
            deletes = [k for k, op in enumerate(schedule["ops"]) if op["op"] == "delete"]
            self.assertTrue(deletes)
            twice = dict(schedule, ops=schedule["ops"][:deletes[0] + 1] + schedule["ops"][deletes[0]:])
            self.assertIn("not a resident output", robustness.fixed_order_check(graph, twice)[0])
            first = next(k for k, op in enumerate(schedule["ops"]) if op["op"] == "compute" and k > 0)
            skipped = dict(schedule, ops=schedule["ops"][:first] + schedule["ops"][first + 1:])
            self.assertIn("out of the graph's order", robustness.fixed_order_check(graph, skipped)[0])


if __name__ == "__main__":
    unittest.main()
