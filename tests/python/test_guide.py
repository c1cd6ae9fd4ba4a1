"""docs/python.md's example runs as written (from the repository root), every step's measured peak
is under the plan's budget, and the guide shows an output of the same form."""
import os
import re
import subprocess
import sys
import unittest

from support import SOURCE_DIR


def blocks(text, lang):
    return re.findall(r"```" + lang + r"\n(.*?)```", text, re.S)


class Guide(unittest.TestCase):
    def test_example_runs_as_written(self):
        with open(os.path.join(SOURCE_DIR, "docs", "python.md")) as f:
            guide = f.read()
        code = blocks(guide, "python")
        self.assertEqual(len(code), 1, "the guide has one Python example")
        env = dict(os.environ, OMP_NUM_THREADS="1")
        run = subprocess.run([sys.executable, "-c", code[0]], cwd=SOURCE_DIR, env=env, capture_output=True, text=True,
                             timeout=240)
        self.assertEqual(run.returncode, 0, run.stderr)
        out = run.stdout
        budget = int(re.search(r"^budget +([\d,]+) ", out, re.M).group(1).replace(",", ""))
        peaks = [int(p.replace(",", "")) for p in re.findall(r"^step \d+: loss [\d.]+, measured peak ([\d,]+) B", out, re.M)]
        self.assertEqual(len(peaks), 10, out)
        self.assertTrue(all(p <= budget for p in peaks), f"budget {budget}, peaks {peaks}")
        plain = int(re.search(r"^plain PyTorch: measured peak ([\d,]+) B", out, re.M).group(1).replace(",", ""))
        self.assertGreater(plain, budget)
        picture = re.search(r"^memory timeline: (\S+)$", out, re.M).group(1)  # the plan drawn
        with open(picture, "rb") as f:
            self.assertEqual(f.read(4), b"\x89PNG")

        shown = blocks(guide, "text")
        self.assertTrue(shown and "step 9: loss" in shown[0] and "H-ILP by level" in shown[0],
                        "the guide shows the example's output")


if __name__ == "__main__":
    unittest.main()
