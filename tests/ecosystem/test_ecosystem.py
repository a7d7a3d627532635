"""JAX's libraries on stablejax: each program in `programs/` is written against `import jax` and
runs twice, in separate processes: with JAX, and with stablejax through `python -m stablejax
run` (`install_as_jax`). Both print their losses, parameters and samples as JSON, which must
agree (bit for bit where the program says so), and both write their lowered training step,
which must parse and verify as a StableHLO module."""
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
    "equinox_train": ("equinox", 0.0),
    "chex_train": ("chex", 0.0),
    "numpyro_nuts": ("numpyro", 0.0),
    "numpyro_svi": ("numpyro", 0.0),
    "keras_dense": ("keras", 0.0),
    "keras_conv": ("keras", 0.0),
    "keras_lstm": ("keras", 0.0),
}

# library -> the environment its programs (and the import that checks it is installed) run in
LIBRARY_ENV = {"keras": {"KERAS_BACKEND": "jax"}}

# program -> what stablejax lacks for it: the case is an expected failure (strict: it fails the
# run once it passes, so the entry goes).
KNOWN_GAPS = {
}


def _cases() -> list:
  return [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=f"needs {KNOWN_GAPS[p]}"))
          if p in KNOWN_GAPS else p for p in sorted(CASES)]


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


@pytest.mark.parametrize("program", _cases())
def test_program_matches_jax(program, tmp_path, monkeypatch):
  library, tolerance = CASES[program]
  for name, value in LIBRARY_ENV.get(library, {}).items():
    monkeypatch.setenv(name, value)
  pytest.importorskip(library)
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
