"""The Python example of the project's README runs as printed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(CLIENT))
sys.path.insert(0, HERE)

from test_engine import binary  # noqa: E402


def readme_block(lang: str) -> str:
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Using it from your runtime", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"```" + lang + r"\n(.*?)```", section, re.S)
    if not m:
        raise AssertionError(f"the README's runtime section has no {lang} block")
    return m.group(1)


class TestReadmeExample(unittest.TestCase):
    def test_python_block_runs(self) -> None:
        ws = tempfile.mkdtemp(prefix="vfsctl-readme-")
        self.addCleanup(shutil.rmtree, ws, True)
        original = 'print("Hello")\n'
        with open(os.path.join(ws, "app.py"), "w") as f:
            f.write(original)
        env = dict(os.environ, VFSCTL=binary(), PYTHONPATH=CLIENT)
        out = subprocess.run(
            [sys.executable, "-c", readme_block("python")], cwd=ws, env=env, capture_output=True, text=True, timeout=120
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "True None Edited app.py with 1 edit (line 1).")
        with open(os.path.join(ws, "app.py")) as f:
            self.assertEqual(f.read(), original)  # the rewind took the edit back
        log = subprocess.run([binary(), "log", "--root", ws], capture_output=True, text=True, check=True).stdout
        self.assertIn("agent-1", log)
        self.assertIn("rewind", log)


if __name__ == "__main__":
    unittest.main()
