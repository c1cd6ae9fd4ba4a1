"""HiRemate(model, sample_inputs, budget): the model as a torch.nn.Module that trains under a memory
budget (research/hiremate.md §1.3, §10.10).

In training mode with grad enabled, forward() runs the plan's forward half in C++ inside one
torch.autograd.Function and returns the model's output; that Function's backward, called by
loss.backward(), seeds the output's gradient, runs the rest of the plan and adds each parameter's
gradient into its .grad, as AccumulateGrad does. The wrapper shares the model's parameters (it holds
the model as `.module`), so optimizers built on either see the same tensors. In eval mode or under
torch.no_grad() it runs the original module."""
import dataclasses
import sys
import threading
import time

import torch
from torch.autograd.function import once_differentiable

from . import errors
from .errors import BadInputError, HiremateError, InputMismatchError
from .plan import PlanInfo
from .progress import phase, status_text, verbosity
from .tracing import as_inputs, capture, check_model, layout, preserved, split_inputs

DEFAULT_TIME_LIMIT = 60.0  # seconds: SolveOptions' default, as on the command line

# The plan file HiRemate.load_plan() is building from, for __init__ (not an argument: no private
# parameter in the public signature).
_loading = threading.local()


def budget_text(budget):
    """bytes (int), a fraction of the keep-all activation peak (float in (0, 1]), or a string the
    CLI takes ("1.5GiB", "800MB", "50%", "0.5", "min")."""
    if isinstance(budget, bool):
        raise BadInputError(f"budget must be bytes, a fraction or a string like '1.5GiB' or '50%', not {budget!r}")
    if isinstance(budget, int):
        return str(budget)
    if isinstance(budget, float):
        if not 0.0 < budget <= 1.0:
            raise BadInputError(f"a float budget is a fraction of the keep-all activation peak, in (0, 1]; got "
                                f"{budget!r} (give bytes as an int or a string like '1.5GiB')")
        return format(budget, "f")
    if isinstance(budget, str):
        return budget.strip()
    raise BadInputError(f"budget must be bytes (int), a fraction (float) or a string like '1.5GiB' or '50%', "
                        f"not {type(budget).__name__}")


def shape_signature(inputs):
    """What forward() plans for once: the inputs' shapes, one tuple per input (positional first, then
    the keywords in the sample's order)."""
    return tuple(tuple(t.shape) for t in inputs)


def shapes_text(inputs):
    """(32, 16), (32,) -> "[32, 16], [32]"."""
    return ", ".join("[" + ", ".join(str(d) for d in t.shape) + "]" for t in inputs)


def batch_norms(model):
    """The batch norms whose batch counter the trace cannot advance: the trace computes
    `num_batches_tracked + 1` from module state alone, which capture folds into its one-time init
    step, so the wrapper advances it. With momentum=None the averaging factor is 1 / that counter,
    frozen into the trace at its sample's value: refused."""
    out = []
    for name, m in model.named_modules():
        if not isinstance(m, torch.nn.modules.batchnorm._BatchNorm) or not m.track_running_stats:
            continue
        if m.momentum is None:
            raise BadInputError(f"{name or 'the model'} is a batch norm with momentum=None, whose averaging factor "
                                "the trace freezes at the sample's batch count; give it a momentum (0.1 is "
                                "PyTorch's default)")
        if m.num_batches_tracked is not None:
            out.append(m)
    return out


