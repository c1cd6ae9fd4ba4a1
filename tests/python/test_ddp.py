"""Wrapped models under DistributedDataParallel: two CPU processes on loopback (gloo), each with its
own data, 3 SGD steps beside plain DDP copies of the same models (ddp_worker.py). The wrapper's
gradients go through the parameters' own AccumulateGrad nodes, so DDP averages them: both ranks end
with the parameters plain DDP gives (1e-6), with no_sync accumulation, a hook on a parameter (fired
once per backward, as plainly), batch-norm buffers, find_unused_parameters, a scaled loss and
clip_grad_norm_. Rank 1 runs rank 0's plan."""
import os
import socket
import subprocess
import sys
import tempfile
import unittest

import torch

import support  # noqa: F401  (PYTHONPATH and the source dir)

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = ("plain", "no_sync", "hook", "batch_norm", "find_unused", "scaled", "clip")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def max_diff(a, b):
    return max((x - y).abs().max().item() for x, y in zip(a, b)) if a else 0.0


class DistributedDataParallelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), OMP_NUM_THREADS="1")
        procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "ddp_worker.py"), str(r), "2", cls.dir.name],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for r in range(2)]
        cls.logs = []
        for p in procs:
            try:
                out, _ = p.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise
            cls.logs.append((p.returncode, out))
        cls.results = {}
        for case in CASES:
            for r in range(2):
                path = os.path.join(cls.dir.name, f"{case}.rank{r}.pt")
                if os.path.exists(path):
                    cls.results[case, r] = torch.load(path)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_workers_succeed(self):
        for r, (code, out) in enumerate(self.logs):
            self.assertEqual(code, 0, f"rank {r}:\n{out}")

    def check_case(self, case):
        self.assertIn((case, 0), self.results, f"no result for {case}: {self.logs}")
        r0, r1 = self.results[case, 0], self.results[case, 1]
        self.assertGreater(r0["recomputations"], 0, "the plan recomputes: the test exercises the plan")
        self.assertFalse(r0["loaded"])
        self.assertTrue(r1["loaded"], "rank 1 runs the plan rank 0 made")
        self.assertEqual(r0["schedule"], r1["schedule"])
        for r in (r0, r1):
            self.assertLessEqual(max_diff(r["params"], r["plain_params"]), 1e-6, case)
            self.assertLessEqual(max_diff(r["buffers"], r["plain_buffers"]), 1e-6, case)
        self.assertEqual(max_diff(r0["params"], r1["params"]), 0.0, f"{case}: the ranks' parameters differ")
        # Buffers are not compared across ranks: DDP broadcasts rank 0's before each forward, which
        # then updates them with its own rank's batch (plain DDP's ranks differ the same way).
        return r0, r1

    def test_plain(self):
        self.check_case("plain")

    def test_no_sync_accumulation(self):
        r0, _ = self.check_case("no_sync")
        self.assertEqual(r0["backwards"], 6)

    def test_hook_fires_once_per_backward(self):
        for r in self.check_case("hook"):
            self.assertEqual(r["fired"]["wrapped"], r["backwards"])
            self.assertEqual(r["fired"]["wrapped"], r["fired"]["plain"])

    def test_batch_norm_buffers(self):
        r0, _ = self.check_case("batch_norm")
        self.assertTrue(r0["buffers"], "the model has batch-norm buffers")

    def test_find_unused_parameters(self):
        self.check_case("find_unused")

    def test_scaled_loss(self):
        self.check_case("scaled")

    def test_clip_grad_norm(self):
        self.check_case("clip")


if __name__ == "__main__":
    unittest.main()
