"""From a Python module to a captured C++ session: the inputs as a tuple of CPU tensors, the trace
(training mode, no grad), the capture; the module's buffers (batch-norm statistics), mode and the
global RNG left as they were (tracing, capture and profiling run the forward several times)."""
import contextlib
import warnings

import torch

from . import _hiremate
from .errors import BadInputError, HiremateError, UntraceableModelError


def as_inputs(inputs, what="sample_inputs"):
    """A tensor, or a tuple or list of tensors, as a tuple; BadInputError for anything else."""
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)) or not inputs:
        raise BadInputError(f"{what} must be a tensor or a non-empty tuple of tensors (forward's positional "
                            f"arguments), not {type(inputs).__name__}")
    for k, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor):
            raise BadInputError(f"{what}[{k}] is a {type(t).__name__}; hiremate passes tensors only: make the "
                                "other arguments attributes of the module")
        if t.device.type != "cpu":
            raise BadInputError(f"{what}[{k}] is on {t.device}; the hiremate executor runs on the CPU only for now")
        if t.requires_grad:
            raise BadInputError(f"{what}[{k}] requires grad; hiremate computes the parameters' gradients, not the "
                                "inputs': pass inputs that do not require grad (x.detach())")
    return tuple(inputs)


def check_model(model):
    if not isinstance(model, torch.nn.Module):
        raise BadInputError(f"model must be a torch.nn.Module, not {type(model).__name__}")


def layout(inputs):
    """What the plan is specialised to, per input: shape and dtype."""
    return [(tuple(t.shape), t.dtype) for t in inputs]


@contextlib.contextmanager
def preserved(model):
    """Restores the module's buffers, training mode and torch's global RNG state on exit."""
    training = model.training
    rng = torch.get_rng_state()
    with torch.no_grad():
        buffers = [(b, b.clone()) for b in model.buffers()]
    try:
        yield
    finally:
        with torch.no_grad():
            for b, saved in buffers:
                b.copy_(saved)
        torch.set_rng_state(rng)
        model.train(training)


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def trace(model, inputs):
    """torch.jit.trace of `model` in training mode (it shares the module's parameters)."""
    check_model(model)
    model.train()
    try:
        with torch.no_grad(), warnings.catch_warnings():
            # The trace is specialised to the sample's shapes on purpose: inputs are checked instead.
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            return torch.jit.trace(model, inputs, check_trace=False)
    except Exception as e:
        raise UntraceableModelError(
            f"torch.jit.trace cannot trace {type(model).__name__}: {_first_line(e)}. hiremate needs a model "
            "that torch.jit.trace can trace with tensor inputs and one tensor output") from e


def capture(model, inputs):
    """The C++ session, captured from the traced model."""
    traced = trace(model, inputs)
    try:
        return _hiremate.Session(traced, list(inputs), type(model).__name__)
    except BadInputError as e:
        raise UntraceableModelError(str(e)) from e
    except HiremateError as e:
        raise UntraceableModelError(f"hiremate cannot run {type(model).__name__} node by node: {e}") from e
