"""Run the lit + FileCheck tests of tests/lit as part of the pytest suite."""
import os
import re
import subprocess
import sys

LIT_DIR = os.path.join(os.path.dirname(__file__), os.pardir, "lit")


# lit run by this Python, the one stablejax is installed in (a `lit` script may name another)
LIT = [sys.executable, "-c", "from lit.main import main; main()"]


def test_lit_suite():
  proc = subprocess.run([*LIT, "-sv", "-j2", LIT_DIR], capture_output=True, text=True)
  assert proc.returncode == 0, f"lit failed:\n{proc.stdout}\n{proc.stderr}"
  tests = [f for f in os.listdir(LIT_DIR) if f.endswith(".py") and
           f not in ("lit.cfg.py", "lit_util.py")]
  # a test with `REQUIRES:` (an optional library, e.g. flax) is Unsupported where it is missing
  optional = [f for f in tests if "# REQUIRES:" in open(os.path.join(LIT_DIR, f)).read()]
  passed = re.search(r"Passed\s*:\s*(\d+)", proc.stdout)
  unsupported = re.search(r"Unsupported\s*:\s*(\d+)", proc.stdout)
  skipped = int(unsupported.group(1)) if unsupported else 0
  assert tests and passed and skipped <= len(optional), proc.stdout
  assert int(passed.group(1)) + skipped == len(tests), proc.stdout
