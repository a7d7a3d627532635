"""JAX's libraries on stablejax: each program in `programs/` is written against `import jax` and
runs twice, in separate processes: with JAX, and with stablejax through `python -m stablejax
run` (`install_as_jax`). Both print their losses, parameters and samples as JSON, which must
agree (bit for bit where the program says so), and both write their lowered training step,
which must parse and verify as a StableHLO module."""
import importlib.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from stablejax.lowering.context import make_ir_context
from jaxlib.mlir import ir

PROGRAMS = pathlib.Path(__file__).parent / "programs"

# program -> (the library it needs, the largest difference allowed: 0 for bit for bit)
CASES = {
    "optax_train": ("optax", 0.0),
    "haiku_train": ("haiku", 0.0),
    "flax_linen": ("flax", 0.0),
    "flax_nnx": ("flax", 0.0),
}

# program -> the `jax` modules it needs that stablejax does not have yet: the case is skipped,
# naming them, until they exist (each ran bit for bit with stand-ins for them).
NEEDS = {
    "flax_linen": ("jax.extend", "jax.experimental.layout"),
    "flax_nnx": ("jax.extend", "jax.experimental.layout", "jax.experimental.checkify",
                 "jax.experimental.hijax"),
}


def _missing(program: str) -> list[str]:
  return [name for name in NEEDS.get(program, ())
          if importlib.util.find_spec("stablejax" + name[len("jax"):]) is None]


def _run(program: str, tmp_path: pathlib.Path, on_stablejax: bool) -> tuple[dict, str]:
  mlir = tmp_path / ("stablejax.mlir" if on_stablejax else "jax.mlir")
  script = str(PROGRAMS / f"{program}.py")
  cmd = ([sys.executable, "-m", "stablejax", "run", script] if on_stablejax else
         [sys.executable, script]) + [str(mlir)]
  out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
  assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{out.stderr[-3000:]}"
  return json.loads(out.stdout.splitlines()[-1]), mlir.read_text()


def _verify(text: str) -> None:
  with make_ir_context():
    module = ir.Module.parse(text)
    assert module.operation.verify()


@pytest.mark.parametrize("program", sorted(CASES))
def test_program_matches_jax(program, tmp_path):
  library, tolerance = CASES[program]
  pytest.importorskip(library)
  if _missing(program):
    pytest.skip(f"{program} needs {', '.join(_missing(program))}: stablejax does not have it")
  theirs, _ = _run(program, tmp_path, on_stablejax=False)
  ours, text = _run(program, tmp_path, on_stablejax=True)
  _verify(text)
  assert ours.keys() == theirs.keys()
  for key in theirs:
    got, want = _flat(ours[key]), _flat(theirs[key])
    assert [g.shape for g in got] == [w.shape for w in want], key
    for g, w in zip(got, want):
      if tolerance == 0:
        np.testing.assert_array_equal(g, w, err_msg=key)
      else:
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance, err_msg=key)


def _flat(value) -> list[np.ndarray]:
  """The arrays in a JSON value (nested lists of arrays, or one array)."""
  try:
    return [np.asarray(value, np.float64)]
  except ValueError:  # ragged: a list of arrays of different shapes
    return [a for v in value for a in _flat(v)]
