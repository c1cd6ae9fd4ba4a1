"""`hiremate profile` writes plain progress lines, without carriage returns or terminal escape codes,
when its stderr is a file or a pipe (a log), and its summary on stdout."""
import os
import subprocess
import tempfile
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

from support import CLI


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 32), nn.Linear(32, 4)

    def forward(self, x, y):
        return F.cross_entropy(self.b(torch.tanh(self.a(x))), y)


class ProfileLog(unittest.TestCase):
    def test_progress_in_a_log_is_plain_lines(self):
        torch.manual_seed(0)
        inputs = (torch.randn(8, 16), torch.randint(0, 4, (8,)))
        with tempfile.TemporaryDirectory() as d:
            model = os.path.join(d, "net.pt")
            torch.jit.trace(Net(), inputs).save(model)
            torch.save(list(inputs), os.path.join(d, "inputs.pt"))
            run = subprocess.run([os.path.abspath(CLI), "profile", model, "--inputs", os.path.join(d, "inputs.pt"),
                                  "--runs", "1"], capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("profiling: ", run.stderr)
        self.assertNotIn("\r", run.stderr)
        self.assertNotIn("\033", run.stderr)
        self.assertIn("keep-all peak", run.stdout)


if __name__ == "__main__":
    unittest.main()
