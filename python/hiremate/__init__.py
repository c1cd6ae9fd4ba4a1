"""hiremate: train PyTorch models under a memory budget by re-materialization (HiRemate, ICML 2025).

    import hiremate
    wrapped = hiremate.HiRemate(model, sample_inputs, budget="50%")
    loss = wrapped(*inputs); loss.backward()      # then optimizer.step() as usual

The C++ core traces, profiles and plans; the returned module runs the plan. See docs/python.md."""
__version__ = "0.1.0"  # as `hiremate --version`

try:
    import torch  # noqa: F401  (loads libtorch_python and torch's type casters before the extension)
except ImportError as e:  # another python3 than Debian's, which has python3-torch
    import sys
    raise ImportError(
        f"hiremate needs PyTorch ({e}); it is built for Debian's /usr/bin/python3 and its torch 1.13 "
        f"(python3-torch), and this is {sys.executable}: run it with /usr/bin/python3, or a virtual "
        "environment made with --system-site-packages") from e

from . import _hiremate  # noqa: F401
from .errors import (BadInputError, HiremateError, InfeasibleBudgetError, InputMismatchError, NoPlanFoundError,
                     UntraceableModelError)
from .memory import measure
from .min_budget import MinBudget
from .plan import PlanInfo
from .plot import plot_memory
from .profile import ProfiledGraph, profile
from .wrapper import HiRemate

__all__ = ["HiRemate", "PlanInfo", "plot_memory", "profile", "ProfiledGraph", "measure", "MinBudget", "HiremateError",
           "BadInputError", "UntraceableModelError", "InputMismatchError", "InfeasibleBudgetError", "NoPlanFoundError"]
