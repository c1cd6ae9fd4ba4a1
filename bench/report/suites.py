"""What the report runs: the four suites (captured models, public graphs, generated models, scale) as lists of jobs,
in full and in quick mode. A job is one graph, run by one process (run_graph.py): every solver at
every budget, so that the ratios of one graph are measured in one run.

A job is a dict:
  suite     "models", "public", "generated" or "scale"
  name      the graph's name in the tables
  graph     a file path, or None with `generate`: [kind, args...] (written by the worker)
  model     "generic" (Checkmate's fixed-order DAG model) or "training" (forward/backward pairs)
  flags     extra `hiremate solve` flags (["--training"] for the -train graphs as training graphs)
  budgets   [[label, --budget argument], ...]: label is the percentage shown in the tables
  solvers   solver names, in column order
  limits    {solver: seconds} for --time-limit (a solve still running at twice its limit is killed)
  skip      {solver: reason} for solvers not run on this graph (said so in the tables)
  budget_minutes  the whole report's time budget (report.py turns it into a "deadline")
A models job (run_model.py) names an example model (examples/models) instead of a graph, and adds
  steps     SGD steps of `hiremate train` per cell (step times: the median after the first; 11 in
            both modes, so that every median is over at least 10 steps, issue 21)
  lowest    [solver, halvings]: also the lowest budget that solver finds feasible (bisection), or None
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

# The public graphs get every solver (those for training graphs only refuse generic DAGs, in a blink,
# and the tables say why); the generated models and the scale suite the seven of issue 10.
ALL_SOLVERS = ["autograd", "recompute_all", "checkmate", "dagremat", "twremat", "rotor", "rockmate", "hilp", "hiremate"]
TRAINING_SOLVERS = ["autograd", "checkmate", "rotor", "rockmate", "twremat", "hilp", "hiremate"]

MODELS = ["transformer", "encoder_decoder", "unet", "chain"]
# The captured models: examples/models, traced, profiled and trained by `hiremate train`.
EXAMPLES = ["gpt2", "resnet", "transformer", "unet", "mlp_mixer"]

# Per mode: which graphs, which sizes, which budgets, and the time limits.
MODES = {
    "full": {
        "models": EXAMPLES,
        "model_budgets": ["100", "90", "70", "50", "35"],
        "model_solvers": TRAINING_SOLVERS,
        "model_steps": 11, "model_lowest": ["twremat", 7],
        "public": None,                               # every graph of expected.json
        "public_budgets": ["90", "80", "70"],
        "generated": [(k, benchlib.SIZES[k][500]) for k in MODELS],      # about 500 compute nodes
        "generated_budgets": ["100", "90", "70", "50", "35"],
        "scale_kind": "transformer",
        "scale_layers": [3, 36, 178, 356, 712],       # about 100, 1,000, 5,000, 10,000 and 20,000 compute nodes
        "scale_budget": "50",
        "checkmate_limit": 300, "limit": 300, "scale_limit": 300, "budget_minutes": None,
        "checkmate_max_nodes": 1000,                  # the flat MILP has O(nodes^2) variables
        "jobs": 1,                                    # graphs solved at once (the scale suite: always 1)
    },
    "quick": {
        "models": ["gpt2", "resnet"],
        "model_budgets": ["100", "70", "50"],
        "model_solvers": ["autograd", "rotor", "rockmate", "twremat", "hiremate"],
        "model_steps": 11, "model_lowest": ["twremat", 5], "model_hiremate_limit": 4,
        "public": ["rl1-n100", "fcn8-b32-train"],
        "public_budgets": ["90", "80", "70"],
        "generated": [(k, benchlib.SIZES[k][100]) for k in MODELS],      # about 100 compute nodes
        "generated_budgets": ["70", "50", "35"],  # 100 % and 90 % only in full mode
        "scale_kind": "transformer",
        "scale_layers": [3, 36, 178, 712],
        "scale_budget": "50",
        "checkmate_limit": 4, "limit": 6, "scale_limit": 12,
        "budget_minutes": 8.5,                        # solves that would end later are not started
        "checkmate_max_nodes": 400,
        "jobs": 2,
    },
}


def limits(m, solvers, other=None):
    return {s: (m["checkmate_limit"] if s == "checkmate" else other or m["limit"]) for s in solvers}


def model_jobs(m):
    lim = limits(m, m["model_solvers"])
    if m.get("model_hiremate_limit") and "hiremate" in lim:
        lim["hiremate"] = m["model_hiremate_limit"]
    return [{"suite": "models", "name": name, "graph": None, "model": "training", "flags": [],
             "budgets": [[p, p + "%"] for p in m["model_budgets"]], "solvers": m["model_solvers"],
             "limits": lim, "skip": {}, "steps": m["model_steps"], "lowest": m["model_lowest"],
             "checkmate_max_nodes": m["checkmate_max_nodes"]} for name in m["models"]]


def public_jobs(m):
    exp = benchlib.expected()
    jobs = []
    for name in m["public"] or list(exp):
        e = exp[name]
        path = os.path.join(benchlib.shared_dir(), e["file"])
        budgets = [[p, str(e["budgets"][p])] for p in m["public_budgets"]]
        jobs.append({"suite": "public", "name": name, "graph": path, "model": "generic", "flags": [],
                     "budgets": budgets, "solvers": ALL_SOLVERS, "limits": limits(m, ALL_SOLVERS), "skip": {}})
        if name.endswith("-train"):
            budgets = [[p, p + "%"] for p in m["public_budgets"]]
            jobs.append({"suite": "public", "name": name, "graph": path, "model": "training", "flags": ["--training"],
                         "budgets": budgets, "solvers": ALL_SOLVERS,
                         "limits": limits(m, ALL_SOLVERS), "skip": {}})
    return jobs


def generated_jobs(m):
    return [{"suite": "generated", "name": f"{kind}-{'-'.join(a for a in args if not a.startswith('-'))}",
             "graph": None, "generate": [kind, *args], "model": "training", "flags": [],
             "budgets": [[p, p + "%"] for p in m["generated_budgets"]], "solvers": TRAINING_SOLVERS,
             "limits": limits(m, TRAINING_SOLVERS), "skip": {}, "checkmate_max_nodes": m["checkmate_max_nodes"]}
            for kind, args in m["generated"]]


def scale_jobs(m):
    return [{"suite": "scale", "name": f"{m['scale_kind']}-{n}", "graph": None,
             "generate": [m["scale_kind"], "-n", str(n)], "model": "training", "flags": [],
             "budgets": [[m["scale_budget"], m["scale_budget"] + "%"]], "solvers": TRAINING_SOLVERS,
             "limits": limits(m, TRAINING_SOLVERS, m["scale_limit"]),
             "skip": {}, "checkmate_max_nodes": m["checkmate_max_nodes"]}
            for n in m["scale_layers"]]


def jobs(mode, suites=("models", "public", "generated", "scale")):
    m = MODES[mode]
    make = {"models": model_jobs, "public": public_jobs, "generated": generated_jobs, "scale": scale_jobs}
    return [dict(j, budget_minutes=m["budget_minutes"]) for s in suites for j in make[s](m)]
