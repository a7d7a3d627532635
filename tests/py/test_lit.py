"""Run the lit + FileCheck tests of tests/lit as part of the pytest suite."""
import os
import subprocess
import sys

LIT_DIR = os.path.join(os.path.dirname(__file__), os.pardir, "lit")


def test_lit_suite():
  proc = subprocess.run([sys.executable, "-m", "lit", "-q", "-j2", LIT_DIR],
                        capture_output=True, text=True)
  assert proc.returncode == 0, f"lit failed:\n{proc.stdout}\n{proc.stderr}"