def planned_once(plan, process_group):
    """`plan()` (which returns the plan file's text) on one rank; the others get that text.

    Under torch.distributed every rank must run the same schedule: DistributedDataParallel all-reduces
    gradients in buckets as they become ready, and plans made from each rank's own (noisy) profile
    can differ. So the group's first rank profiles and plans and broadcasts the plan file; the others
    load it (no profiling, no solver). Returns None on the planning rank (or without
    torch.distributed), the received text elsewhere. A failure on the planning rank is raised on
    every rank, so that none waits for a plan that will not come."""
    dist = torch.distributed
    if not (dist.is_available() and dist.is_initialized()):
        plan()
        return None
    group = process_group if process_group is not None else dist.group.WORLD
    if dist.get_world_size(group) == 1:
        plan()
        return None
    src = dist.distributed_c10d._get_global_rank(group, 0) if process_group is not None else 0
    if dist.get_rank() == src:
        try:
            message = [("ok", plan())]
        except Exception as e:  # noqa: BLE001 (any failure: the other ranks must not wait for a plan)
            dist.broadcast_object_list([(type(e).__name__, str(e))], src=src, group=group)
            raise
        dist.broadcast_object_list(message, src=src, group=group)
        return None
    message = [None]
    dist.broadcast_object_list(message, src=src, group=group)
    kind, text = message[0]
    if kind != "ok":
        raise getattr(errors, kind, HiremateError)(f"on rank {src}, which plans for the group: {text}")
    return text


class _PlanStep(torch.autograd.Function):
    """Ops before the loss marker in forward, the rest in backward. `dummy` requires grad so that
    backward always runs; the inputs get no gradient (they do not require it). The parameters are
    inputs too, so that the output's autograd graph reaches their AccumulateGrad nodes as in plain
    PyTorch (DistributedDataParallel's find_unused_parameters looks for them there); their
    gradients are delivered to those nodes by the plan's backward as each becomes final, so this
    backward returns None for them (their AccumulateGrad then does nothing)."""

    @staticmethod
    def forward(ctx, runner, dummy, n_inputs, *inputs_and_params):
        ctx.runner = runner
        ctx.step = runner.begin()
        ctx.n_args = len(inputs_and_params)
        return runner.session.forward_half(list(inputs_and_params[:n_inputs]))

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        ctx.runner.finish(ctx.step, grad)
        return (None, None, None) + (None,) * ctx.n_args


class _Runner:
    """The session and the parameters its gradients go to; one step at a time."""

    def __init__(self, session, params):
        self.session = session
        self.params = params  # per executor parameter, the module's Parameter
        self.step = 0

    def begin(self):
        self.step += 1
        return self.step

    def finish(self, step, grad):
        if step != self.step or not self.session.in_step:
            raise HiremateError("HiRemate runs one step at a time: call backward() on the output of the latest "
                                "forward() before the next forward(), and only once")
        # Each gradient goes through its parameter's own AccumulateGrad (hooks, DDP's reducer, .grad).
        self.session.backward_half(grad, [p if p.requires_grad else None for p in self.params])


class _Planned:
    """One plan for one input-shape signature: its runner (session and parameters), how the output
    holds the loss, and what the plan is."""

    def __init__(self, runner, output_kind, plan):
        self.runner = runner
        self.output_kind = output_kind
        self.plan = plan
        self.param_ptrs = [p.data_ptr() for p in runner.params]  # to detect parameters replaced later


