"""What the wrapped module is to PyTorch code: it shares the model's parameters, its gradients land
in their .grad as plain autograd's would (accumulated, frozen ones left alone), a model may return
a non-scalar output whose loss is computed outside, eval mode and no_grad run the original module,
and wrapping leaves the module's buffers and the RNG as they were."""
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

import hiremate
from support import max_rel_diff


class Net(nn.Module):
    """Returns logits (not a loss): the wrapper seeds their gradient from outside."""

    def __init__(self, d=32, layers=4):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        for layer in self.layers:
            x = F.dropout(torch.tanh(layer(x)), 0.1, training=self.training)
        return self.head(self.norm(x))


def pair(seed=0):
    torch.manual_seed(seed)
    a = Net()
    torch.manual_seed(seed)
    b = Net()
    return a, b


class Wrapper(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(1)
        cls.x = torch.randn(16, 32)
        cls.y = torch.randint(0, 10, (16,))

    def wrap(self, model, budget="60%"):
        return hiremate.HiRemate(model, self.x, budget, solver="rotor", profile_runs=1)

    def step(self, module, seed):
        torch.manual_seed(seed)
        out = module(self.x)
        loss = F.cross_entropy(out, self.y)  # the loss outside the model
        loss.backward()
        return loss.item(), out.detach().clone()

    def test_nonscalar_output_and_accumulation(self):
        model, plain = self.pair_and_check_shared()
        wrapped = self.wrap(model)
        self.assertLess(wrapped.plan.simulated_peak, wrapped.plan.keep_all_peak)
        for seed in (5, 6):  # no zero_grad between: gradients accumulate into .grad
            loss, out = self.step(wrapped, seed)
            plain_loss, plain_out = self.step(plain, seed)
            self.assertLessEqual(abs(loss - plain_loss), 1e-6 * abs(plain_loss))
            self.assertLessEqual(max_rel_diff([out], [plain_out]), 1e-6)
            grads = [p.grad for p in model.parameters()]
            self.assertTrue(all(g is not None for g in grads))
            self.assertLessEqual(max_rel_diff(grads, [p.grad for p in plain.parameters()]), 1e-6)

    def pair_and_check_shared(self):
        model, plain = pair()
        wrapped_params = list(hiremate.HiRemate(model, self.x, 1.0, solver="autograd", profile_runs=1).parameters())
        self.assertEqual([id(p) for p in wrapped_params], [id(p) for p in model.parameters()])
        return model, plain

    def test_parameter_hooks_fire_once_per_backward_with_the_whole_gradient(self):
        # Each gradient goes through the parameter's own AccumulateGrad, as plainly: a hook sees the
        # parameter's whole gradient once per backward, and may change what lands in .grad. The
        # tied weight (read by two layers, two contributions per step) is summed before its hook.
        def tied_pair():
            model, plain = pair()
            for m in (model, plain):
                m.layers[2].weight = m.layers[0].weight
            return model, plain

        model, plain = tied_pair()
        wrapped = self.wrap(model)
        self.assertGreater(wrapped.plan.recomputations, 0)
        seen = {"wrapped": [], "plain": []}
        for name, m in (("wrapped", model), ("plain", plain)):
            m.layers[0].weight.register_hook(lambda g, name=name: seen[name].append(g.clone()))
            m.head.weight.register_hook(lambda g: g * 2)  # a hook that replaces the gradient
        for seed in (5, 6):
            self.step(wrapped, seed)
            self.step(plain, seed)
        self.assertEqual(len(seen["wrapped"]), 2)
        self.assertEqual(len(seen["plain"]), 2)
        self.assertLessEqual(max_rel_diff(seen["wrapped"], seen["plain"]), 1e-6)
        self.assertLessEqual(max_rel_diff([p.grad for p in model.parameters()],
                                          [p.grad for p in plain.parameters()]), 1e-6)

    def test_autocast_is_refused(self):
        model, _ = pair()
        wrapped = self.wrap(model)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            with self.assertRaisesRegex(hiremate.BadInputError, "autocast"):
                wrapped(self.x)

    def test_frozen_parameter_keeps_no_grad(self):
        model, plain = pair()
        for m in (model, plain):
            m.layers[0].weight.requires_grad_(False)
        wrapped = self.wrap(model)
        self.step(wrapped, 3)
        self.step(plain, 3)
        self.assertIsNone(model.layers[0].weight.grad)
        self.assertLessEqual(max_rel_diff([model.layers[1].weight.grad], [plain.layers[1].weight.grad]), 1e-6)

    def test_eval_and_no_grad_run_the_original_module(self):
        model, _ = pair()
        wrapped = self.wrap(model)
        calls = []
        model.register_forward_hook(lambda *a: calls.append(1))
        torch.manual_seed(0)
        out = wrapped(self.x)  # training, grad: the plan (the module's own forward is not called)
        self.assertEqual(calls, [])
        self.assertIsNotNone(out.grad_fn)
        out.sum().backward()
        with torch.no_grad():
            wrapped(self.x)
        self.assertEqual(len(calls), 1)
        wrapped.eval()
        self.assertFalse(model.training)
        expected = model(self.x)
        self.assertTrue(torch.equal(wrapped(self.x), expected))
        self.assertEqual(len(calls), 3)

    def test_one_step_at_a_time(self):
        model, _ = pair()
        wrapped = self.wrap(model)
        first = wrapped(self.x)
        second = wrapped(self.x)
        with self.assertRaisesRegex(hiremate.HiremateError, "one step at a time"):
            first.sum().backward()
        second.sum().backward()  # the latest step still completes
        out = wrapped(self.x)
        loss = out.sum()
        loss.backward(retain_graph=True)
        with self.assertRaisesRegex(hiremate.HiremateError, "one step at a time"):
            loss.backward()

    def test_wrapping_preserves_buffers_mode_and_rng(self):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
        model.eval()
        before = [b.clone() for b in model.buffers()]
        x = torch.randn(4, 8)
        rng = torch.get_rng_state()
        wrapped = hiremate.HiRemate(model, x, 1.0, solver="autograd", profile_runs=1)
        self.assertTrue(torch.equal(rng, torch.get_rng_state()))
        self.assertFalse(model.training)
        for b, saved in zip(model.buffers(), before):
            self.assertTrue(torch.equal(b, saved))
        wrapped.train()
        wrapped(x).sum().backward()
        self.assertFalse(torch.equal(model[1].running_mean, before[0]))  # a step updates the statistics

    def test_report(self):
        model, _ = pair()
        wrapped = hiremate.HiRemate(model, self.x, "70%", time_limit=4, profile_runs=1)
        text = wrapped.report()
        self.assertIn("solver hiremate", text)
        self.assertIn("simulated peak", text)
        self.assertIn(f"{wrapped.plan.simulated_peak:,}", text)  # bytes with thousands separators
        self.assertIn("H-ILP by level", text)
        self.assertRegex(text, r"\ntop +1 ")
        # The planner's lower bound (the loss-point or chain bound): under the plan, and said.
        plan = wrapped.plan
        self.assertIsNotNone(plan.bound)
        self.assertLessEqual(plan.bound, plan.simulated_time * (1 + 1e-9))
        self.assertGreaterEqual(plan.bound, plan.keep_all_time * (1 - 1e-9))
        self.assertLessEqual(plan.least_overhead, plan.predicted_overhead + 1e-9)
        self.assertIn("lower bound", text)
        flat = self.wrap(pair()[0])
        self.assertIn("no per-level table", flat.report())
        self.assertIn("HiRemate(", repr(wrapped))


if __name__ == "__main__":
    unittest.main()
