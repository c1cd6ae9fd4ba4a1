"""Errors a user can make raise clear Python exceptions (and the interpreter goes on): untraceable
models, budgets no plan fits (proven, or only not found), malformed budgets and solvers, inputs unlike
the sample."""
import json
import os
import subprocess
import tempfile
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

import hiremate
from support import CLI, DeepMLP


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.c, self.b = nn.Linear(16, 64), nn.Linear(64, 64), nn.Linear(64, 4)

    def forward(self, x, y):
        return F.cross_entropy(self.b(torch.tanh(self.c(torch.tanh(self.a(x))))), y)


class DictOutput(MLP):
    def forward(self, x, y):
        return {"cost": super().forward(x, y)}


class TupleOutput(MLP):
    def forward(self, x, y):
        return super().forward(x, y), x.sum()


@torch.jit.script
def bounded(x):
    if bool(x.sum() > 0):
        return x * 2
    return x


class ScriptedControlFlow(MLP):
    def forward(self, x, y):
        return F.cross_entropy(self.b(self.c(bounded(self.a(x)))), y)


class NoParameters(nn.Module):
    def forward(self, x, y):
        return (x * 2).sum()


def sample(batch=32):
    torch.manual_seed(0)
    return torch.randn(batch, 16), torch.randint(0, 4, (batch,))


class Errors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inputs = sample()
        cls.wrapped = hiremate.HiRemate(MLP(), cls.inputs, 1.0, solver="autograd", profile_runs=1)

    def test_untraceable_models(self):
        cases = [(DictOutput(), r"DictOutput.forward returns a dict with keys \['cost'\] and no 'loss' entry"),
                 (TupleOutput(), "returns a tuple of 2.*output_to_loss"),
                 (ScriptedControlFlow(), "control flow"),
                 (NoParameters(), "one tensor computed from the parameters")]
        for model, message in cases:
            with self.subTest(type(model).__name__):
                with self.assertRaisesRegex(hiremate.UntraceableModelError, message):
                    hiremate.HiRemate(model, self.inputs, 0.5)
        with self.assertRaisesRegex(hiremate.BadInputError, "torch.nn.Module"):
            hiremate.HiRemate(lambda x, y: x, self.inputs, 0.5)

    def test_infeasible_budget(self):
        with self.assertRaisesRegex(hiremate.InfeasibleBudgetError, "found no plan under 64 B"):
            hiremate.HiRemate(MLP(), self.inputs, 64, solver="checkmate", time_limit=10, profile_runs=1)
        # Half this MLP's peak is below what its loss alone needs: a proof, even from autograd.
        with self.assertRaisesRegex(hiremate.InfeasibleBudgetError, "no plan"):
            hiremate.HiRemate(MLP(), self.inputs, 0.5, solver="autograd", profile_runs=1)

    def test_bad_budgets_and_solvers(self):
        for budget, message in [("lots", "budget"), (1.5, r"in \(0, 1\]"), (0, "budget"), (-3, "budget"),
                                (True, "budget"), ([1], "budget"), ("0%", "budget")]:
            with self.subTest(budget=budget):
                with self.assertRaisesRegex(hiremate.BadInputError, message):
                    hiremate.HiRemate(MLP(), self.inputs, budget, profile_runs=1)
        with self.assertRaisesRegex(hiremate.BadInputError, "unknown solver 'fast'; the solvers are"):
            hiremate.HiRemate(MLP(), self.inputs, 0.5, solver="fast", profile_runs=1)

    def test_bad_sample_inputs(self):
        x, y = self.inputs
        with self.assertRaisesRegex(hiremate.BadInputError, r"sample_inputs\[1\] is a int"):
            hiremate.HiRemate(MLP(), (x, 3), 0.5)
        with self.assertRaisesRegex(hiremate.BadInputError, "requires grad"):
            hiremate.HiRemate(MLP(), (x.clone().requires_grad_(), y), 0.5)
        with self.assertRaisesRegex(hiremate.UntraceableModelError, "cannot trace"):
            hiremate.HiRemate(MLP(), (x,), 0.5)  # forward takes two

    def test_inputs_unlike_the_sample(self):
        # Other shapes get a plan of their own (test_shapes.py); other dtypes and counts are refused.
        x8, y8 = self.inputs
        with self.assertRaisesRegex(hiremate.InputMismatchError, "torch.float64"):
            self.wrapped(x8.double(), y8)
        with self.assertRaisesRegex(hiremate.InputMismatchError, "1 inputs"):
            self.wrapped(x8)
        loss = self.wrapped(x8, y8)  # and it still trains
        loss.backward()
        self.assertTrue(torch.isfinite(loss))

    def test_replaced_parameters(self):
        model = MLP()
        wrapped = hiremate.HiRemate(model, self.inputs, 1.0, solver="autograd", profile_runs=1)
        model.a.weight.data = model.a.weight.data.clone()
        with self.assertRaisesRegex(hiremate.BadInputError, "replaced after wrapping"):
            wrapped(*self.inputs)

    def test_exception_classes(self):
        self.assertTrue(issubclass(hiremate.InfeasibleBudgetError, ValueError))
        self.assertTrue(issubclass(hiremate.NoPlanFoundError, hiremate.HiremateError))
        self.assertFalse(issubclass(hiremate.NoPlanFoundError, hiremate.InfeasibleBudgetError))
        self.assertTrue(issubclass(hiremate.UntraceableModelError, hiremate.BadInputError))
        self.assertTrue(issubclass(hiremate.BadInputError, hiremate.HiremateError))


SOLVERS = ["autograd", "recompute_all", "checkmate", "twremat", "rotor", "rockmate", "hilp", "hiremate"]


class InfeasibleOrNoPlanFound(unittest.TestCase):
    """Per solver: InfeasibleBudgetError only below the floor every schedule needs (a proof);
    NoPlanFoundError at the floor, where the heuristics find nothing and the exact solvers are given
    0.01 s (they find a plan there with 10 s: it is not infeasible)."""

    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.inputs = sample()
        graph = hiremate.profile(DeepMLP(), cls.inputs, runs=1)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "deep.json")
            graph.save(path)
            info = subprocess.run([CLI, "info", path, "--json"], capture_output=True, text=True, check=True)
        cls.floor = json.loads(info.stdout)["min_budget"]  # activation bytes, as every budget
        assert cls.floor < graph.keep_all_peak, (cls.floor, graph.keep_all_peak)

    def test_below_the_floor_every_solver_raises_infeasible(self):
        for solver in SOLVERS:
            with self.subTest(solver):
                with self.assertRaisesRegex(hiremate.InfeasibleBudgetError, "proven infeasible") as caught:
                    hiremate.HiRemate(DeepMLP(), self.inputs, self.floor - 1, solver=solver, time_limit=10,
                                      profile_runs=1)
                self.assertNotIsInstance(caught.exception, hiremate.NoPlanFoundError)

    def test_at_the_floor_every_solver_that_gives_up_raises_no_plan_found(self):
        for solver in SOLVERS:
            with self.subTest(solver):
                with self.assertRaisesRegex(hiremate.NoPlanFoundError, "not a proof") as caught:
                    hiremate.HiRemate(DeepMLP(), self.inputs, self.floor, solver=solver, time_limit=0.01,
                                      profile_runs=1)
                self.assertNotIsInstance(caught.exception, hiremate.InfeasibleBudgetError)


if __name__ == "__main__":
    unittest.main()
