"""Several input shapes: HiRemate plans once per input-shape signature (a smaller last batch plans
once more, then reuses that plan), with the planning seconds of each cached plan; and
`wrapped.plot_memory(path)`."""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import torch

import hiremate
import hiremate.wrapper
from support import DeepMLP


def batch(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 16, generator=g), torch.randint(0, 4, (n,), generator=g)


def twins():
    torch.manual_seed(0)
    a = DeepMLP(layers=6, width=64)
    torch.manual_seed(0)
    return a, DeepMLP(layers=6, width=64)


class Shapes(unittest.TestCase):
    def assert_same_step(self, wrapped, model, plain, inputs):
        """One step of the wrapped and the plain model from equal parameters: equal losses and grads."""
        model.zero_grad()
        plain.zero_grad()
        loss = wrapped(*inputs)
        loss.backward()
        ref = plain(*inputs)
        ref.backward()
        self.assertAlmostEqual(loss.item(), ref.item(), places=5)
        for (name, p), q in zip(model.named_parameters(), plain.parameters()):
            self.assertIsNotNone(p.grad, name)
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6, msg=name)

    def test_a_smaller_last_batch_is_planned_once_then_reused(self):
        model, plain = twins()
        full, last = batch(32, 1), batch(8, 2)
        wrapped = hiremate.HiRemate(model, full, "80%", solver="rotor", time_limit=10, profile_runs=1)
        first = wrapped.plan
        self.assertEqual(first.input_shapes, ((32, 16), (32,)))
        self.assertGreater(first.planning_seconds, 0)
        self.assertEqual(list(wrapped.plans), [((32, 16), (32,))])

        self.assert_same_step(wrapped, model, plain, full)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assert_same_step(wrapped, model, plain, last)  # plans once more, silently
        self.assertEqual(err.getvalue(), "")
        self.assertEqual(list(wrapped.plans), [((32, 16), (32,)), ((8, 16), (8,))])
        second = wrapped.plan
        self.assertEqual(second.input_shapes, ((8, 16), (8,)))
        self.assertGreater(second.planning_seconds, 0)
        self.assertLess(second.keep_all_peak, first.keep_all_peak)  # 80 % of its own shape's peak
        self.assertLessEqual(second.simulated_peak, second.budget)
        self.assertGreater(first.recomputations, 0)  # the plans do recompute: the gradients below are the plans'
        self.assertGreater(second.recomputations, 0)

        # The first shape again, then the second: the cached plans run, nothing is traced again.
        with mock.patch.object(hiremate.wrapper, "capture", side_effect=AssertionError("planned again")):
            self.assert_same_step(wrapped, model, plain, batch(32, 3))
            self.assertIs(wrapped.plan, first)
            self.assert_same_step(wrapped, model, plain, batch(8, 4))
            self.assertIs(wrapped.plan, second)
        self.assertEqual(len(wrapped.plans), 2)
        self.assertIn("Plans cached by input shapes:", wrapped.report())
        self.assertIn("[8, 16], [8]: ", wrapped.report())

    def test_verbose_reports_the_planning_time_of_a_new_shape(self):
        model, _ = twins()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            wrapped = hiremate.HiRemate(model, batch(16, 1), 1.0, solver="autograd", profile_runs=1, verbose=True)
        self.assertRegex(err.getvalue(), r"hiremate: planned input shapes \[16, 16\], \[16\] in \d+\.\d s")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            wrapped(*batch(4, 2)).backward()
        self.assertRegex(err.getvalue(), r"hiremate: planned input shapes \[4, 16\], \[4\] in \d+\.\d s")
        self.assertNotIn("\r", err.getvalue())

    def test_replan_shapes_false_refuses_other_shapes(self):
        model, _ = twins()
        wrapped = hiremate.HiRemate(model, batch(16, 1), 1.0, solver="autograd", profile_runs=1,
                                    replan_shapes=False)
        with self.assertRaisesRegex(hiremate.InputMismatchError,
                                    r"input 0: \(4, 16\) \(sample \(16, 16\)\).*smaller last batch.*drop_last=True"):
            wrapped(*batch(4, 2))
        x, y = batch(16, 2)
        with self.assertRaisesRegex(hiremate.InputMismatchError, "torch.float64"):
            wrapped(x.double(), y)  # another dtype is never planned for
        self.assertEqual(len(wrapped.plans), 1)

    def test_a_loaded_plan_keeps_its_shapes(self):
        model, _ = twins()
        wrapped = hiremate.HiRemate(model, batch(16, 1), 1.0, solver="autograd", profile_runs=1)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "plan.json")
            wrapped.save_plan(path)
            loaded = hiremate.HiRemate.load_plan(model, batch(16, 1), path)
        self.assertEqual(loaded.plan.input_shapes, ((16, 16), (16,)))
        loaded(*batch(16, 2)).backward()
        with self.assertRaisesRegex(hiremate.InputMismatchError, "loaded from a plan file"):
            loaded(*batch(4, 2))


