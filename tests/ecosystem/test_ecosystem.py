"""JAX's libraries on stablejax: each program in `programs/` is written against `import jax` and
runs twice, in separate processes: with JAX, and with stablejax through `python -m stablejax
run` (`install_as_jax`). Both print their losses, parameters and samples as JSON, which must
agree bit for bit (on JAX 0.10.2), and both write their lowered training step,
which must parse and verify as a StableHLO module."""
import importlib.metadata
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from stablejax.lowering.context import make_ir_context
from jaxlib.mlir import ir

PROGRAMS = pathlib.Path(__file__).parent / "programs"

# program -> the library it needs. On JAX 0.10.2, stablejax's API version, each agrees bit for bit.
CASES = {
    "optax_train": "optax",
    "haiku_train": "haiku",
    "flax_linen": "flax",
    "flax_nnx": "flax",
    "equinox_train": "equinox",
    "chex_train": "chex",
    "numpyro_nuts": "numpyro",
    "numpyro_svi": "numpyro",
    "keras_dense": "keras",
    "keras_conv": "keras",
    "keras_lstm": "keras",
}

# Under a newer JAX (Python 3.12 takes 0.12) the oracle itself changed: JAX 0.12 lowers some
# functions differently (tanh's derivative through `one_minus_square`, `jnp.where` and `clip` as
# nested jits), while stablejax keeps 0.10.2's. The values then agree to float32 rounding.
NEWER_JAX_TOLERANCE = 1e-6
JAX_VERSION = importlib.metadata.version("jax")
NEWER_JAX_SKIPS = {  # program -> why JAX itself cannot run it there
    "flax_nnx": "flax 0.12.8's nnx needs jax.experimental.hijax.HiPrimitive, gone in JAX 0.12",
}

# library -> the environment its programs (and the import that checks it is installed) run in
LIBRARY_ENV = {"keras": {"KERAS_BACKEND": "jax"}}

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
def test_program_matches_jax(program, tmp_path, monkeypatch):
  library, tolerance = CASES[program], 0.0
  if JAX_VERSION != "0.10.2":
    if program in NEWER_JAX_SKIPS:
      pytest.skip(f"JAX {JAX_VERSION}: {NEWER_JAX_SKIPS[program]}")
    tolerance = NEWER_JAX_TOLERANCE
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
