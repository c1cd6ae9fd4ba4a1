"""The package's exceptions. The C++ core's errors arrive as these (python/src/module.cpp): a bad
input as BadInputError, a budget proven to admit no plan as InfeasibleBudgetError, a solver that
gave up without such a proof as NoPlanFoundError, anything else as HiremateError. Each message says
what went wrong, where, and what to do."""


class HiremateError(RuntimeError):
    """Something inside hiremate failed (a bug: please report it with the message)."""


class BadInputError(HiremateError, ValueError):
    """An argument is wrong: a budget, a solver name, a plan file, a model's output."""


class UntraceableModelError(BadInputError):
    """torch.jit.trace cannot trace the model, or hiremate cannot capture the trace (control flow
    from a scripted submodule, an output that is not one tensor)."""


class InputMismatchError(BadInputError):
    """Inputs of another shape, dtype or device than the sample the plan was made for (a traced
    graph is specialised to its sample's shapes)."""


class InfeasibleBudgetError(HiremateError, ValueError):
    """Proven: no plan fits the budget (it is below what some operation alone needs, or an exact
    solver proved it for this graph). Only a larger budget helps."""


class NoPlanFoundError(HiremateError):
    """The solver found no plan under the budget but did not prove that none exists (a heuristic
    gave up, or the time limit ran out): a larger budget, a longer time_limit or another solver may
    find one. Not an InfeasibleBudgetError: catching that one does not catch this."""
