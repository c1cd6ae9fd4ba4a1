"""save_plan / load_plan: the loaded module runs the same schedule with no profiling and no
planning, trains exactly as the planned one, and a plan for another model or shape is refused."""
import json
import os
import tempfile
import unittest

import hiremate
from support import make, max_rel_diff, train


class PlanFile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "gpt2.plan.json")
        model, cls.inputs = make("gpt2")
        cls.planned = hiremate.HiRemate(model, cls.inputs, "55%", time_limit=8, profile_runs=2)
        cls.planned.save_plan(cls.path)
        cls.model = model

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_round_trip(self):
        model, inputs = make("gpt2")
        loaded = hiremate.HiRemate.load_plan(model, inputs, self.path)
        a, b = loaded.plan, self.planned.plan
        self.assertTrue(a.loaded)
        self.assertFalse(b.loaded)
        self.assertEqual(a.profile_seconds, 0)
        for field in ("solver", "status", "budget", "keep_all_peak", "simulated_peak", "bytes_at_loss",
                      "simulated_time", "keep_all_time", "recomputations", "solve_seconds", "bound"):
            self.assertEqual(getattr(a, field), getattr(b, field), field)
        self.assertEqual(loaded.schedule_json, self.planned.schedule_json)
        self.assertEqual(loaded.graph_json, self.planned.graph_json)
        self.assertIn("loaded from a plan file", loaded.report())

        # A second load of the same file (no planning: the same schedule) trains bitwise as the first,
        # and both as the plain, unwrapped model with the same seeds (1e-6 relative).
        plain, _ = make("gpt2")
        second_model, _ = make("gpt2")
        second_load = hiremate.HiRemate.load_plan(second_model, inputs, self.path)
        self.assertEqual(second_load.schedule_json, loaded.schedule_json)
        la = train(loaded, loaded.parameters(), inputs, 2)
        lb = train(second_load, second_load.parameters(), inputs, 2)
        lc = train(plain, plain.parameters(), inputs, 2)
        self.assertEqual(la, lb)
        for x, y in zip(la, lc):
            self.assertLessEqual(abs(x - y), 1e-6 * abs(y))
        self.assertLessEqual(max_rel_diff(list(model.parameters()), list(plain.parameters())), 1e-6)

    def test_file_content(self):
        with open(self.path) as f:
            j = json.load(f)
        self.assertEqual(j["format"], "hiremate-python-plan")
        self.assertEqual(j["summary"]["budget"], self.planned.plan.budget)
        self.assertEqual(j["graph"]["format"], "hiremate-graph")

    def test_other_shapes_refused(self):
        import gpt2
        model, inputs = gpt2.make(batch=3, seq=32, vocab=256, d=64, heads=4, layers=2)
        with self.assertRaisesRegex(hiremate.BadInputError, "another model or other input shapes"):
            hiremate.HiRemate.load_plan(model, inputs, self.path)

    def test_other_model_refused(self):
        model, inputs = make("resnet")
        with self.assertRaisesRegex(hiremate.BadInputError, "another model"):
            hiremate.HiRemate.load_plan(model, inputs, self.path)

    def test_damaged_files_refused(self):
        model, inputs = make("gpt2")
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        with self.assertRaisesRegex(hiremate.BadInputError, "not a plan file"):
            hiremate.HiRemate.load_plan(model, inputs, bad)
        with open(self.path) as f:
            j = json.load(f)
        j["summary"]["budget"] = 100  # a budget the schedule does not fit
        with open(bad, "w") as f:
            json.dump(j, f)
        with self.assertRaisesRegex(hiremate.BadInputError, "exceeds the plan's budget"):
            hiremate.HiRemate.load_plan(model, inputs, bad)
        with self.assertRaises(FileNotFoundError):
            hiremate.HiRemate.load_plan(model, inputs, os.path.join(self.dir.name, "missing.json"))


if __name__ == "__main__":
    unittest.main()
