"""The package's exceptions. The C++ core's errors arrive as these (python/src/module.cpp): a bad
input as BadInputError, a budget no plan fits as InfeasibleBudgetError, anything else as
HiremateError. Each message says what went wrong, where, and what to do."""


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
    """No plan fits the budget: give a larger budget or a longer time_limit."""
