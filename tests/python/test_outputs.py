"""What models return and take, as real ones do: tuples (with output_to_loss), dicts and
ModelOutput-like objects with a `loss`, keyword inputs; forwards whose Python control flow depends
on the input values are refused, not silently frozen; the package's version and docstrings."""
import collections
import dataclasses
import inspect
import unittest
import warnings
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

import hiremate
from support import max_rel_diff


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.c, self.b = nn.Linear(16, 64), nn.Linear(64, 64), nn.Linear(64, 4)

    def logits(self, x):
        return self.b(torch.tanh(self.c(torch.tanh(self.a(x)))))

    def forward(self, x, y):
        return F.cross_entropy(self.logits(x), y)


class DictOutput(MLP):
    def forward(self, x, y):
        logits = self.logits(x)
        return {"loss": F.cross_entropy(logits, y), "logits": logits}


@dataclasses.dataclass
class CausalLMOutput(collections.OrderedDict):
    """Like transformers.modeling_outputs.ModelOutput: an OrderedDict with attributes, optional fields."""
    loss: Optional[torch.Tensor] = None
    logits: Optional[torch.Tensor] = None

    def __post_init__(self):
        for f in dataclasses.fields(self):
            if getattr(self, f.name) is not None:
                self[f.name] = getattr(self, f.name)


class ModelOutputModel(MLP):
    def forward(self, input_ids=None, labels=None):  # keyword inputs, as Hugging Face models take them
        logits = self.logits(input_ids)
        return CausalLMOutput(loss=F.cross_entropy(logits, labels), logits=logits)


class TupleOutput(MLP):
    def forward(self, x, y):
        logits = self.logits(x)
        return logits, F.cross_entropy(logits, y)


class NoLossDict(MLP):
    def forward(self, x, y):
        return {"logits": self.logits(x)}


class Branchy(MLP):
    """Python control flow on a value: a trace freezes the sample's branch."""

    def forward(self, x, y):
        h = self.a(x)
        h = torch.tanh(h) if x.mean() > 0 else torch.relu(h)
        return F.cross_entropy(self.b(self.c(h)), y)


def sample(batch=32):
    torch.manual_seed(0)
    return torch.randn(batch, 16), torch.randint(0, 4, (batch,))


def twins(cls, seed=0):
    torch.manual_seed(seed)
    a = cls()
    torch.manual_seed(seed)
    return a, cls()


class Outputs(unittest.TestCase):
    def setUp(self):
        self.x, self.y = sample()

    def plain_loss_and_grads(self, model):
        model.zero_grad()
        loss = MLP.forward(model, self.x, self.y)
        loss.backward()
        return loss.item(), [p.grad.clone() for p in model.parameters()]

    def check_same(self, wrapped_loss, model, plain):
        wrapped_loss.backward()
        loss, grads = self.plain_loss_and_grads(plain)
        self.assertAlmostEqual(wrapped_loss.item(), loss, places=5)
        for p, g in zip(model.parameters(), grads):
            self.assertLess(max_rel_diff(p.grad, g), 1e-5)

    def test_dict_with_a_loss(self):
        model, plain = twins(DictOutput)
        wrapped = hiremate.HiRemate(model, (self.x, self.y), 1.0, solver="autograd",
                                    profile_runs=1)
        out = wrapped(self.x, self.y)
        self.assertIsInstance(out, dict)
        self.assertEqual(list(out), ["loss"])  # the logits are activations the plan frees
        self.check_same(out["loss"], model, plain)
        wrapped.eval()
        self.assertIn("logits", wrapped(self.x, self.y))  # eval: the model itself

    def test_model_output_with_keyword_inputs(self):
        model, plain = twins(ModelOutputModel)
        batch = {"input_ids": self.x, "labels": self.y}
        wrapped = hiremate.HiRemate(model, batch, 1.0, solver="autograd", profile_runs=1)
        out = wrapped(**batch)
        self.assertIsInstance(out, CausalLMOutput)
        self.assertIsNone(out.logits)
        self.check_same(out.loss, model, plain)
        out = wrapped(labels=self.y, input_ids=self.x)  # any order of keywords
        out.loss.backward()
        with self.assertRaisesRegex(hiremate.InputMismatchError, "keywords"):
            wrapped(self.x, labels=self.y)
        with self.assertRaisesRegex(hiremate.InputMismatchError, r"input 'labels': torch.float32 \(sample torch.int64\)"):
            wrapped(input_ids=self.x, labels=self.y.float())

    def test_tuple_with_output_to_loss(self):
        model, plain = twins(TupleOutput)
        with self.assertRaisesRegex(hiremate.UntraceableModelError,
                                    r"returns a tuple of 2 \(Tensor, Tensor\).*output_to_loss=lambda out: out\[0\]"):
            hiremate.HiRemate(model, (self.x, self.y), 1.0, solver="autograd", profile_runs=1)
        wrapped = hiremate.HiRemate(model, (self.x, self.y), 1.0, solver="autograd", profile_runs=1,
                                    output_to_loss=lambda out: out[1])
        loss = wrapped(self.x, self.y)
        self.assertIsInstance(loss, torch.Tensor)
        self.check_same(loss, model, plain)

    def test_dict_without_a_loss_says_what_to_do(self):
        with self.assertRaisesRegex(hiremate.UntraceableModelError, r"keys \['logits'\] and no 'loss' entry.*output_to_loss"):
            hiremate.HiRemate(NoLossDict(), (self.x, self.y), 1.0, solver="autograd", profile_runs=1)
        with self.assertRaisesRegex(hiremate.BadInputError, "output_to_loss must be a callable"):
            hiremate.HiRemate(NoLossDict(), (self.x, self.y), 1.0, output_to_loss="logits")

    def test_a_smaller_last_batch_gets_a_hint(self):
        # Without replanning (by default a new shape is planned once: test_shapes.py).
        wrapped = hiremate.HiRemate(MLP(), (self.x, self.y), 1.0, solver="autograd", profile_runs=1,
                                    replan_shapes=False)
        x, y = sample(batch=8)
        with self.assertRaisesRegex(hiremate.InputMismatchError, "smaller last batch.*drop_last=True"):
            wrapped(x, y)


