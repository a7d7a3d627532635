"""IR dumps (`sj.config.dump_ir_to`, stablejax/ir_dump.py): every stage and pass of a compiled
function in numbered files, in pipeline order; `dump_ir_only_changed`; a failing pass keeps its
input and names the command reproducing it."""
import contextlib
import os
import subprocess
import sys

import numpy as np
import pytest
from jaxlib.mlir import ir

import stablejax as sj
import stablejax.numpy as jnp
from stablejax.lowering.context import make_ir_context
from stablejax.passes import registry


@contextlib.contextmanager
def dumping(root, only_changed=False):
  sj.config.update("dump_ir_to", str(root))
  sj.config.update("dump_ir_only_changed", only_changed)
  try:
    yield
  finally:
    sj.config.update("dump_ir_to", None)
    sj.config.update("dump_ir_only_changed", False)


def folders(root):
  return sorted(os.listdir(root))


def files(folder):
  return sorted(n for n in os.listdir(folder) if not n.endswith("-xla"))


def make_f():
  """A new function each time: a function compiled before is cached, and dumps nothing."""
  def f(x, y):
    z = jnp.sin(x) * 2.0
    unused = jnp.cos(y)  # noqa: F841  (dead: the dce pass removes it)
    return z + y
  return f


ARGS = (np.ones(3, np.float32), np.float32(2.0))
PASSES = ("dce", "cse", "mlir-canonicalize")


def test_files_of_every_stage_in_pipeline_order_and_parse(tmp_path):
  with dumping(tmp_path):
    out = sj.jit(make_f(), passes=PASSES)(*ARGS)
  np.testing.assert_allclose(out, np.sin(1.0) * 2 + 2, rtol=1e-6)
  (folder,) = folders(tmp_path)
  assert folder == "0000-jit_f"
  folder = tmp_path / folder
  assert files(folder) == [
      "00-jaxpr.txt", "01-jaxpr.after-dce.txt", "02-jaxpr.after-cse.txt", "03-stablehlo.mlir",
      "04-stablehlo.after-mlir-canonicalize.mlir", "05-hlo.before-optimizations.txt",
      "06-hlo.after-optimizations.txt"]
  assert (folder / "07-xla").is_dir()  # the rest of XLA's own dump
  read = lambda name: (folder / name).read_text()
  assert "cos" in read("00-jaxpr.txt") and "cos" not in read("01-jaxpr.after-dce.txt")
  assert read("01-jaxpr.after-dce.txt").startswith("{ lambda")
  with make_ir_context():
    for name in ("03-stablehlo.mlir", "04-stablehlo.after-mlir-canonicalize.mlir"):
      module = ir.Module.parse(read(name))
      assert module.operation.verify()
      assert "stablehlo.sine" in read(name)
  assert read("05-hlo.before-optimizations.txt").startswith("HloModule jit_f")
  assert "HloModule jit_f" in read("06-hlo.after-optimizations.txt")


def test_each_compiled_function_has_its_folder_and_cached_calls_add_none(tmp_path):
  g = sj.jit(make_f())
  with dumping(tmp_path):
    g(*ARGS)
    g(*ARGS)  # cached: no new folder
    g(np.ones(4, np.float32), np.float32(1.0))
  assert folders(tmp_path) == ["0000-jit_f", "0001-jit_f"]


def test_ahead_of_time_lower_then_compile_share_a_folder(tmp_path):
  with dumping(tmp_path):
    lowered = sj.jit(make_f()).lower(*ARGS)
    (folder,) = folders(tmp_path)
    assert files(tmp_path / folder)[-1] == "02-stablehlo.mlir"
    assert (tmp_path / folder / "02-stablehlo.mlir").read_text() == lowered.as_text()
    lowered.compile()
  assert folders(tmp_path) == [folder]
  assert files(tmp_path / folder)[-2:] == ["03-hlo.before-optimizations.txt",
                                           "04-hlo.after-optimizations.txt"]


def test_only_changed_skips_passes_that_change_nothing(tmp_path):
  with dumping(tmp_path, only_changed=True):
    sj.jit(make_f(), passes=PASSES)(*ARGS)
  (folder,) = folders(tmp_path)
  names = files(tmp_path / folder)
  assert "01-jaxpr.after-dce.txt" in names  # dce removed `cos`
  assert "02-jaxpr.after-cse.txt" not in names  # nothing to eliminate: not written
  assert names[2] == "03-stablehlo.mlir"  # the stages keep their numbers


def failing_pass(module):
  raise ValueError("the pass broke")


def test_a_failing_mlir_pass_keeps_its_input_and_prints_the_reproducer(tmp_path, monkeypatch,
                                                                       caplog):
  monkeypatch.setitem(registry._mlir_passes, "test-failing", failing_pass)
  with dumping(tmp_path, only_changed=True), pytest.raises(ValueError) as info:
    sj.jit(make_f(), passes=("dce", "mlir-strip-debuginfo", "test-failing")).lower(*ARGS)
  (folder,) = folders(tmp_path)
  folder = tmp_path / folder
  note = "\n".join(info.value.__notes__)
  before = folder / "04-before-test-failing.mlir"  # written now: only_changed skipped it
  assert f"reproduce with: stablejax opt {before} --passes test-failing" in note
  assert "stablejax opt" in caplog.text
  with make_ir_context():
    assert ir.Module.parse(before.read_text()).operation.verify()
  error = (folder / "04-test-failing.error.txt").read_text()
  assert "ValueError: the pass broke" in error and "stablejax opt" in error


def test_a_failing_jaxpr_pass_names_its_input(tmp_path, monkeypatch):
  def broken(closed):
    raise RuntimeError("jaxpr pass broke")
  monkeypatch.setitem(registry._jaxpr_passes, "test-broken", broken)
  with dumping(tmp_path), pytest.raises(RuntimeError) as info:
    sj.jit(make_f(), passes=("dce", "test-broken")).lower(*ARGS)
  (folder,) = folders(tmp_path)
  assert (f"test-broken failed; its input is {tmp_path / folder / '01-jaxpr.after-dce.txt'}"
          in "\n".join(info.value.__notes__))


def test_off_writes_nothing(tmp_path):
  assert sj.config.dump_ir_to is None
  sj.jit(make_f())(*ARGS)
  assert not os.listdir(tmp_path)


def test_the_environment_variable_turns_dumps_on(tmp_path):
  code = ("import numpy as np, stablejax as sj\n"
          "sj.jit(lambda x: x * 2)(np.ones(3, np.float32))\n")
  env = dict(os.environ, STABLEJAX_DUMP_IR_TO=str(tmp_path))
  subprocess.run([sys.executable, "-c", code], env=env, check=True)
  (folder,) = folders(tmp_path)
  assert folder == "0000-jit__lambda"
  assert "04-hlo.after-optimizations.txt" in files(tmp_path / folder)


def test_xla_per_pass_hlo_on_request(tmp_path):
  sj.config.update("dump_ir_xla_passes", True)
  try:
    with dumping(tmp_path):
      sj.jit(make_f())(*ARGS)
  finally:
    sj.config.update("dump_ir_xla_passes", False)
  (folder,) = folders(tmp_path)
  xla = [n for n in os.listdir(tmp_path / folder) if n.endswith("-xla")]
  assert xla == ["05-xla"]
  per_pass = [n for n in os.listdir(tmp_path / folder / "05-xla") if ".before_" in n
              and not n.endswith("before_optimizations.txt")]
  assert per_pass  # XLA's HLO around each of its passes
