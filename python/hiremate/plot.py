"""hiremate.plot_memory(wrapped, path): a picture of a HiRemate module's plan over one training step."""


def plot_memory(wrapped, path, title=None):
    """Draws the memory timeline of ``wrapped``'s plan to ``path`` (PNG, SVG or PDF by its
    extension) and returns ``path``: the activation bytes resident after each op of the schedule
    (filled) and while it runs (line), as the simulator counts them, the budget and the keep-all
    peak as lines, and recomputations marked. Activation bytes exclude the inputs,
    parameters and their gradients, as ``wrapped.plan`` does.

    Args:
        wrapped (hiremate.HiRemate): the planned module.
        path (str): the file to write.
        title (str, optional): the picture's title (default: the solver, budget and peak).

    Raises:
        BadInputError: ``wrapped`` is not a HiRemate module, or matplotlib is not installed
            (``apt-get install python3-matplotlib``).
    """
    from .errors import BadInputError
    from .wrapper import HiRemate
    if not isinstance(wrapped, HiRemate):
        raise BadInputError(f"plot_memory takes a hiremate.HiRemate module, not {type(wrapped).__name__}")
    try:
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise BadInputError(f"plot_memory needs matplotlib ({e}): apt-get install python3-matplotlib") from e
    plan = wrapped.plan
    points = wrapped._runner.session.timeline()
    inputs = plan.input_bytes
    during = [d - inputs for d, _, _ in points]
    after = [a - inputs for _, a, _ in points]
    ops = list(range(len(points)))
    again = [k for k, (_, _, r) in enumerate(points) if r]
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.fill_between(ops, after, step="mid", alpha=0.3, color="tab:blue", label="resident after the op")
    ax.step(ops, during, where="mid", color="tab:blue", linewidth=0.8, label="while the op runs")
    if again:
        ax.scatter(again, [during[k] for k in again], marker="v", color="tab:orange", s=14, zorder=3,
                   label=f"recomputations ({len(again)})")
    ax.axhline(plan.keep_all_peak, color="gray", linestyle=":", label=f"keep-all peak ({plan.keep_all_peak:,} B)")
    ax.axhline(plan.budget, color="tab:red", linestyle="--", label=f"budget ({plan.budget:,} B)")
    ax.set_xlabel("op of the schedule (forward half, then backward half)")
    ax.set_ylabel("activation bytes")
    ax.set_title(title or f"{plan.solver}: simulated peak {plan.simulated_peak:,} B of a {plan.budget:,} B budget")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
