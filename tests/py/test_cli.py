"""The command line, run as a subprocess: `python -m stablejax lower FILE::FUNC --arg ... --stage
jaxpr|stablehlo|hlo|optimized-hlo [--debug-info] [--x64] [--static N=V] [--passes] [--platform
...]`, `opt FILE.mlir --passes`, `run FILE.mlir --arg f32[3]=1,2,3`, their errors (short, with
the user's line), and the demo `python -m stablejax`."""
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


    def scaled(x, n, power=1):
      return x * n ** power


    def twice(x):
      return jnp.sin(x) + jnp.sin(x)
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


# ----------------------------------------------------------------------------------------------
# lower: --x64, --static, --passes, several --platforms, --stage hlo / optimized-hlo

def test_64_bit_arguments_need_x64(module_path):
  result = lower(module_path, "predict", "f64[2,4]", "f64[4,2]")
  assert result.returncode == 2
  assert "64-bit types need --x64" in result.stderr and "f64[2,4]" in result.stderr
  assert "Traceback" not in result.stderr
  out = ok(cli("lower", f"{module_path}::predict", "--arg", "f64[2,4]", "--arg", "f64[4,2]",
               "--x64"))
  assert "@main(%arg0: tensor<2x4xf64>, %arg1: tensor<4x2xf64>) -> tensor<f64>" in out


def test_static_arguments_by_name(module_path, tmp_path):
  out = ok(cli("lower", f"{module_path}::scaled", "--arg", "f32[3]", "--static", "n=3",
               "--static", "power=2", "--stage", "jaxpr"))
  jax, mod = jax_module(tmp_path)
  want = jax.make_jaxpr(lambda x: mod.scaled(x, n=3, power=2))(np.zeros(3, np.float32))
  assert out.strip() == strip_sharding(str(want))
  text = ok(cli("lower", f"{module_path}::scaled", "--arg", "f32[3]", "--static", "n=3",
                "--debug-info"))
  assert 'loc("x")' in text and "dense<3.000000e+00>" in text  # x keeps its name; n is baked in
  bad = cli("lower", f"{module_path}::scaled", "--arg", "f32[3]", "--static", "m=3")
  assert bad.returncode != 0 and "has no such parameter" in bad.stderr and "n, power" in bad.stderr


def test_passes(module_path):
  plain = ok(lower(module_path, "twice", "f32[3]"))
  assert stablehlo_ops(plain)["stablehlo.sine"] == 2
  for passes in ("cse", "dce,mlir-cse"):
    out = ok(cli("lower", f"{module_path}::twice", "--arg", "f32[3]", "--passes", passes))
    assert stablehlo_ops(out)["stablehlo.sine"] == 1, passes
  bad = cli("lower", f"{module_path}::twice", "--arg", "f32[3]", "--passes", "nope")
  assert bad.returncode == 1 and "unknown pass 'nope'" in bad.stderr
  assert "Traceback" not in bad.stderr


def test_several_platforms_make_one_module(module_path):
  out = ok(cli("lower", f"{module_path}::predict", "--arg", "f32[8,4]", "--arg", "f32[4,2]",
               "--platform", "cpu", "--platform", "cuda"))
  assert ('@main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, '
          "%arg1: tensor<8x4xf32>, %arg2: tensor<4x2xf32>)") in out
  hlo = ok(cli("lower", f"{module_path}::predict", "--arg", "f32[8,4]", "--arg", "f32[4,2]",
               "--platform", "cpu", "--platform", "cuda", "--stage", "optimized-hlo"))
  assert "ENTRY" in hlo and "s32[]" not in hlo.split("ENTRY")[1].split("\n")[0]  # index fixed


def test_hlo_stages(module_path):
  hlo = ok(lower(module_path, "predict", "f32[8,4]", "f32[4,2]", stage="hlo"))
  assert hlo.startswith("HloModule jit_predict") and "is_scheduled" not in hlo
  assert "tanh(" in hlo
  optimized = ok(lower(module_path, "predict", "f32[8,4]", "f32[4,2]", stage="optimized-hlo"))
  assert optimized.startswith("HloModule jit_predict, is_scheduled=true")
  # the user's name stack and line reach XLA's metadata
  assert 'op_name="jit(predict)/tanh"' in optimized
  assert re.search(rf'line={TANH_LINE} end_line={TANH_LINE}', optimized), optimized
  assert 'source_file="-"' not in optimized


