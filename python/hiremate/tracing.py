"""From a Python module to a captured C++ session: the inputs as a tuple of CPU tensors (positional,
then keyword), the trace (training mode, no grad) of the model with its loss picked out of what it
returns, a check that a second probe input takes the same path through forward, the capture; the
module's buffers (batch-norm statistics), mode and the global RNG left as they were (tracing,
capture and profiling run the forward several times)."""
import collections.abc
import contextlib
import os
import re
import sys
import warnings

import torch

from . import _hiremate
from .errors import BadInputError, HiremateError, UntraceableModelError


def _check_tensor(t, what):
    if not isinstance(t, torch.Tensor):
        raise BadInputError(f"{what} is a {type(t).__name__}; hiremate passes tensors only: make the "
                            "other arguments attributes of the module")
    if t.device.type != "cpu":
        raise BadInputError(f"{what} is on {t.device}; the hiremate executor runs on the CPU only for now")
    if t.requires_grad:
        raise BadInputError(f"{what} requires grad; hiremate computes the parameters' gradients, not the "
                            "inputs': pass inputs that do not require grad (x.detach())")


def as_inputs(inputs, what="sample_inputs"):
    """A tensor, or a tuple or list of tensors, as a tuple; BadInputError for anything else."""
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)) or not inputs:
        raise BadInputError(f"{what} must be a tensor, a non-empty tuple of tensors (forward's positional "
                            f"arguments) or a dict of tensors (its keyword arguments), not {type(inputs).__name__}")
    for k, t in enumerate(inputs):
        _check_tensor(t, f"{what}[{k}]")
    return tuple(inputs)


def split_inputs(inputs, what="sample_inputs"):
    """forward's arguments as (flat tensors, positional count, keyword names): a tensor or a tuple
    of tensors are positional; a dict of tensors gives keyword arguments (`model(**inputs)`)."""
    if isinstance(inputs, collections.abc.Mapping):
        if not inputs:
            raise BadInputError(f"{what} is an empty dict; give forward's keyword arguments as tensors")
        names = tuple(inputs)
        for name in names:
            if not isinstance(name, str):
                raise BadInputError(f"{what} has the key {name!r}; keyword arguments are named by strings")
            _check_tensor(inputs[name], f"{what}[{name!r}]")
        return tuple(inputs[n] for n in names), 0, names
    flat = as_inputs(inputs, what)
    return flat, len(flat), ()


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


class OutputKind:
    """How the loss sits in what the model returns, found while tracing: "tensor" (forward returns
    it), "mapping" (a dict or ModelOutput with a "loss" entry), "attribute" (an object with a
    `.loss` tensor) or "callable" (output_to_loss picks it)."""

    def __init__(self, kind="tensor", type_=torch.Tensor):
        self.kind, self.type = kind, type_

    def wrap(self, loss):
        """What the wrapped module returns for `loss`: the loss where forward returned a tensor or
        output_to_loss picked it, else an object of the model's output type holding only `loss`."""
        if self.kind in ("tensor", "callable"):
            return loss
        try:
            return self.type(loss=loss)  # dict, OrderedDict, a Hugging Face ModelOutput dataclass
        except Exception:  # noqa: BLE001  (a type that cannot be built from `loss` alone)
            if self.kind == "mapping":
                return {"loss": loss}
            import types
            return types.SimpleNamespace(loss=loss)


