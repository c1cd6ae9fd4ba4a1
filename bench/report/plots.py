"""The report's PNG plots, with matplotlib (Debian's python3-matplotlib, Agg backend):

    overhead_vs_budget(result, path)   one model (captured or generated): simulated overhead against
                                       the budget, one line per solver (only the budgets where it has a plan)
    simulated_vs_measured(results, path)  the models suite: each executed plan's measured activation
                                       peak against its simulated one (MiB), one colour per model,
                                       one marker per solver, on the diagonal y = x
    solve_time_vs_size(results, path)  the scale suite: solve time against compute nodes, log-log, one
                                       line per solver; a hollow marker where the time limit was hit,
                                       and the limit as a dotted line
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tables import hit_limit, plan  # noqa: E402

MARKERS = "osD^v<>ph*"
STYLES = ["-", "--", "-.", ":"]


def style(k):
    """Marker, line style and a size that shrinks with k, so that solvers on the same points stay visible."""
    return {"marker": MARKERS[k % len(MARKERS)], "linestyle": STYLES[k % len(STYLES)], "markersize": max(3, 10 - k),
            "alpha": 0.85}


def budget_percent(r):
    """The budget in % of the keep-all peak; the bisected "lowest" budget carries its fraction."""
    return float(r["budget_fraction"]) * 100 if r["budget"] == "lowest" else float(r["budget"])


def overhead_vs_budget(result, path):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for k, s in enumerate(result["solvers"]):
        pts = sorted((budget_percent(r), r["overhead_percent"]) for r in result["runs"]
                     if r["solver"] == s and plan(r))
        if pts:
            ax.plot(*zip(*pts), label=s, **style(k))
    ax.set_xlabel("budget (% of the keep-all peak)")
    ax.set_ylabel("simulated overhead (% of keep-all time)")
    ax.set_title(f"{result['name']} ({result['info']['nodes']} compute nodes)")
    ax.invert_xaxis()
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def solve_time_vs_size(results, path):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    solvers = results[0]["solvers"] if results else []
    limits = set()
    for k, s in enumerate(solvers):
        pts = []
        for res in results:
            for r in res["runs"]:
                if r["solver"] == s and r["status"] not in ("skipped", "refused") and r.get("solve_seconds") is not None:
                    pts.append((res["info"]["nodes"], max(r["solve_seconds"], 1e-4), hit_limit(r) or not plan(r)))
                    if hit_limit(r):
                        limits.add(r["limit"])
        if not pts:
            continue
        pts.sort()
        line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], label=s, **style(k))
        hollow = [p for p in pts if p[2]]
        if hollow:
            ax.scatter([p[0] for p in hollow], [p[1] for p in hollow], s=120, facecolors="none",
                       edgecolors=line.get_color(), linewidths=1.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for lim in sorted(limits):
        ax.axhline(lim, color="grey", linestyle=":", linewidth=1)
        ax.text(0.01, lim, f"time limit {lim:g} s", transform=ax.get_yaxis_transform(), fontsize=7, color="grey",
                va="bottom")
    ax.set_xlabel("compute nodes")
    ax.set_ylabel("solve time (s)")
    ax.set_title("solve time against graph size (circled: limit hit or no plan)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def simulated_vs_measured(results, path):
    fig, ax = plt.subplots(figsize=(6.4, 5.0))
    mib = 1 / 2 ** 20
    solvers = sorted({r["solver"] for res in results for r in res["runs"]})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    hi = 0.0
    for i, res in enumerate(results):
        c = colours[i % len(colours)]
        ax.plot([], [], color=c, linewidth=6, label=res["name"])  # the model's legend entry: its colour
        for k, s in enumerate(solvers):
            pts = [(r["simulated_peak"] * mib, r["measured_peak"] * mib) for r in res["runs"]
                   if r["solver"] == s and plan(r) and r.get("measured_peak") is not None]
            if pts:
                # Hollow markers of decreasing size: solvers with the same plan stay visible on one point.
                ax.scatter(*zip(*pts), facecolors="none", edgecolors=c, marker=MARKERS[k % len(MARKERS)],
                           s=max(20, 90 - 14 * k), linewidths=1.2)
                hi = max(hi, *(max(p) for p in pts))
    for k, s in enumerate(solvers):  # the solvers' legend entries, in grey
        ax.scatter([], [], facecolors="none", edgecolors="grey", marker=MARKERS[k % len(MARKERS)], label=s)
    ax.plot([0, hi * 1.05], [0, hi * 1.05], color="black", linewidth=0.8, linestyle="--", label="measured = simulated")
    ax.set_xlim(0, hi * 1.05)
    ax.set_ylim(0, hi * 1.05)
    ax.set_aspect("equal")
    ax.set_xlabel("simulated activation peak (MiB)")
    ax.set_ylabel("measured activation peak (MiB)")
    ax.set_title("executor's measured activation peak against the simulated one\n(colour: model, marker: solver)",
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
