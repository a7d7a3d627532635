"""Differential fuzzing against JAX (tests/py/fuzz): random programs from a seed derived from the
commit, run eagerly and under jit, vmap, grad, jvp and their compositions. tools/fuzz.py runs
long campaigns; here BATCHED programs run under the compiled modes (many per compile), and as
many as fit in a time budget (up to COUNT) under every mode."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import zlib

import pytest

pytest.importorskip("jax")

from fuzz import batch, program, runner, shrink  # noqa: E402

COUNT = int(os.environ.get("STABLEJAX_FUZZ_COUNT", "300"))
BUDGET_S = float(os.environ.get("STABLEJAX_FUZZ_SECONDS", "15"))
BATCHED = int(os.environ.get("STABLEJAX_FUZZ_BATCHED", "20"))


def _seed() -> int:
  """A seed from the commit (`git rev-parse HEAD`), so each commit fuzzes different programs."""
  try:
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
                          cwd=os.path.dirname(__file__), check=True).stdout.strip()
    return zlib.crc32(head.encode())
  except (OSError, subprocess.SubprocessError):
    return 17


def _fail(seed: int, ran: int, found: list) -> None:
  i, prog, m = found[0]
  small = shrink.shrink(prog, m, budget=60)
  pytest.fail(f"{len(found)} mismatches in {ran} programs (seed {seed}); program {i}: {m}\n"
              f"shrunk reproducer:\n{runner.reproducer(small, m.mode)}")


@pytest.mark.slow
def test_fuzz_compiled_modes_batched():
  seed = _seed()
  indices = range(COUNT, COUNT + BATCHED)  # (not the programs the other test runs)
  progs = [runner.generate(seed, i) for i in indices]
  found = [(indices[k], progs[k], m) for start in range(0, len(progs), 20)
           for k, m in ((start + j, m) for j, m in batch.check_compiled(progs[start:start + 20]))
           if not runner.known_reason(m, progs[k])]
  print(f"fuzz seed {seed}: {len(progs)} programs under {batch.COMPILED_MODES}, "
        f"{len(found)} mismatches")
  if found:
    _fail(seed, len(progs), found)


@pytest.mark.slow
def test_fuzz_against_jax():
  seed = _seed()
  print(f"fuzz seed {seed} (python tools/fuzz.py --seed {seed} reruns it)")
  deadline = time.time() + BUDGET_S
  ran, found = 0, []
  for i in range(COUNT):
    if time.time() > deadline:
      break
    prog = runner.generate(seed, i)
    ran += 1
    found += [(i, prog, m) for m in runner.check(prog) if not runner.known_reason(m, prog)]
  print(f"{ran} programs, {len(found)} mismatches")
  if found:
    _fail(seed, ran, found)


def test_generator_is_deterministic():
  a, b = runner.generate(3, 5), runner.generate(3, 5)
  assert a.source() == b.source() and 5 <= len(a.lines) + 1


def test_shrinker_reduces_a_planted_mismatch(monkeypatch):
  """A fake stablejax bug (sin computed as cos) is found and shrunk to the one line using it."""
  prog = program.Program(
      [program.make_input(__import__("numpy").random.default_rng(0), 2, False, (3,), "float32")],
      [(1, "jnp.exp(v0)"), (2, "jnp.sin(v1)"), (3, "jnp.sum(v2, axis=None, keepdims=False)"),
       (4, "(v3 * 2)")], [4])
  real_library = runner.library

  def buggy(name):
    ns = dict(real_library(name))
    if name == "stablejax":
      ns["jnp"] = type("M", (), {"__getattr__": lambda self, n: (
          getattr(real_library(name)["jnp"], "cos" if n == "sin" else n))})()
    return ns
  monkeypatch.setattr(runner, "library", buggy)
  m = runner.check_mode(prog, "eager")
  assert m is not None and m.kind == "value"
  small = shrink.shrink(prog, m)
  assert [e for _, e in small.lines] == ["jnp.sin(v0)"], small.source()
  assert "jnp.sin(v0)" in runner.reproducer(small, "eager")


def _campaign_tool(monkeypatch):
  """tools/fuzz.py as a module (registered, as its dataclasses need)."""
  path = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "fuzz.py")
  spec = importlib.util.spec_from_file_location("fuzz_campaign", path)
  module = importlib.util.module_from_spec(spec)
  monkeypatch.setitem(sys.modules, spec.name, module)
  spec.loader.exec_module(module)
  return module


def test_campaign_reports_what_time_left_unrun(tmp_path, capsys, monkeypatch):
  """A campaign stopped by --time names the programs it did not run, for a later --start."""
  tool = _campaign_tool(monkeypatch)
  assert tool.spans([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7-8"
  out = tmp_path / "c.json"
  assert tool.main(["--count", "12", "--start", "3", "--time", "1e-9", "--json", str(out)]) == 0
  assert "0 programs" in capsys.readouterr().out
  assert json.loads(out.read_text())["not_run"] == "3-14"
