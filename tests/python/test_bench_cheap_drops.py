"""bench/solvers/cheap_drops.py (issue 23): the keep-all memory per stage and the share of the excess
above a budget that one-op recomputations can relieve, on a DAG small enough to count by hand."""
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "solvers"))
import cheap_drops  # noqa: E402


def graph(nodes, edges, order):
    """A generic DAG: one output per node (named as the node), `nodes` name -> bytes."""
    deps = {n: [] for n in nodes}
    for a, b in edges:
        deps[b].append(a)
    return {"format": "hiremate-graph", "version": 1, "name": "toy", "time_unit": "s",
            "data": [{"name": n, "kind": "data", "bytes": b} for n, b in nodes.items()],
            "compute": [{"name": n, "kind": "forward", "time": 1.0, "deps": deps[n], "outputs": [n]} for n in nodes],
            "order": order}


class CheapDrops(unittest.TestCase):
    def analyse(self, g):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "g.json")
            with open(path, "w") as f:
                json.dump(g, f)
            return cheap_drops.analyse(path)

    def test_a_skip_read_with_resident_inputs_is_relieved(self):
        # a -> b -> c -> d and a -> d: a (10 bytes) waits from b's read to d's. Keep-all per stage:
        # 10, 11, 12, 12. Dropping a after stage 1 and recomputing it at 3 (no inputs) frees stage 2.
        r = self.analyse(graph({"a": 10, "b": 1, "c": 1, "d": 1}, [("a", "b"), ("b", "c"), ("a", "d"), ("c", "d")],
                               ["a", "b", "c", "d"]))
        self.assertEqual(r["memory"], [10, 11, 12, 12])
        self.assertEqual(r["cheap_relief"], [0, 0, 10, 0])
        stages, excess, covered = cheap_drops.excess_cover(r, 90)  # cap 10.8: 0.2 + 1.2 + 1.2 above it
        self.assertEqual(stages, 3)
        self.assertAlmostEqual(excess, 2.6)
        self.assertAlmostEqual(covered, 1.2)  # stage 2 only: a is read at 3

    def test_a_skip_read_whose_input_is_gone_is_not(self):
        # s -> a -> b -> c -> d and a -> d: a's input s is last read by a, so recomputing a at d
        # needs s again (a cone): nothing is relieved.
        r = self.analyse(graph({"s": 1, "a": 10, "b": 1, "c": 1, "d": 1},
                               [("s", "a"), ("a", "b"), ("b", "c"), ("a", "d"), ("c", "d")], ["s", "a", "b", "c", "d"]))
        self.assertEqual(r["cheap_relief"], [0] * 5)
        stages, excess, covered = cheap_drops.excess_cover(r, 90)
        self.assertGreater(excess, 0)
        self.assertEqual(covered, 0)


if __name__ == "__main__":
    unittest.main()
