"""Smoke test of the side-by-side benchmark (bench/run.py): it runs and prints its table. No
timing is asserted: the benchmark's printed ratios are the performance check."""
import json
import os
import subprocess
import sys

import pytest

RUN = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "run.py")


@pytest.mark.slow
def test_bench_run_quick_subset(tmp_path):
  out_json = tmp_path / "rows.json"
  done = subprocess.run([sys.executable, RUN, "--quick", "--rows", "dispatch 1 in",
                         "--json", str(out_json)], capture_output=True, text=True, timeout=300)
  assert done.returncode == 0, done.stdout + done.stderr
  lines = done.stdout.splitlines()
  header = next(i for i, line in enumerate(lines) if line.startswith("row "))
  assert "stablejax" in lines[header] and "ratio" in lines[header]
  assert lines[header + 1].startswith("cached jit dispatch 1 in/1 out")
  (row,) = json.loads(out_json.read_text())
  assert row["row"].startswith("cached jit dispatch 1 in") and row["note"] is None
  assert row["stablejax"] > 0
  if row["jax"] is not None:  # JAX installed: a ratio is printed and written
    assert row["ratio"] > 0 and f"{row['ratio']:.2f}" in lines[header + 1]


@pytest.mark.slow
def test_bench_hook_compares_the_hook_with_stablejax_directly():
  hook = os.path.join(os.path.dirname(RUN), "hook.py")
  done = subprocess.run([sys.executable, hook, "--quick"], capture_output=True, text=True,
                        timeout=300)
  assert done.returncode == 0, done.stdout + done.stderr  # every row ran, and the outputs agree
  lines = done.stdout.splitlines()
  assert lines[0].split()[:4] == ["row", "hook", "direct", "ratio"]
  assert [line.split("  ")[0] for line in lines[1:]] == [
      "cached jit dispatch 3 in/2 out f32[8]", "make_jaxpr, 3,000 eqns",
      "jit(f).lower(x).as_text(), 3,000 eqns", "MLP compile (first call of a fresh jit(step))",
      "MLP training step (cached)"]
