"""Computes, from the measured rows, where hiremate is behind (or ahead of) the other solvers and by
how much, as sentences for the report; nothing here is written by hand.

    versus(runs)                -> (verdict, sentence) for one row {solver: run}: "behind", "ahead",
                                   "tie", "no plan" or None when hiremate did not run
    public(results, expected)   -> lines: hiremate against our solvers (training rows), and our best
                                   against the published fixed-order cells (generic rows)
    generated(results, what)    -> lines: hiremate against the best other solver, per budget
    measured(results)           -> lines: the executor's measured peaks against the simulated ones and
                                   the budgets, and its step times against plain PyTorch (models suite)
    scale(results)              -> lines: hiremate's solve time against the fastest, and its overhead
    contradictions(results)     -> lines: rows where a solver says "proven infeasible" while another
                                   solver's plan (checked by the simulator) fits the same budget
Overheads are compared in percentage points; a difference under EPS points counts as a tie.
"""
EPS = 0.01
ME = "hiremate"


def _plan(r):
    return r is not None and r.get("overhead_percent") is not None and r.get("valid", False)


def _best(runs, exclude=ME):
    """(overhead, [solvers]) of the lowest overhead in the row among the others, or (None, [])."""
    others = {s: r["overhead_percent"] for s, r in runs.items() if s != exclude and _plan(r)}
    if not others:
        return None, []
    low = min(others.values())
    return low, sorted(s for s, v in others.items() if v - low < EPS)


def versus(runs):
    me = runs.get(ME)
    if me is None or me["status"] in ("skipped", "refused"):
        return None, None
    best, who = _best(runs)
    if not _plan(me):
        if best is None:
            return "tie", f"no solver found a plan ({ME}: {me['status']})"
        return "no plan", f"{ME} found no plan ({me['status']}), {', '.join(who)} did ({best:.2f} % overhead)"
    mine = me["overhead_percent"]
    if best is None:
        return "ahead", f"{ME} is the only solver with a plan ({mine:.2f} %)"
    d = mine - best
    if d > EPS:
        rel = f", {mine / best:.2f}x" if best > EPS else ""
        return "behind", f"{ME} {mine:.2f} % vs {', '.join(who)} {best:.2f} %: behind by {d:.2f} points{rel}"
    if d < -EPS:
        return "ahead", f"{ME} {mine:.2f} % vs best other ({', '.join(who)}) {best:.2f} %: ahead by {-d:.2f} points"
    return "tie", f"{ME} {mine:.2f} % ties {', '.join(who)}"


def _rows(results):
    for res in results:
        rows = {}
        for r in res["runs"]:
            rows.setdefault(r["budget"], {})[r["solver"]] = r
        for label, runs in rows.items():
            yield res, label, runs


def _summary(verdicts, what):
    n = len(verdicts)
    if n == 0:
        return [f"**{what}:** {ME} did not run on any row of this table."]
    count = {k: sum(1 for v in verdicts if v == k) for k in ("behind", "no plan", "tie", "ahead")}
    return [f"**{what}:** of {n} rows where {ME} ran, it is behind the best other solver in {count['behind']}, "
            f"has no plan where another has in {count['no plan']}, ties in {count['tie']} and is ahead in "
            f"{count['ahead']}."]


def _listing(items):
    return [f"- {name} at {label}{'' if label == 'lowest' else ' %'}: {text}" for name, label, _, text in items]


