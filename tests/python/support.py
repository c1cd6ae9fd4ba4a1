"""Shared by the Python package's tests: the example models at test sizes, training loops wrapped and
plain with the same seeds, and the CLI. Run with PYTHONPATH=build/python (ctest sets it)."""
import json
import os
import subprocess
import sys

import torch

SOURCE_DIR = os.environ.get("HIREMATE_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
CLI = os.environ.get("HIREMATE_CLI", os.path.join(SOURCE_DIR, "build", "hiremate"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "examples", "models"))

import gpt2  # noqa: E402
import mlp_mixer  # noqa: E402
import resnet  # noqa: E402
import transformer  # noqa: E402
import unet  # noqa: E402

torch.set_num_threads(1)  # a shared 2-core machine: steadier, and each test is small

# The five example models, small enough that profiling and planning take seconds.
EXAMPLES = {
    "gpt2": lambda: gpt2.make(batch=2, seq=32, vocab=256, d=64, heads=4, layers=2),
    "unet": lambda: unet.make(batch=2, size=32),
    "mlp_mixer": lambda: mlp_mixer.make(batch=4, image=16, layers=2),
    "transformer": lambda: transformer.make(batch=2, seq=16, vocab=64, layers=1),
    "resnet": lambda: resnet.make(batch=4, image=16),
}


def make(name, seed=0):
    torch.manual_seed(seed)
    return EXAMPLES[name]()


def train(module, params, inputs, steps, lr=0.05, seed=100, measure=None):
    """`steps` SGD steps of module(*inputs) (a scalar loss); step k draws from seed + k. Returns the
    losses; `measure(k)` gives a context manager around each step's forward and backward."""
    import contextlib
    opt = torch.optim.SGD(params, lr=lr)
    losses = []
    for k in range(steps):
        opt.zero_grad()  # set_to_none=False in torch 1.13: .grad stays allocated after the first step
        torch.manual_seed(seed + k)
        with (measure(k) if measure else contextlib.nullcontext()):
            loss = module(*inputs)
            loss.backward()
        losses.append(loss.item())
        opt.step()
    return losses


def max_rel_diff(a, b):
    """max |a - b| / max |b| over two lists of tensors (0 when equal)."""
    worst = 0.0
    for x, y in zip(a, b):
        scale = y.abs().max().item()
        diff = (x - y).abs().max().item()
        worst = max(worst, diff / scale if scale > 0 else diff)
    return worst


def cli(*args):
    """Runs the hiremate CLI; returns its parsed --json output."""
    out = subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


class DeepMLP(torch.nn.Module):
    """`layers` hidden linear layers of `width` between an input and an output layer, forward(x, y)
    returns the loss: its floor (what one layer needs) is well under its keep-all peak."""

    def __init__(self, layers=6, width=256):
        super().__init__()
        self.inp = torch.nn.Linear(16, width)
        self.hidden = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(layers))
        self.out = torch.nn.Linear(width, 4)

    def forward(self, x, y):
        h = torch.tanh(self.inp(x))
        for layer in self.hidden:
            h = torch.tanh(layer(h))
        return torch.nn.functional.cross_entropy(self.out(h), y)
