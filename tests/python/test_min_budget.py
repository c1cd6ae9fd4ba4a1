"""The lowest feasible budget: hiremate.profile(...).min_budget and HiRemate.min_budget(...) give it in
activation bytes and % of the keep-all activation peak with the node that sets it; budget="min" plans
there; one byte below raises InfeasibleBudgetError naming it."""
import json
import os
import subprocess
import tempfile
import unittest

import torch

import hiremate
from support import CLI, DeepMLP


class MinBudget(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.inputs = (torch.randn(64, 16), torch.randint(0, 4, (64,)))
        cls.graph = hiremate.profile(DeepMLP(layers=4, width=128), cls.inputs, runs=1)
        cls.min = cls.graph.min_budget

    def test_profile_reports_it_in_activations_as_the_cli_does(self):
        m = self.min
        self.assertIsInstance(m, hiremate.MinBudget)
        self.assertGreater(m.bytes, 0)
        self.assertLess(m.bytes, self.graph.keep_all_peak)
        self.assertAlmostEqual(m.percent, 100.0 * m.bytes / self.graph.keep_all_peak, places=9)
        self.assertEqual(m.input_bytes, self.graph.input_bytes)
        self.assertIn(m.node, [c["name"] for c in self.graph.json["compute"]])
        self.assertEqual(m.inputs + m.outputs + m.overhead, m.bytes)  # the sources are the inputs, excluded
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "deep.json")
            self.graph.save(path)
            info = json.loads(subprocess.run([CLI, "info", path, "--json"], capture_output=True, text=True,
                                             check=True).stdout)
        self.assertEqual(info["min_budget"], m.bytes)  # one convention: activation bytes, inputs excluded
        self.assertEqual(info["source_bytes"], self.graph.input_bytes)
        self.assertEqual(info["min_budget_node"], m.node)
        self.assertIn(f"{m.percent:.1f} % of the keep-all activation peak", str(m))

    def test_classmethod_gives_the_same(self):
        m = hiremate.HiRemate.min_budget(DeepMLP(layers=4, width=128), self.inputs, profile_runs=1)
        self.assertEqual((m.bytes, m.node), (self.min.bytes, self.min.node))

    def test_budget_min_plans_there_and_trains(self):
        torch.manual_seed(1)
        model = DeepMLP(layers=4, width=128)
        wrapped = hiremate.HiRemate(model, self.inputs, budget="min", time_limit=20, profile_runs=1)
        self.assertEqual(wrapped.plan.budget, self.min.bytes)
        self.assertLessEqual(wrapped.plan.simulated_peak, wrapped.plan.budget)
        loss = wrapped(*self.inputs)
        loss.backward()
        self.assertTrue(all(p.grad is not None for p in model.parameters()))
        self.assertTrue(torch.isclose(loss.detach(), model(*self.inputs)))

    def test_one_byte_below_names_the_lowest_budget_and_its_node(self):
        with self.assertRaises(hiremate.InfeasibleBudgetError) as caught:
            hiremate.HiRemate(DeepMLP(layers=4, width=128), self.inputs, self.min.bytes - 1, time_limit=10, profile_runs=1)
        text = str(caught.exception)
        self.assertIn("the floor below which no schedule exists", text)
        self.assertIn(f"'{self.min.node}'", text)
        self.assertIn(f"{self.min.percent:.1f} % of the keep-all activation peak", text)


if __name__ == "__main__":
    unittest.main()
