"""hiremate: train PyTorch models under a memory budget by re-materialization (HiRemate, ICML 2025).

    import hiremate
    wrapped = hiremate.HiRemate(model, sample_inputs, budget="50%")
    loss = wrapped(*inputs); loss.backward()      # then optimizer.step() as usual

The C++ core traces, profiles and plans; the returned module runs the plan. See docs/python.md."""
import torch  # noqa: F401  (loads libtorch_python and torch's type casters before the extension)

from . import _hiremate  # noqa: F401
from .errors import (BadInputError, HiremateError, InfeasibleBudgetError, InputMismatchError, NoPlanFoundError,
                     UntraceableModelError)
from .memory import measure
from .plan import PlanInfo
from .profile import ProfiledGraph, profile
from .wrapper import HiRemate

__all__ = ["HiRemate", "PlanInfo", "profile", "ProfiledGraph", "measure", "HiremateError", "BadInputError",
           "UntraceableModelError", "InputMismatchError", "InfeasibleBudgetError", "NoPlanFoundError"]