class PlotMemory(unittest.TestCase):
    def test_the_method_draws_the_current_plan(self):
        model, _ = twins()
        wrapped = hiremate.HiRemate(model, batch(16, 1), "80%", solver="rotor", time_limit=10, profile_runs=1)
        with tempfile.TemporaryDirectory() as d:
            path = wrapped.plot_memory(os.path.join(d, "timeline.png"))
            self.assertEqual(path, os.path.join(d, "timeline.png"))
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertGreater(os.path.getsize(path), 1000)
        self.assertIn("Raises:", hiremate.HiRemate.plot_memory.__doc__)


class Verbosity(unittest.TestCase):
    def test_levels(self):
        from hiremate.progress import verbosity
        self.assertEqual([verbosity(v) for v in (False, True, 0, 1, 2)], [0, 1, 0, 1, 2])
        with self.assertRaisesRegex(hiremate.BadInputError, "verbose must be"):
            verbosity(3)
        with self.assertRaisesRegex(hiremate.BadInputError, "verbose must be"):
            verbosity("yes")

    def test_level_two_prints_the_solvers_and_cbcs_logs(self):
        # The solvers' lines and CBC's log go to the process's stderr (file descriptor 2): run it apart.
        script = ("import torch, hiremate\n"
                  "from support import DeepMLP\n"
                  "torch.manual_seed(0)\n"
                  "x, y = torch.randn(16, 16), torch.randint(0, 4, (16,))\n"
                  "hiremate.HiRemate(DeepMLP(layers=2, width=32), (x, y), '90%', solver='checkmate', time_limit=3,\n"
                  "                  profile_runs=1, verbose=int(__import__('sys').argv[1]))\n")
        runs = {level: subprocess.run([sys.executable, "-c", script, str(level)], capture_output=True, text=True,
                                      timeout=120, cwd=os.path.dirname(os.path.abspath(__file__)))
                for level in (1, 2)}
        for level, run in runs.items():
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("hiremate: planning with checkmate under 90%...", run.stderr)
        self.assertIn("checkmate: ", runs[2].stderr)  # the solver's own lines
        self.assertIn("Cbc0", runs[2].stderr)  # CBC's log (message codes such as Cbc0012I)
        self.assertNotIn("Cbc0", runs[1].stderr)
        self.assertNotIn("checkmate: ", runs[1].stderr)

    def test_status_text(self):
        from hiremate.progress import status_text
        self.assertEqual(status_text(("", None, None, None)), "")
        self.assertEqual(status_text(("top: hilp", 110.0, 105.0, 100.0)),
                         "; top: hilp; best so far +10.00 % overhead; bound +5.00 %")
        self.assertEqual(status_text(("CBC", 104.0, 106.0, 100.0)), "; CBC; best so far +4.00 % overhead")


if __name__ == "__main__":
    unittest.main()