def test_inline_debug_info(module_path):
  out = ok(cli("lower", f"{module_path}::predict", "--arg", "f32[8,4]", "--arg", "f32[4,2]",
               "--debug-info=inline"))
  tanh = next(line for line in out.splitlines() if "stablehlo.tanh" in line)
  assert re.search(rf'loc\("jit\(predict\)/tanh"\("predict"\("[^"]*cli_target\.py":{TANH_LINE}:',
                   tanh), tanh
  assert "#loc" not in out


# ----------------------------------------------------------------------------------------------
# A user's error: one short message with the user's line

def test_an_error_in_the_users_function_is_short(module_path):
  result = lower(module_path, "predict", "f32[8,4]", "f32[3,2]")
  assert result.returncode == 1
  err = result.stderr
  assert "Traceback" not in err
  assert "stablejax lower: TypeError:" in err
  assert re.search(r"at .*cli_target\.py:5 in predict\n\s+h = x @ w", err), err
  assert "--traceback" in err
  full = cli("lower", f"{module_path}::predict", "--arg", "f32[8,4]", "--arg", "f32[3,2]",
             "--traceback")
  assert full.returncode == 1 and "Traceback (most recent call last)" in full.stderr


# ----------------------------------------------------------------------------------------------
# opt and run on module files

DUPLICATED = """\
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %a, %b : tensor<3xf32>
  %1 = stablehlo.add %a, %b : tensor<3xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}
"""


@pytest.fixture
def module_file(tmp_path):
  path = tmp_path / "before.mlir"
  path.write_text(DUPLICATED)
  return path


@pytest.mark.parametrize("passes", ["mlir-cse", "cse", "builtin.module(func.func(cse))",
                                    "mlir-canonicalize,cse"])
def test_opt_runs_passes_on_a_module_file(module_file, passes):
  out = ok(cli("opt", module_file, "--passes", passes))
  assert stablehlo_ops(out) == {"stablehlo.add": 1, "stablehlo.multiply": 1}, out


def test_opt_errors(module_file, tmp_path):
  jaxpr_pass = cli("opt", module_file, "--passes", "dce")
  assert jaxpr_pass.returncode != 0 and "'dce' is a jaxpr pass" in jaxpr_pass.stderr
  unknown = cli("opt", module_file, "--passes", "no-such-pass")
  assert unknown.returncode == 1 and "does not parse" in unknown.stderr
  assert "Traceback" not in unknown.stderr
  bad = tmp_path / "bad.mlir"
  bad.write_text("func.func @main( {")
  result = cli("opt", bad, "--passes", "cse")
  assert result.returncode != 0 and "does not parse as MLIR" in result.stderr
  missing = cli("opt", tmp_path / "missing.mlir", "--passes", "cse")
  assert missing.returncode != 0 and "no such file" in missing.stderr


def test_run_a_module_file(module_file):
  out = ok(cli("run", module_file, "--arg", "f32[3]=1,2,3", "--arg", "f32[3]=1"))
  assert out.strip() == "result[0]: f32[3] = [ 4.,  9., 16.]"


def test_run_what_lower_printed(module_path, tmp_path):
  text = ok(cli("lower", f"{module_path}::scaled", "--arg", "f32[3]", "--static", "n=2",
                "--debug-info"))
  path = tmp_path / "scaled.mlir"
  path.write_text(text)
  assert ok(cli("run", path, "--arg", "f32[3]=1,2,3")).strip() == "result[0]: f32[3] = [2., 4., 6.]"


def test_run_module_errors(module_file):
  few = cli("run", module_file, "--arg", "f32[3]=1,2,3")
  assert few.returncode != 0
  assert "takes (f32[3], f32[3]); the --args give (f32[3])" in few.stderr
  wide = cli("run", module_file, "--arg", "f64[3]=1", "--arg", "f64[3]=1")
  assert wide.returncode == 2 and "need --x64" in wide.stderr
  count = cli("run", module_file, "--arg", "f32[3]=1,2", "--arg", "f32[3]=1")
  assert count.returncode != 0 and "2 values for a f32[3] of 3 elements" in count.stderr