def select_loss(out, output_to_loss, model_name):
    """(the loss tensor in `out`, its OutputKind); UntraceableModelError saying what to do when
    there is no single tensor to train on."""
    if output_to_loss is not None:
        loss, kind, where = output_to_loss(out), OutputKind("callable", type(out)), "output_to_loss(output)"
    elif isinstance(out, torch.Tensor):
        return out, OutputKind()
    elif isinstance(out, collections.abc.Mapping) and "loss" in out:
        loss, kind, where = out["loss"], OutputKind("mapping", type(out)), "output['loss']"
    elif isinstance(getattr(out, "loss", None), torch.Tensor):
        loss, kind, where = out.loss, OutputKind("attribute", type(out)), "output.loss"
    elif isinstance(out, collections.abc.Mapping):
        raise UntraceableModelError(
            f"{model_name}.forward returns a {type(out).__name__} with keys {list(out)[:8]} and no 'loss' entry; "
            "give HiRemate(..., output_to_loss=lambda out: <the loss tensor>), e.g. lambda out: out['logits'].sum() "
            "or the entry your loss comes from")
    elif isinstance(out, (tuple, list)):
        kinds = ", ".join(type(x).__name__ for x in out[:8])
        raise UntraceableModelError(
            f"{model_name}.forward returns a {type(out).__name__} of {len(out)} ({kinds}); hiremate trains on one "
            "tensor: give HiRemate(..., output_to_loss=lambda out: out[0]) with the index of the loss (or of the "
            "output your loss is computed from)")
    else:
        raise UntraceableModelError(
            f"{model_name}.forward returns a {type(out).__name__}; hiremate needs one tensor (the loss or an "
            "output), a dict or ModelOutput with a 'loss' entry, or output_to_loss=... to pick the tensor")
    if not isinstance(loss, torch.Tensor):
        raise UntraceableModelError(f"{where} is a {type(loss).__name__}, not a tensor: hiremate trains on one "
                                    "tensor computed from the parameters")
    return loss, kind


class LossOf(torch.nn.Module):
    """`model` as a module of flat tensor arguments (positional, then keyword) that returns the one
    tensor to train on; it shares the model's parameters and buffers. What torch.jit.trace sees."""

    def __init__(self, model, n_positional, keywords, output_to_loss=None):
        super().__init__()
        self.module = model
        self.n_positional, self.keywords, self.output_to_loss = n_positional, tuple(keywords), output_to_loss
        self.output_kind = None

    def forward(self, *flat):
        kwargs = dict(zip(self.keywords, flat[self.n_positional:]))
        out = self.module(*flat[:self.n_positional], **kwargs)
        loss, self.output_kind = select_loss(out, self.output_to_loss, type(self.module).__name__)
        return loss


def _graph_text(traced):
    """The trace's graph with shapes and mangled names erased, as torch.jit's own trace check compares."""
    graph = torch._C._jit_pass_canonicalize(traced.graph)
    torch._C._jit_pass_inline(graph)
    torch._C._jit_pass_erase_shape_information(graph)
    return re.sub(r"___torch_mangle_[0-9]+\.", "", str(graph))


def probes(inputs):
    """Inputs of the sample's shapes and dtypes but other values, to find forwards whose Python control
    flow depends on the values: float tensors negated, then uniform in the sample's range of
    magnitudes; integer and bool tensors (indices, labels) with their values permuted (so they stay
    valid indices)."""
    generator = torch.Generator().manual_seed(12345)

    def permuted(t):
        flat = t.reshape(-1)
        return flat[torch.randperm(flat.numel(), generator=generator)].reshape(t.shape).clone()

    negated, uniform = [], []
    for t in inputs:
        if t.is_floating_point() or t.is_complex():
            scale = float(t.abs().max()) if t.numel() else 1.0
            negated.append(-t)
            uniform.append(((torch.rand(t.shape, generator=generator) * 2 - 1) * (scale or 1.0)).to(t.dtype))
        else:
            negated.append(permuted(t))
            uniform.append(permuted(t))
    return [tuple(negated), tuple(uniform)]


def _outside_the_package():
    """The warnings.warn stacklevel of the first caller outside this package (the user's line)."""
    here = os.path.dirname(os.path.abspath(__file__))
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        level, frame = level + 1, frame.f_back
    return level


def _diverging_line(a, b):
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            return x.strip()
    return "(the graphs differ in length)"


