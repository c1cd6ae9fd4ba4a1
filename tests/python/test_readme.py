"""The README's command examples use only files of the repository (or ones an earlier example
writes), not the development workspace's ../shared/, and they run as written."""
import os
import re
import shlex
import subprocess
import tempfile
import unittest

from support import CLI, SOURCE_DIR


def sh_blocks():
    with open(os.path.join(SOURCE_DIR, "README.md")) as f:
        return re.findall(r"```sh\n(.*?)```", f.read(), re.S)


def commands():
    for block in sh_blocks():
        for line in block.splitlines():
            line = line.split("#")[0].strip()
            if line:
                yield line


class Readme(unittest.TestCase):
    def test_examples_use_files_of_the_repository(self):
        for line in commands():
            self.assertNotIn("../shared", line)
            for word in shlex.split(line):
                if word.startswith("examples/"):
                    self.assertTrue(os.path.exists(os.path.join(SOURCE_DIR, word)), f"{word} in: {line}")

    def test_the_cli_tour_runs_as_written(self):
        """The tour's build/hiremate lines, in order, in a scratch copy of the paths they write."""
        tour = [c for c in commands() if c.startswith("build/hiremate ") and "models/" not in c
                and "ed.json" not in c and "gpt2.json" not in c]  # the profile examples need LibTorch models
        self.assertGreaterEqual(len(tour), 6)
        with tempfile.TemporaryDirectory() as scratch:
            os.symlink(os.path.join(SOURCE_DIR, "examples"), os.path.join(scratch, "examples"))
            for c in tour:
                args = shlex.split(c)[1:]
                args = [a if a != "60" else "5" for a in args]  # the tour's --time-limit 60, shorter here
                run = subprocess.run([os.path.abspath(CLI)] + args, cwd=scratch, capture_output=True, text=True, timeout=120)
                self.assertEqual(run.returncode, 0, f"{c}\n{run.stderr}")


if __name__ == "__main__":
    unittest.main()
