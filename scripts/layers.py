#!/usr/bin/env python3
"""The layers of src/hiremate, read from the code: which folder includes which, and whether every
arrow runs down (docs/architecture.md). A folder may include its own files and folders of a lower
layer; the solvers' folders are peers: solvers/<a> may include the solvers root (the Solver
interface and plain helpers) but never solvers/<b>.

    scripts/layers.py            print the picture (Mermaid; arrows that others imply left out)
                                 and the forbidden arrows, if any
    scripts/layers.py --write    also rewrite the picture in docs/architecture.md
    scripts/layers.py --check    exit 1 on a forbidden arrow or a stale picture (a ctest runs this)
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "architecture.md")
BEGIN, END = "<!-- layers:begin (scripts/layers.py --write) -->", "<!-- layers:end -->"

# Lowest first. Folders of one layer may not include each other (they are peers).
LAYERS = [
    ["common"],
    ["graph"],
    ["schedule"],
    ["milp", "partition"],
    ["stage_milp"],
    ["solvers"],      # the root of solvers/: the Solver interface, plain helpers
    ["solvers/*"],    # one folder per solver
    ["hierarchy"],
    ["planner"],
    ["torch"],
    ["cli", "python"],
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"hiremate/([^"]+)"', re.M)


def component(rel):
    """The layer component of a path relative to src/hiremate (or 'python' for the binding)."""
    parts = rel.split("/")
    if parts[0] == "solvers" and len(parts) > 2:
        return "solvers/" + parts[1]
    return parts[0]


def rank(comp):
    for i, layer in enumerate(LAYERS):
        if comp in layer or (comp.startswith("solvers/") and "solvers/*" in layer):
            return i
    return None


def sources():
    src = os.path.join(ROOT, "src", "hiremate")
    for d, _, files in os.walk(src):
        for f in files:
            if f.endswith((".h", ".cpp")):
                p = os.path.join(d, f)
                yield p, component(os.path.relpath(p, src))
    py = os.path.join(ROOT, "python", "src")
    if os.path.isdir(py):
        for f in sorted(os.listdir(py)):
            if f.endswith((".h", ".cpp")):
                yield os.path.join(py, f), "python"


def arrows():
    """{(from, to): [file, ...]} for every include across components."""
    edges = {}
    for path, comp in sources():
        for inc in INCLUDE.findall(open(path, encoding="utf-8").read()):
            to = component(inc)
            if to != comp:
                edges.setdefault((comp, to), []).append(os.path.relpath(path, ROOT))
    return edges


def forbidden(edges):
    bad = []
    for (a, b), files in sorted(edges.items()):
        ra, rb = rank(a), rank(b)
        if ra is None or rb is None:
            bad.append(f"{a} -> {b}: a folder missing from LAYERS in scripts/layers.py ({files[0]})")
        elif rb >= ra:
            why = "peers" if rb == ra else "upward"
            bad.append(f"{a} -> {b} ({why}): {', '.join(sorted(set(files)))}")
    return bad


def reduced(edges):
    """The arrows no chain of other arrows implies (a transitive reduction): the picture stays
    readable, and every include is still an arrow or a path in it."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)

    def reaches(a, b, skip):
        seen, todo = set(), [x for x in succ.get(a, ()) if (a, x) != skip]
        while todo:
            x = todo.pop()
            if x == b:
                return True
            if x not in seen:
                seen.add(x)
                todo += succ.get(x, ())
        return False
    return {e: f for e, f in edges.items() if not reaches(e[0], e[1], e)}


def mermaid(edges):
    comps = sorted({c for e in edges for c in e}, key=lambda c: (-(rank(c) or 0), c))
    edges = reduced(edges)
    ids = {c: re.sub(r"\W", "_", c) for c in comps}
    lines = ["```mermaid", "flowchart TD"]
    for i, layer in reversed(list(enumerate(LAYERS))):
        members = [c for c in comps if rank(c) == i]
        if members:
            lines.append(f"  subgraph L{i}[\" \"]")
            lines += [f"    {ids[c]}[{c}]" for c in members]
            lines.append("  end")
    for (a, b) in sorted(edges, key=lambda e: (-(rank(e[0]) or 0), e)):
        lines.append(f"  {ids[a]} --> {ids[b]}")
    lines.append("```")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="rewrite the picture in docs/architecture.md")
    ap.add_argument("--check", action="store_true", help="exit 1 on a forbidden arrow or a stale picture")
    a = ap.parse_args()
    edges = arrows()
    bad = forbidden(edges)
    picture = mermaid(edges)
    doc = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else ""
    if BEGIN not in doc or END not in doc:
        sys.exit(f"layers: {DOC} has no {BEGIN} ... {END} block")
    head, rest = doc.split(BEGIN, 1)
    current, tail = rest.split(END, 1)
    if a.write:
        open(DOC, "w", encoding="utf-8").write(f"{head}{BEGIN}\n{picture}\n{END}{tail}")
    elif not a.check:
        print(picture)
    for b in bad:
        print(f"layers: forbidden arrow {b}", file=sys.stderr)
    stale = not a.write and current.strip() != picture.strip()
    if stale:
        print("layers: docs/architecture.md's picture is stale: run scripts/layers.py --write", file=sys.stderr)
    if a.check and (bad or stale):
        sys.exit(1)
    if a.check:
        print(f"layers: {len(edges)} arrows between {len({c for e in edges for c in e})} folders, all downward; "
              "the picture is current")


if __name__ == "__main__":
    main()