def trace(model, inputs, n_positional=None, keywords=(), output_to_loss=None, check=True):
    """(torch.jit.trace of `model` in training mode on the flat `inputs`, how its output holds the
    loss). The trace shares the module's parameters. With `check`, forward is traced again on two
    probe inputs (probes()) and refused when it takes another path: Python control flow on tensor
    values (`if x.mean() > 0:`) is frozen at the sample's branch by tracing and would silently give
    wrong results. TracerWarnings of the first trace reach the caller."""
    check_model(model)
    name = type(model).__name__
    wrapper = LossOf(model, len(inputs) if n_positional is None else n_positional, keywords, output_to_loss)
    model.train()
    try:
        with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", torch.jit.TracerWarning)
            traced = torch.jit.trace(wrapper, inputs, check_trace=False)
    except HiremateError:
        raise
    except Exception as e:
        raise UntraceableModelError(
            f"torch.jit.trace cannot trace {name}: {_first_line(e)}. hiremate needs a model that "
            "torch.jit.trace can trace with tensor inputs") from e
    tracer = [w for w in caught if issubclass(w.category, torch.jit.TracerWarning)]
    for w in caught:  # other warnings pass on as they came
        if w not in tracer:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    kind = wrapper.output_kind
    if not check:
        for w in tracer:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return traced, kind
    reference = _graph_text(traced)
    # The first warning in the user's code rather than inside torch, where one is.
    shown = next((w for w in tracer if f"{os.sep}torch{os.sep}" not in w.filename), tracer[0] if tracer else None)
    first = f" (torch.jit.trace warned at {shown.filename}:{shown.lineno})" if shown else ""
    for probe in probes(inputs):
        refusal = None
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the first trace's warnings are the ones to show
                other = _graph_text(torch.jit.trace(wrapper, probe, check_trace=False))
            if other != reference:
                refusal = UntraceableModelError(
                    f"{name}.forward takes another path for an input of the sample's shapes with other values "
                    f"(first difference: {_diverging_line(reference, other)}){first}: Python control flow on "
                    "tensor values (`if x.mean() > 0:`, `.item()`) is frozen at the sample's branch by tracing, "
                    "and the plan would silently compute something else for other inputs. Make the path "
                    "independent of the values (torch.where instead of `if`), or pass check_trace=False if the "
                    "values you train on always take the sample's path")
        except Exception as e:  # noqa: BLE001  (values the model cannot take, not a different path)
            warnings.warn(
                f"hiremate could not check {name}.forward for control flow on input values: it fails on a probe "
                f"input of the sample's shapes with other values ({_first_line(e)}). A branch on values would be "
                "frozen at the sample's; check_trace=False skips this check", torch.jit.TracerWarning,
                stacklevel=_outside_the_package())
            continue
        if refusal is not None:
            for w in tracer:  # the lines that convert tensors to Python values: where to look
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            raise refusal
    if tracer:  # the probes took the sample's path: most likely shape arithmetic; say so once
        warnings.warn(
            f"torch.jit.trace warned {len(tracer)} time(s) that {name}.forward converts tensors to Python values "
            f"(as at {shown.filename}:{shown.lineno}: {_first_line(shown.message).split(' might')[0]}). Two probe inputs of other values took "
            "the sample's path, so these are taken as constants of the sample's shapes (the plan is specialised "
            "to them); a branch on values the probes did not reach would be frozen at the sample's. "
            "warnings.simplefilter('ignore', torch.jit.TracerWarning) hides this", torch.jit.TracerWarning,
            stacklevel=_outside_the_package())
    return traced, kind


def capture(model, inputs, n_positional=None, keywords=(), output_to_loss=None, check=True):
    """(the C++ session, captured from the traced model; how the output holds the loss)."""
    traced, kind = trace(model, inputs, n_positional, keywords, output_to_loss, check)
    try:
        return _hiremate.Session(traced, list(inputs), type(model).__name__), kind
    except BadInputError as e:
        raise UntraceableModelError(str(e)) from e
    except HiremateError as e:
        raise UntraceableModelError(f"hiremate cannot run {type(model).__name__} node by node: {e}") from e