class HiRemate(torch.nn.Module):
    """A module that trains `model` under a memory budget: traced, profiled and planned here for the
    sample's input shapes (and once more, in forward, for each new input shape), then every
    training-mode forward and backward runs the plan of its inputs' shapes.

    Args:
        model (torch.nn.Module): the model. Its forward takes tensors and returns the loss (a tensor),
            an output tensor whose loss you compute outside, a dict or ``ModelOutput`` with a ``loss``
            entry (Hugging Face style), or anything ``output_to_loss`` picks a tensor from.
        sample_inputs (Tensor, tuple of Tensors or dict of Tensors): forward's arguments for the trace:
            positional (a tensor or a tuple) or keyword (a dict: ``model(**sample_inputs)``). The plan is
            specialised to their shapes and dtypes; inputs of other shapes get a plan of their own
            (``replan_shapes``). CPU tensors that do not require grad.
        budget (int, float or str): activation memory: bytes (``int``), a fraction of the keep-all
            activation peak (``float`` in (0, 1], ``0.5``) or a string as on the command line
            (``"1.5GiB"``, ``"800MB"``, ``"1.5gb"``, ``"50%"``, ``"0.5"``), or ``"min"``: the floor
            below which no plan exists (:meth:`min_budget`). Activations exclude the parameters, their gradients
            and the inputs (as in HiRemate).
        solver (str): ``"hiremate"`` (the hierarchical planner, default), ``"hilp"``, ``"checkmate"``,
            ``"dagremat"``, ``"rotor"``, ``"rockmate"``, ``"twremat"``, ``"autograd"`` (keep
            everything) or ``"recompute_all"``, as ``hiremate solve --solver``.
        time_limit (float, optional): the solver's wall-clock limit in seconds (``None``: 60).

    Keyword Args:
        output_to_loss (callable, optional): ``output -> tensor``: the tensor to train on in what
            forward returns (``lambda out: out[0]`` for a tuple). Default: the output itself when it
            is a tensor, else its ``loss`` entry or attribute.
        profile_runs (int): timed runs per distinct node when profiling (the trimmed mean is kept).
        verbose (bool or int): ``True`` (or ``1``): print each phase (tracing, profiling, planning) on
            stderr as it starts and ends, the planning time of each input shape, and while a phase runs
            a status line about once a second (seconds elapsed of the time limit, the planner's phase,
            the best plan so far and its bound as overheads; one updating line on a terminal, plain
            lines in a log). ``2``: the phases, and the solvers' own log with CBC's instead of the
            status line (as ``hiremate solve -vv``). Default: ``False``.
        check_trace (bool): trace forward again on two probe inputs of the sample's shapes and refuse
            the model when it takes another path (Python control flow on tensor values, which a
            trace freezes). Default: ``True``.
        process_group (ProcessGroup, optional): under torch.distributed (initialized before wrapping),
            the group whose ranks must run one plan: its first rank profiles and plans, the others
            receive that plan. Default: the whole world; ignored without torch.distributed.
        replan_shapes (bool): inputs whose shapes differ from every plan's (a smaller last batch)
            are traced, profiled and planned once more, with the same budget, solver and time limit,
            and that plan is cached for the next inputs of those shapes (:attr:`plans`). ``False``:
            such inputs raise InputMismatchError. A budget in bytes applies to every shape as is; a
            fraction or percentage is of each shape's own keep-all peak. Under torch.distributed
            every rank must meet the same shapes in the same order (the planning rank broadcasts each
            plan). Default: ``True``.

    Parameter gradients go through each parameter's own AccumulateGrad, as in plain PyTorch, so
    ``.grad`` accumulation, hooks on parameters and DistributedDataParallel behave as without the
    wrapper. ``torch.autocast`` is refused (the plan is measured in the model's own dtypes).

    Returns from forward:
        In training mode with grad enabled: the loss tensor where forward returns a tensor or
        ``output_to_loss`` picks it; for a dict or ``ModelOutput``, an object of the same type holding
        only ``loss`` (the other entries are activations the plan frees). In eval mode or under
        ``torch.no_grad()``: whatever ``model`` returns.

    Raises:
        UntraceableModelError: torch.jit.trace fails, forward's path depends on the input values,
            the trace has TorchScript control flow, or there is no single tensor to train on.
        BadInputError: a malformed budget or solver, inputs that are not CPU tensors or require grad,
            a verbose level other than True, False, 0, 1 or 2.
        InfeasibleBudgetError: no plan can fit the budget (a proof: below the floor every schedule needs;
            the message names that floor and the node that sets it).
        NoPlanFoundError: the solver found no plan within its time limit (a larger budget, a longer
            time_limit or another solver may find one).
        BadInputError: (from forward) under torch.autocast.
        InputMismatchError: (from forward) inputs of other dtypes, count or keywords than the sample,
            or of other shapes with ``replan_shapes=False`` or a plan loaded by :meth:`load_plan`.
        UntraceableModelError, InfeasibleBudgetError, NoPlanFoundError: (from forward) planning a new
            input shape, as above.
        HiremateError: backward() out of order; anything else inside hiremate (a bug).

    Example::

        wrapped = hiremate.HiRemate(model, (x, y), budget="50%")
        loss = wrapped(x, y)
        loss.backward()
        optimizer.step()
    """

    def __init__(self, model, sample_inputs, budget, solver="hiremate", time_limit=None, *, output_to_loss=None,
                 profile_runs=5, check_trace=True, verbose=False, process_group=None, replan_shapes=True):
        super().__init__()
        check_model(model)
        if output_to_loss is not None and not callable(output_to_loss):
            raise BadInputError(f"output_to_loss must be a callable (output -> loss tensor), not "
                                f"{type(output_to_loss).__name__}")
        self.module = model
        inputs, self._n_positional, self._keywords = split_inputs(sample_inputs)
        self._dtypes = [dtype for _, dtype in layout(inputs)]
        self._verbose = verbosity(verbose)
        plan_file = getattr(_loading, "path", None)  # set by load_plan(), in this thread
        # What planning another input shape needs again (forward() plans once per shape signature).
        self._options = dict(budget=budget, solver=solver,
                             time_limit=float(DEFAULT_TIME_LIMIT if time_limit is None else time_limit),
                             output_to_loss=output_to_loss, profile_runs=profile_runs, check_trace=check_trace,
                             process_group=process_group, replan_shapes=bool(replan_shapes) and plan_file is None)
        self._plans = {}  # input-shape signature -> _Planned, in the order planned
        self._current = self._plan_for(inputs, plan_file)
        self._batch_norms = batch_norms(model)
        self._dummy = torch.empty(0, requires_grad=True)

    def _plan_for(self, inputs, plan_file=None):
        """Traces, profiles and plans for the shapes of `inputs` (or loads `plan_file`), caches the
        plan under their shape signature and returns it."""
        o, verbose, model = self._options, self._verbose, self.module
        started = time.monotonic()
        with preserved(model):
            with phase(f"tracing and capturing {type(model).__name__}", enabled=verbose > 0):
                session, output_kind = capture(model, inputs, self._n_positional, self._keywords,
                                               o["output_to_loss"], check=o["check_trace"])
            if plan_file is None:
                budget, solver, limit = o["budget"], o["solver"], o["time_limit"]

                def plan():
                    with phase("profiling", enabled=verbose > 0):
                        session.profile(int(o["profile_runs"]))
                    # verbose=2: the solvers' own log and CBC's instead of the status line.
                    with phase(f"planning with {solver} under {budget}", limit, enabled=verbose > 0,
                               status=lambda: status_text(session.progress()), ticker=verbose < 2):
                        session.plan(budget_text(budget), str(solver), limit, verbose if verbose >= 2 else 0)
                    return session.plan_text()

                text = planned_once(plan, o["process_group"])
                if text is not None:  # planned on another rank: this rank runs the same schedule
                    session.load(text, "the plan of rank 0")
            else:
                with open(plan_file) as f:
                    session.load(f.read(), str(plan_file))
        runner = _Runner(session, self._match_parameters(session))
        seconds = time.monotonic() - started
        info = dataclasses.replace(PlanInfo.from_summary(session.summary()), input_shapes=shape_signature(inputs),
                                   planning_seconds=seconds)
        if verbose > 0:
            print(f"hiremate: planned input shapes {shapes_text(inputs)} in {seconds:.1f} s (trace, profile and "
                  f"solve; {len(self._plans) + 1} plan(s) cached)", file=sys.stderr, flush=True)
        planned = _Planned(runner, output_kind, info)
        self._plans[info.input_shapes] = planned
        return planned

    @property
    def plan(self):
        """:class:`PlanInfo` of the plan of the latest forward's input shapes (the sample's until
        another shape runs)."""
        return self._current.plan

    @property
    def plans(self):
        """Every cached plan: a dict from the input-shape signature (a tuple of shapes, one per
        input, as ``PlanInfo.input_shapes``) to its :class:`PlanInfo`, in the order planned.
        ``planning_seconds`` says how long each took (trace, profile and solve)."""
        return {k: p.plan for k, p in self._plans.items()}

    @property
    def _runner(self):
        return self._current.runner

    @property
    def _output_kind(self):
        return self._current.output_kind

    @classmethod
    def load_plan(cls, model, sample_inputs, path, *, output_to_loss=None, check_trace=True):
        """A HiRemate module from a plan saved by :meth:`save_plan`: no profiling, no planning.

        Args:
            model, sample_inputs, output_to_loss, check_trace: as for :class:`HiRemate`.
            path (str): the file save_plan() wrote.

        Raises:
            BadInputError: the plan was made for another model code, parameter shapes or input
                shapes, or the file is not a plan.
        """
        _loading.path = path
        try:
            return cls(model, sample_inputs, budget=None, output_to_loss=output_to_loss, check_trace=check_trace)
        finally:
            _loading.path = None

    @classmethod
    def min_budget(cls, model, sample_inputs, *, output_to_loss=None, profile_runs=5, check_trace=True):
        """The floor of `model`'s budget on inputs shaped as `sample_inputs` (no plan below it):
        traces and profiles it (as :func:`hiremate.profile`; no planning) and returns a :class:`MinBudget`
        (``.bytes`` of activations, ``.percent`` of the keep-all activation peak, ``.node`` that sets
        it and why). ``HiRemate(..., budget="min")`` plans there; any budget below it raises
        InfeasibleBudgetError.

        Args:
            model, sample_inputs, output_to_loss, check_trace: as for :class:`HiRemate`.
            profile_runs (int): timed runs per distinct node.

        Raises:
            UntraceableModelError, BadInputError: as :class:`HiRemate`.
        """
        from .profile import profile
        return profile(model, sample_inputs, profile_runs, output_to_loss=output_to_loss,
                       check_trace=check_trace).min_budget

    def save_plan(self, path):
        """Writes the plan of the latest forward's input shapes (:attr:`plan`: the measured graph,
        the schedule, the summary) to `path` (JSON); :meth:`load_plan` with inputs of those shapes
        reads it.

        Args:
            path (str): the file to write.

        Raises:
            OSError: the file cannot be written.
        """
        with open(path, "w") as f:
            f.write(self._runner.session.plan_text())

    def report(self):
        """The plan of the latest forward's input shapes in words and, for the hierarchical planner, a
        table per level (a string); with several cached plans, a line per plan with its planning
        seconds."""
        text = self.plan.report()
        if len(self._plans) > 1:
            text += "\n" + "\n".join(
                ["Plans cached by input shapes:"] +
                [f"  {', '.join(str(list(s)) for s in k)}: {p.plan.planning_seconds:.1f} s to plan, simulated peak "
                 f"{p.plan.simulated_peak:,} B of {p.plan.budget:,} B" for k, p in self._plans.items()])
        return text

    def plot_memory(self, path, title=None):
        """Draws the memory timeline of the plan of the latest forward's input shapes (:attr:`plan`)
        to ``path`` (PNG, SVG or PDF by its extension) and returns ``path``, as
        :func:`hiremate.plot_memory`: activation bytes (inputs, parameters and their gradients
        excluded) resident after each op and while it runs, the budget and the keep-all peak as
        lines, recomputations marked.

        Args:
            path (str): the file to write.
            title (str, optional): the picture's title (default: the solver, budget and peak).

        Raises:
            BadInputError: matplotlib is not installed (``apt-get install python3-matplotlib``).
        """
        from .plot import plot_memory
        return plot_memory(self, path, title)

    @property
    def graph_json(self):
        """The measured graph the plan is for (hiremate's JSON, for `hiremate simulate`)."""
        return self._runner.session.graph_json()

    @property
    def schedule_json(self):
        """The plan's schedule (hiremate's schedule JSON, for `hiremate simulate`)."""
        return self._runner.session.schedule_json()

    def forward(self, *inputs, **kwargs):
        """Runs the plan's forward half (training mode with grad enabled) or the model itself. Inputs
        of shapes no plan has yet are planned first (``replan_shapes``), once.

        Args: forward's arguments, positional and keyword, as in the sample.

        Raises:
            InputMismatchError: inputs of other dtypes, count or keywords than the sample, or of new
                shapes where no plan can be made for them (``replan_shapes=False``, a loaded plan).
            UntraceableModelError, InfeasibleBudgetError, NoPlanFoundError: planning new shapes failed.
            BadInputError: inputs that require grad; the model's parameters replaced after wrapping;
                a call under torch.autocast.
        """
        if not self.training or not torch.is_grad_enabled():
            return self.module(*inputs, **kwargs)
        if torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled():
            raise BadInputError("HiRemate does not run under torch.autocast: the plan's bytes and times were measured "
                                "in the model's own dtypes, and autocast would change them. Cast the model instead "
                                "(model.to(torch.bfloat16)) before wrapping it, or train without autocast")
        if len(inputs) != self._n_positional or set(kwargs) != set(self._keywords):
            raise InputMismatchError(
                f"{len(inputs)} inputs and the keywords {sorted(kwargs)}, but the plan was made for "
                f"{self._n_positional} inputs and the keywords {sorted(self._keywords)} (the sample's): call it as "
                "with the sample")
        inputs = as_inputs(tuple(inputs) + tuple(kwargs[k] for k in self._keywords), "inputs")
        self._current = self._planned_for(inputs)
        if [p.data_ptr() for p in self._runner.params] != self._current.param_ptrs:
            raise BadInputError("the model's parameters were replaced after wrapping (model.to(), .half(), or "
                                "p.data = ...): the plan runs on the old tensors. Wrap the model again")
        grad_params = [p for p in self._runner.params if p.requires_grad]
        out = _PlanStep.apply(self._runner, self._dummy, len(inputs), *inputs, *grad_params)
        with torch.no_grad():
            for bn in self._batch_norms:  # as the module's own forward counts its training batches
                if bn.training and bn.track_running_stats:
                    bn.num_batches_tracked.add_(1)
        return self._output_kind.wrap(out)

    def _planned_for(self, inputs):
        """The cached plan for the shapes of `inputs`, planned now when they are new (and
        replan_shapes allows it)."""
        got = layout(inputs)
        names = [f"input {k}" for k in range(self._n_positional)] + [f"input {k!r}" for k in self._keywords]
        if [dtype for _, dtype in got] != self._dtypes:
            diff = [f"{n}: {g[1]} (sample {d})" for n, g, d in zip(names, got, self._dtypes) if g[1] != d]
            raise InputMismatchError("the plan was made for the sample's dtypes: " + "; ".join(diff) +
                                     ". Give inputs of the sample's dtypes, or wrap the model again with such a sample")
        key = shape_signature(inputs)
        planned = self._plans.get(key)
        if planned is not None:
            return planned
        if not self._options["replan_shapes"]:
            sample = self._current.plan.input_shapes
            diff = [f"{n}: {g} (sample {s})" for n, g, s in zip(names, key, sample) if g != s]
            hint = ""
            if all(len(g) == len(s) and g[1:] == s[1:] and g[:1] < s[:1] for g, s in zip(key, sample) if g != s):
                hint = (" (a smaller last batch? DataLoader(..., drop_last=True) drops it, or run it with "
                        "the model itself)")
            why = ("it was loaded from a plan file" if self._current.plan.loaded
                   else "replan_shapes=False")
            raise InputMismatchError("the plan was made for the sample's shapes and " + why + ": " + "; ".join(diff) +
                                     hint + ". Give inputs shaped as the sample, or wrap the model with "
                                     "HiRemate(..., replan_shapes=True), which plans once per input shape")
        return self._plan_for(inputs)

    def extra_repr(self):
        p = self.plan
        return (f"solver={p.solver}, budget={p.budget}, simulated_peak={p.simulated_peak}, "
                f"keep_all_peak={p.keep_all_peak}")

    def _match_parameters(self, session):
        by_key = {}
        for p in self.module.parameters():
            by_key.setdefault((p.data_ptr(), tuple(p.shape), p.dtype), p)
        out = []
        for t in session.parameters():
            p = by_key.get((t.data_ptr(), tuple(t.shape), t.dtype))
            if p is None:
                raise HiremateError("a parameter of the traced model is not one of model.parameters() "
                                    f"(shape {tuple(t.shape)}); hiremate cannot route its gradient")
            out.append(p)
        return out
