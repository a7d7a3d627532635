import numpy as np
import pytest

import stablejax as sj
from stablejax import core, dtypes

# (dtype, weak) pairs and JAX's promotion results (from jax.numpy.result_type semantics).
f32, i32, f16, u8, i8, b = (np.dtype(t) for t in ("float32", "int32", "float16", "uint8",
                                                  "int8", "bool"))


@pytest.mark.parametrize("a, b, expected", [
    ((i32, False), (f32, True), (f32, True)),
    ((f32, False), (f32, True), (f32, False)),
    ((i32, True), (f32, True), (f32, True)),
    ((u8, False), (i8, False), (np.dtype("int16"), False)),
    ((b, False), (i32, True), (i32, True)),
    ((f16, False), (f32, True), (f16, False)),
    ((i32, False), (f16, False), (f16, False)),
    ((u8, False), (i32, True), (u8, False)),
])
def test_promotion_lattice(a, b, expected):
  assert dtypes.lattice_join(a, b) == expected
  assert dtypes.lattice_join(b, a) == expected


def test_python_scalars_are_weak_and_32_bit():
  assert core.get_aval(1.0) == core.ShapedArray((), f32, True)
  assert core.get_aval(1) == core.ShapedArray((), i32, True)
  assert core.get_aval(True) == core.ShapedArray((), b, False)
  assert core.get_aval(np.ones(3)).dtype == f32


def test_enable_x64(x64):
  assert core.get_aval(1.0).dtype == np.float64
  assert core.get_aval(np.ones(3, np.int64)).dtype == np.int64


def test_config_rejects_unknown_option():
  with pytest.raises(ValueError, match="unknown config option"):
    sj.config.update("enable_x65", True)


def test_env_var_enables_x64(monkeypatch):
  import subprocess
  import sys
  out = subprocess.run(
      [sys.executable, "-c", "import stablejax as sj; print(sj.config.enable_x64)"],
      env={**__import__("os").environ, "STABLEJAX_ENABLE_X64": "1"}, capture_output=True,
      text=True, check=True)
  assert out.stdout.strip() == "True"


def test_str_short():
  assert core.ShapedArray((3, 4), f32).str_short() == "f32[3,4]"
  assert core.ShapedArray((), b).str_short() == "bool[]"
  assert hash(core.ShapedArray((3,), f32)) == hash(core.ShapedArray((3,), f32))