def public(results, expected):
    items = [(f"{res['name']} (training graph)", label, *versus(runs))
             for res, label, runs in _rows(results) if res["model"] == "training"]
    items = [i for i in items if i[2] is not None]
    lines = _summary([i[2] for i in items], "hiremate against our other solvers (training-graph rows)")
    lines += _listing([i for i in items if i[2] in ("behind", "no plan")])
    head = len(lines)
    gen = [(f"{res['name']} (generic DAG)", label, *versus(runs))
           for res, label, runs in _rows(results) if res["model"] == "generic"]
    gen = [i for i in gen if i[2] is not None]
    lines += [""] + _summary([i[2] for i in gen], "hiremate against our other solvers (fixed-order rows; on a "
                                                   "generic DAG hiremate plans with dagremat)")
    lines += _listing([i for i in gen if i[2] in ("behind", "no plan")])
    lines += ["", "In the fixed-order rows, our best solver against the published Checkmate and Moccasin cells "
              "(same model; FastSA re-orders, another model):"]
    gaps = []
    for res, label, runs in _rows(results):
        if res["model"] != "generic":
            continue
        best, who = _best(runs, exclude=None)
        pub = expected[res["name"]].get("published", {}).get(label, {})
        cells = {p: c["ci_percent"] for p, c in pub.items() if p in ("checkmate", "moccasin") and c}
        if not cells:
            continue
        pbest = min(cells.values())
        pwho = ", ".join(sorted(p for p, v in cells.items() if v == pbest))
        gaps.append(None if best is None else best - pbest)
        if best is None:
            lines.append(f"- {res['name']} at {label} %: no plan of ours; published {pwho} {pbest} %")
        elif best - pbest > 0.05:  # the published cells have one decimal
            lines.append(f"- {res['name']} at {label} %: ours ({', '.join(who)}) {best:.2f} % vs published {pwho} "
                         f"{pbest} %: behind by {best - pbest:.2f} points")
        else:
            lines.append(f"- {res['name']} at {label} %: ours ({', '.join(who)}) {best:.2f} % vs published {pwho} "
                         f"{pbest} %: level or ahead")
    behind = [g for g in gaps if g is None or g > 0.05]
    worst = max((g for g in gaps if g is not None), default=0)
    lines.insert(head, f"**Our best against the published Checkmate / Moccasin cells (fixed-order rows):** behind "
                       f"in {len(behind)} of {len(gaps)} rows with a published cell ({sum(g is None for g in gaps)} "
                       f"without a plan of ours), by up to {max(worst, 0):.2f} points of CI.")
    return lines


def generated(results, what=None):
    items = [(res["name"], label, *versus(runs)) for res, label, runs in _rows(results)]
    items = [i for i in items if i[2] is not None]
    name = what or results[0]["name"]
    return _summary([i[2] for i in items], f"{name}") + _listing([i for i in items if i[2] in ("behind", "no plan")])


def measured(results):
    runs = [r for res in results for r in res["runs"] if _plan(r) and r.get("measured_peak") is not None]
    if not runs:
        return ["**Executor:** no plan was executed."]
    over = [r for r in runs if r["measured_peak"] > r["budget_bytes"]]
    dev = max(abs(r["measured_peak"] - r["simulated_peak"]) / max(r["simulated_peak"], 1) for r in runs)
    slow = [100.0 * (r["step_cpu_time"] / r["plain_step_cpu_time"] - 1) for r in runs if r["plain_step_cpu_time"] > 0]
    grads = max(r["max_grad_diff"] for r in runs)
    return [f"**Executor** ({len(runs)} executed plans on {len(results)} models): measured activation peak over the "
            f"budget in {len(over)}; largest |measured - simulated| {100 * dev:.2f} % of the simulated peak; step "
            f"CPU time against plain PyTorch {min(slow):+.1f} % .. {max(slow):+.1f} %; largest relative gradient "
            f"difference {grads:.2g}."]


def scale(results):
    lines = []
    for res, label, runs in _rows(results):
        me = runs.get(ME)
        if me is None or me["status"] in ("skipped", "refused"):
            continue
        timed = {s: r["solve_seconds"] for s, r in runs.items() if s != ME and _plan(r)}
        head = f"- {res['name']} ({res['info']['nodes']} nodes): {ME} {me.get('solve_seconds', me.get('wall', 0)):.2f} s"
        if timed and _plan(me):
            fast = min(timed, key=timed.get)
            slower = [s for s, t in timed.items() if t < me["solve_seconds"]]
            head += (f"; faster than it: {', '.join(sorted(slower)) or 'none'} (fastest {fast}, "
                     f"{timed[fast]:.2f} s, {me['solve_seconds'] / max(timed[fast], 1e-3):.0f}x)")
        lines.append(head + "; overhead: " + versus(runs)[1])
    return [f"**{ME} at scale** (solve time, then overhead against the best other solver at the same budget):"] + lines


def contradictions(results):
    lines = []
    for res, label, runs in _rows(results):
        fits = sorted(s for s, r in runs.items() if _plan(r))
        for s, r in runs.items():
            # Only a flat proof ("proven infeasible: ..."): the planners' notes say their option menus had
            # no plan, which another solver may well beat.
            if r["status"] == "infeasible" and (r.get("note") or "").startswith("proven infeasible") and fits:
                lines.append(f"- {res['name']} ({res['model']}) at {label} %: {s} reports proven infeasible, yet "
                             f"{', '.join(fits)} found a plan that the simulator accepts under the same budget, in "
                             "the same memory model: a bug in that proof, or a solver model narrower than the "
                             "simulator's")
    return ["**Inconsistencies:**"] + lines if lines else []
