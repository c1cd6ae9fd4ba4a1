"""hiremate.profile(model, inputs): the measured graph, readable by the CLI."""
import os
import tempfile
import unittest

import torch

import hiremate
from support import DeepMLP, cli, make


class Profile(unittest.TestCase):
    def test_gpt2_graph(self):
        model, inputs = make("gpt2")
        g = hiremate.profile(model, inputs, runs=2)
        self.assertEqual(g.json["format"], "hiremate-graph")
        kinds = [c["kind"] for c in g.json["compute"]]
        self.assertEqual(kinds.count("loss"), 1)
        self.assertEqual(kinds.count("forward"), len(g.nodes) + sum(1 for c in g.json["compute"]
                                                                    if ".view" in c["name"] and c["kind"] == "forward"))
        self.assertTrue(any("linear" in n["ops"] for n in g.nodes))
        self.assertGreater(g.keep_all_peak, 0)
        self.assertGreater(g.keep_all_time, 0)
        self.assertEqual(g.input_bytes, sum(t.numel() * t.element_size() for t in inputs))
        self.assertEqual(g.parameter_bytes, sum(p.numel() * p.element_size() for p in model.parameters()))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gpt2.json")
            g.save(path)
            info = cli("info", path)
        self.assertEqual(info["baseline_peak"], g.keep_all_peak)  # activation bytes, inputs excluded, as Python's
        self.assertEqual(info["source_bytes"], g.input_bytes)
        self.assertIn("compute nodes", repr(g))


class OneBudgetConvention(unittest.TestCase):
    def test_a_percentage_is_the_same_bytes_in_python_and_every_command(self):
        """80 % is of the keep-all activation peak, inputs excluded, in HiRemate, info, solve and simulate."""
        torch.manual_seed(0)
        inputs = (torch.randn(32, 16), torch.randint(0, 4, (32,)))
        model = DeepMLP(layers=6, width=64)
        g = hiremate.profile(model, inputs, runs=1)
        self.assertGreater(g.input_bytes, 0)  # the conventions would differ by them
        wrapped = hiremate.HiRemate(model, inputs, "80%", solver="rotor", profile_runs=1)
        self.assertEqual(wrapped.plan.budget, -(-80 * wrapped.plan.keep_all_peak // 100))  # ceil(0.8 x peak)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "deep.json")
            g.save(path)
            info = cli("info", path)
            solved = cli("solve", path, "--budget", "80%", "--solver", "rotor")
        # Byte sizes are measured, equal in both profiles; times may differ, and bytes do not depend on them.
        self.assertEqual(info["baseline_peak"], wrapped.plan.keep_all_peak)
        self.assertEqual(info["budgets"]["80"], wrapped.plan.budget)
        self.assertEqual(solved["budget"], wrapped.plan.budget)
        self.assertEqual(solved["source_bytes"], wrapped.plan.input_bytes)
        self.assertIn("inputs excluded", solved["units"])


if __name__ == "__main__":
    unittest.main()
