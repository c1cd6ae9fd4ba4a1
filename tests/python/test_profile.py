"""hiremate.profile(model, inputs): the measured graph, readable by the CLI."""
import os
import tempfile
import unittest

import hiremate
from support import cli, make


class Profile(unittest.TestCase):
    def test_gpt2_graph(self):
        model, inputs = make("gpt2")
        g = hiremate.profile(model, inputs, runs=2)
        self.assertEqual(g.json["format"], "hiremate-graph")
        kinds = [c["kind"] for c in g.json["compute"]]
        self.assertEqual(kinds.count("loss"), 1)
        self.assertEqual(kinds.count("forward"), len(g.nodes) + sum(1 for c in g.json["compute"]
                                                                    if ".view" in c["name"] and c["kind"] == "forward"))
        self.assertTrue(any("linear" in n["ops"] for n in g.nodes))
        self.assertGreater(g.keep_all_peak, 0)
        self.assertGreater(g.keep_all_time, 0)
        self.assertEqual(g.input_bytes, sum(t.numel() * t.element_size() for t in inputs))
        self.assertEqual(g.parameter_bytes, sum(p.numel() * p.element_size() for p in model.parameters()))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gpt2.json")
            g.save(path)
            info = cli("info", path)
        self.assertEqual(info["baseline_peak"], g.keep_all_peak + g.input_bytes)
        self.assertIn("compute nodes", repr(g))


if __name__ == "__main__":
    unittest.main()
