"""Inspection a reader can trace back: debug locations (columns, call-site chains, JAX's name
stack, backward ops at their primal's line), argument and result names, one function of a
module, the HLO dialect, XLA's optimized HLO, `compiler_ir` copies, and lit from anywhere."""
import inspect
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from jaxlib.mlir import ir, passmanager

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, stages

x3 = np.linspace(0.1, 1.0, 3).astype(np.float32)


def loss(x, y):
  z = jnp.sin(x) * y
  return jnp.sum(z)


def _line(fn, text):
  lines, start = inspect.getsourcelines(fn)
  return start + next(i for i, line in enumerate(lines) if text in line)


def _locations(text):
  """`#locN` -> its definition."""
  return dict(re.findall(r"^(#loc\d+) = loc\((.*)\)$", text, re.M))


def _op_location(text, op):
  """The name and innermost file position of the first `op` in the module."""
  locs = _locations(text)
  ref = re.search(rf"{re.escape(op)}\b.* loc\((#loc\d+)\)", text).group(1)
  name, inner = re.match(r'"([^"]*)"\((#loc\d+)\)', locs[ref]).groups()
  while inner in locs and not locs[inner].startswith('"/'):
    inner = re.search(r"#loc\d+", locs[inner]).group(0)
  return name, locs[inner]


def test_grad_locations_have_columns_name_stack_and_primal_lines():
  text = sj.jit(sj.grad(loss)).lower(x3, x3).as_text(debug_info=True)
  name, pos = _op_location(text, "stablehlo.cosine")
  assert name == "jit(loss)/jvp()/cos"
  assert pos == f'"{__file__}":{_line(loss, "jnp.sin")}:6 to :16'
  # the backward multiply by y is located at the primal multiply, not at the grad call
  name, pos = _op_location(text, "stablehlo.multiply")
  assert name == "jit(loss)/transpose(jvp())/mul"
  assert pos == f'"{__file__}":{_line(loss, "jnp.sin")}:6 to :20'
  assert "callsite(" in text  # the chain of the user's frames
  assert "test_grad_locations_have_columns_name_stack_and_primal_lines" in text


def test_vmap_locations_name_stack():
  text = sj.jit(sj.vmap(loss)).lower(np.ones((2, 3), np.float32),
                                     np.ones((2, 3), np.float32)).as_text(debug_info=True)
  assert _op_location(text, "stablehlo.sine")[0] == "jit(loss)/vmap()/sin"
  name, pos = _op_location(text, "stablehlo.reduce")
  assert name == "jit(loss)/vmap()/reduce_sum"
  assert pos == f'"{__file__}":{_line(loss, "jnp.sum")}:9 to :19'


def test_name_stack_rendering_follows_jax():
  assert core.name_stack_str((("transpose", True), ("jvp", True))) == "transpose(jvp())"
  assert core.name_stack_str((("jit(h)", False), ("vmap", True))) == "jit(h)/vmap()"
  assert core.name_stack_str((("jvp", True), ("scope", False))) == "jvp(scope)"


def test_call_site_chain_is_bounded():
  def deep(n, x):
    return jnp.sin(x) if n == 0 else deep(n - 1, x)
  jaxpr = sj.make_jaxpr(lambda x: deep(20, x))(x3)
  frames = jaxpr.eqns[0].source_info.frames
  assert len(frames) == core.SOURCE_FRAMES_LIMIT
  assert frames[0][0].co_name == "deep"


def test_argument_and_result_names():
  def f(x, d, *rest, k=1.0):
    return jnp.sin(x) * d["a"], {"u": k}
  lowered = sj.jit(f, keep_unused=True).lower(1.0, {"a": 2.0}, 3.0, k=4.0)  # (rest[0] unused)
  assert stages.arg_names_of(f, lowered.in_tree) == ["x", "d['a']", "rest[0]", "k"]
  lowered.arg_names = stages.arg_names_of(f, lowered.in_tree)
  text = lowered.as_text(debug_info=True)
  assert 'loc("x")' in text and "loc(\"d['a']\")" in text and 'loc("k")' in text
  assert 'jax.result_info = "result[0]"' in text
  assert "jax.result_info = \"result[1]['u']\"" in text
  assert "result_info" not in lowered.as_text() and "loc(" not in lowered.as_text()


def test_arg_names_skip_static_arguments():
  def f(n, x):
    return x * n
  tree = sj.tree_util.tree_structure(((1.0,), {}))
  assert stages.arg_names_of(f, tree, static_argnums={0}) == ["x"]
  assert stages.arg_names_of(None, tree) == ["args[0]"]


def test_as_text_one_function():
  def h(x):
    return jnp.sin(x)
  lowered = sj.jit(lambda x: sj.jit(h)(x) * 2).lower(x3)
  main = lowered.as_text(function="main")
  assert main.startswith("func.func public @main") and "module" not in main
  callee = [n for n in re.findall(r"func.func private @(\w+)", lowered.as_text())]
  assert callee and "stablehlo.sine" in lowered.as_text(function=callee[0])
  with pytest.raises(ValueError, match=r"no function 'nope'; its functions are \['main'"):
    lowered.as_text(function="nope")


def test_as_text_dialects():
  lowered = sj.jit(loss).lower(x3, x3)
  assert lowered.as_text("stablehlo") == lowered.as_text()
  hlo = lowered.as_text("hlo")
  assert hlo.startswith("HloModule jit_loss") and "sine(" in hlo and "stablehlo" not in hlo
  with pytest.raises(ValueError, match="unknown dialect 'mhlo'"):
    lowered.as_text("mhlo")


def test_compiled_as_text_is_optimized_hlo():
  text = sj.jit(loss).lower(x3, x3).compile().as_text()
  assert text.startswith("HloModule jit_loss") and "is_scheduled=true" in text
  assert "fusion" in text


def test_compiler_ir_is_a_copy_passes_do_not_leak():
  lowered = sj.jit(lambda x: jnp.sin(x) * 1.0 + 0.0 - jnp.sin(x)).lower(x3)
  before = lowered.as_text()
  module = lowered.compiler_ir()
  assert isinstance(module, ir.Module) and str(module) == before
  with module.context:
    passmanager.PassManager.parse("builtin.module(canonicalize,cse)").run(module.operation)
  assert str(module) != before  # the pass changed the copy
  assert lowered.as_text() == before and str(lowered.compiler_ir()) == before
  np.testing.assert_allclose(lowered.compile()(x3), np.zeros(3), atol=1e-6)


def test_debug_info_does_not_change_the_plain_module():
  lowered = sj.jit(sj.grad(loss)).lower(x3, x3)
  plain = lowered.as_text()
  lowered.as_text(debug_info=True)
  assert lowered.as_text() == plain and "loc(" not in plain


def test_lit_runs_from_another_directory_without_writing_into_the_source(tmp_path):
  lit_dir = os.path.join(os.path.dirname(__file__), os.pardir, "lit")
  before = set(os.listdir(lit_dir))
  proc = subprocess.run([sys.executable, "-c", "from lit.main import main; main()", "-q",
                         os.path.join(lit_dir, "locations.py")], cwd=tmp_path,
                        capture_output=True, text=True)
  assert proc.returncode == 0, proc.stdout + proc.stderr
  assert set(os.listdir(lit_dir)) - before == set()
  assert not os.path.exists(os.path.join(lit_dir, "Output", "locations.py.script"))