class ControlFlow(unittest.TestCase):
    def test_value_dependent_branches_are_refused(self):
        x, y = sample()
        x = x.abs() + 0.1  # a positive sample: the trace takes the tanh branch
        with self.assertRaisesRegex(hiremate.UntraceableModelError, r"takes another path.*torch.where"):
            hiremate.HiRemate(Branchy(), (x, y), 1.0, solver="autograd", profile_runs=1)
        with self.assertRaisesRegex(hiremate.UntraceableModelError, "takes another path"):
            hiremate.profile(Branchy(), (x, y), runs=1)

    def test_tracer_warnings_reach_the_user(self):
        x, y = sample()
        x = x.abs() + 0.1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with self.assertRaises(hiremate.UntraceableModelError):
                hiremate.HiRemate(Branchy(), (x, y), 1.0, solver="autograd", profile_runs=1)
        self.assertTrue(any(issubclass(w.category, torch.jit.TracerWarning) for w in caught),
                        [str(w.message) for w in caught])

    def test_a_forward_that_refuses_the_probes_is_warned_about_not_refused(self):
        class NonNegative(MLP):
            def forward(self, x, y):
                if not bool((x >= 0).all()):
                    raise ValueError("x must be non-negative")
                return super().forward(x, y)

        x, y = sample()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            hiremate.HiRemate(NonNegative(), (x.abs(), y), 1.0, solver="autograd", profile_runs=1)
        self.assertTrue(any("could not check NonNegative.forward" in str(w.message) and
                            "x must be non-negative" in str(w.message) for w in caught),
                        [str(w.message) for w in caught])

    def test_check_trace_false_lets_the_user_decide(self):
        x, y = sample()
        x = x.abs() + 0.1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wrapped = hiremate.HiRemate(Branchy(), (x, y), 1.0, solver="autograd", profile_runs=1,
                                        check_trace=False)
        wrapped(x, y).backward()

    def test_shape_only_python_logic_is_accepted(self):
        class ShapeLogic(MLP):
            def forward(self, x, y):
                h = self.a(x)
                if x.shape[0] > 1:  # on the shape, not the values: the same for every probe
                    h = torch.tanh(h)
                return F.cross_entropy(self.b(self.c(h)), y)

        x, y = sample()
        hiremate.HiRemate(ShapeLogic(), (x, y), 1.0, solver="autograd", profile_runs=1)


class Picture(unittest.TestCase):
    def test_plot_memory_draws_the_plan(self):
        import os
        import tempfile
        from test_wrapper import Net
        torch.manual_seed(1)
        x = torch.randn(16, 32)
        wrapped = hiremate.HiRemate(Net(), x, "60%", solver="rotor", profile_runs=1)
        self.assertGreater(wrapped.plan.recomputations, 0)
        points = wrapped._runner.session.timeline()
        self.assertEqual(max(d for d, _, _ in points) - wrapped.plan.input_bytes, wrapped.plan.simulated_peak)
        self.assertEqual(sum(r for _, _, r in points), wrapped.plan.recomputations)
        with tempfile.TemporaryDirectory() as d:
            path = hiremate.plot_memory(wrapped, os.path.join(d, "timeline.png"))
            with open(path, "rb") as f:
                self.assertEqual(f.read(4), b"\x89PNG")
        with self.assertRaisesRegex(hiremate.BadInputError, "HiRemate module"):
            hiremate.plot_memory(Net(), "x.png")


class Verbose(unittest.TestCase):
    def test_verbose_prints_the_phases_on_stderr(self):
        import contextlib
        import io
        x, y = sample()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            hiremate.HiRemate(MLP(), (x, y), 1.0, solver="autograd", profile_runs=1, verbose=True)
        text = err.getvalue()
        for phase in ("tracing and capturing MLP...", "profiling...", "planning with autograd under 1.0..."):
            self.assertIn("hiremate: " + phase, text)
        self.assertRegex(text, r"hiremate: planning with autograd under 1.0: \d+\.\d s")
        self.assertNotIn("\r", text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            hiremate.HiRemate(MLP(), (x, y), 1.0, solver="autograd", profile_runs=1)
        self.assertEqual(err.getvalue(), "")


class Package(unittest.TestCase):
    def test_wrapping_in_another_thread(self):
        import threading
        x, y = sample()
        result = []
        thread = threading.Thread(target=lambda: result.append(
            hiremate.HiRemate(MLP(), (x, y), 1.0, solver="autograd", profile_runs=1)))
        thread.start()
        thread.join()
        self.assertEqual(len(result), 1)

    def test_version(self):
        self.assertRegex(hiremate.__version__, r"^\d+\.\d+\.\d+$")

    def test_docstrings(self):
        doc = inspect.getdoc(hiremate.HiRemate)
        for word in ("Args:", "budget", "output_to_loss", "Raises:", "InfeasibleBudgetError", "dagremat",
                     "UntraceableModelError"):
            self.assertIn(word, doc)
        params = inspect.signature(hiremate.HiRemate).parameters
        self.assertFalse(any(p.startswith("_") for p in params), list(params))
        self.assertIn("Raises:", inspect.getdoc(hiremate.HiRemate.load_plan))
        self.assertIn("Raises:", inspect.getdoc(hiremate.HiRemate.forward))


if __name__ == "__main__":
    unittest.main()
