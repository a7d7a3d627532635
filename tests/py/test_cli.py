"""The command line, run as a subprocess: `python -m stablejax lower FILE::FUNC --arg ... --stage
jaxpr|stablehlo|compiled [--debug-info]`, its errors, and the demo `python -m stablejax`."""
from __future__ import annotations

import collections
import importlib.util
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# The module the CLI loads. NUMPY is replaced by `stablejax.numpy` for the CLI and by
# `jax.numpy` for the oracle, so both libraries run the same code.
SOURCE = textwrap.dedent("""\
    import NUMPY as jnp


    def predict(x, w):
      h = x @ w
      return jnp.sum(jnp.tanh(h))  # line 6


    def masked(n, mask, v):
      return v * mask * n, n + 1  # (not jnp.where: JAX wraps it in an inner jit)


    not_a_function = 3
    """)
TANH_LINE = 6


@pytest.fixture
def module_path(tmp_path):
  path = tmp_path / "cli_target.py"
  path.write_text(SOURCE.replace("NUMPY", "stablejax.numpy"))
  return path


def jax_module(tmp_path):
  jax = pytest.importorskip("jax")
  path = tmp_path / "cli_target_jax.py"
  path.write_text(SOURCE.replace("NUMPY", "jax.numpy"))
  spec = importlib.util.spec_from_file_location("cli_target_jax", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return jax, module


def cli(*args, cwd=None):
  return subprocess.run([sys.executable, "-m", "stablejax", *map(str, args)], cwd=cwd,
                        capture_output=True, text=True, timeout=120)


def lower(path, func, *arg_specs, stage=None, debug_info=False):
  argv = ["lower", f"{path}::{func}"]
  for spec in arg_specs:
    argv += ["--arg", spec]
  if stage:
    argv += ["--stage", stage]
  if debug_info:
    argv.append("--debug-info")
  return cli(*argv)


def ok(result) -> str:
  assert result.returncode == 0, result.stderr
  return result.stdout


def strip_sharding(text: str) -> str:
  return text.replace(" sharding=None", "").replace(" out_sharding=None", "")


def stablehlo_ops(text: str) -> collections.Counter:
  return collections.Counter(re.findall(r"\bstablehlo\.[a-z_]+", text))


# ----------------------------------------------------------------------------------------------
# The stages

def test_jaxpr_stage_prints_jaxs_jaxpr(module_path, tmp_path):
  out = ok(lower(module_path, "predict", "f32[8,4]", "f32[4,2]", stage="jaxpr"))
  jax, mod = jax_module(tmp_path)
  want = jax.make_jaxpr(mod.predict)(np.zeros((8, 4), np.float32), np.zeros((4, 2), np.float32))
  assert out.strip() == strip_sharding(str(want))


def test_jaxpr_stage_with_int_and_bool_arguments(module_path, tmp_path):
  out = ok(lower(module_path, "masked", "i32[]", "bool[3]", "f32[3]", stage="jaxpr"))
  jax, mod = jax_module(tmp_path)
  want = jax.make_jaxpr(mod.masked)(np.int32(0), np.zeros(3, bool), np.zeros(3, np.float32))
  assert out.strip() == strip_sharding(str(want))


@pytest.mark.parametrize("stage", [None, "stablehlo"], ids=["default", "explicit"])
def test_stablehlo_stage(module_path, tmp_path, stage):
  out = ok(lower(module_path, "predict", "f32[8,4]", "f32[4,2]", stage=stage))
  assert out.startswith("module @jit_predict attributes {mhlo.num_partitions = 1 : i32, "
                        "mhlo.num_replicas = 1 : i32} {")
  assert ("func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4x2xf32>) -> "
          "tensor<f32>") in out
  assert "loc(" not in out
  jax, mod = jax_module(tmp_path)
  theirs = jax.jit(mod.predict).lower(np.zeros((8, 4), np.float32),
                                      np.zeros((4, 2), np.float32)).as_text()
  assert stablehlo_ops(out) == stablehlo_ops(theirs)


def test_debug_info_adds_source_locations(module_path):
  out = ok(lower(module_path, "predict", "f32[8,4]", "f32[4,2]", debug_info=True))
  assert "stablehlo.tanh" in out and "loc(" in out
  # The tanh op points at the user's line in the loaded file.
  assert re.search(rf'loc\("[^"]*cli_target\.py":{TANH_LINE}:\d+ to :\d+\)', out), out
  assert "<frozen" not in out  # python -m's runpy frames are not the user's
  assert re.search(r'"jit\(predict\)/tanh"\(#loc\d*\)', out), out  # JAX's name stack


def test_compiled_stage_prints_optimized_hlo(module_path):
  out = ok(lower(module_path, "predict", "f32[8,4]", "f32[4,2]", stage="compiled"))
  assert out.startswith("HloModule jit_predict")
  assert "ENTRY" in out
  assert "f32[8,4]" in out and "f32[4,2]" in out
  assert "stablehlo." not in out  # XLA's HLO, not the StableHLO module


# ----------------------------------------------------------------------------------------------
# Errors: a non-zero exit and a message saying what is wrong

@pytest.mark.parametrize("spec", ["q32[8,4]", "f32[8,4", "f32", "f32[a]", "[3]", "float32[2]"])
def test_bad_arg_spec(module_path, spec):
  result = lower(module_path, "predict", spec, "f32[4,2]")
  assert result.returncode == 2  # argparse's usage error
  assert "bad --arg type" in result.stderr and repr(spec) in result.stderr
  assert "f32[8,4]" in result.stderr  # it shows the expected form
  assert "Traceback" not in result.stderr


def test_missing_function(module_path):
  result = lower(module_path, "nope", "f32[3]")
  assert result.returncode != 0
  assert "has no function 'nope'" in result.stderr
  assert "Traceback" not in result.stderr


def test_target_that_is_not_a_function(module_path):
  result = lower(module_path, "not_a_function", "f32[3]")
  assert result.returncode != 0
  assert "has no function 'not_a_function'" in result.stderr


def test_missing_file(tmp_path):
  result = lower(tmp_path / "missing.py", "f", "f32[3]")
  assert result.returncode != 0
  assert "no such file" in result.stderr and "missing.py" in result.stderr
  assert "Traceback" not in result.stderr


def test_target_without_function_name(module_path):
  result = cli("lower", module_path, "--arg", "f32[3]")
  assert result.returncode != 0
  assert "expected FILE::FUNC" in result.stderr


def test_bad_stage(module_path):
  result = lower(module_path, "predict", "f32[8,4]", "f32[4,2]", stage="llvm")
  assert result.returncode == 2
  assert "invalid choice" in result.stderr and "jaxpr" in result.stderr


def test_mismatched_argument_shapes_name_the_shapes(module_path):
  result = lower(module_path, "predict", "f32[8,4]", "f32[3,2]")
  assert result.returncode != 0
  assert "(8, 4)" in result.stderr and "(3, 2)" in result.stderr


# ----------------------------------------------------------------------------------------------
# The demo

def test_demo_prints_a_falling_loss():
  out = ok(cli())
  assert "jaxpr" in out and "module @jit_mlp" in out
  losses = [float(m) for m in re.findall(r"^step\s+\d+\s+loss\s+([0-9.eE+-]+)$", out, re.M)]
  assert len(losses) >= 2, out
  assert all(np.isfinite(losses))
  assert losses[-1] < losses[0]
