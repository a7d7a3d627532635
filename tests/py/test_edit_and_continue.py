"""Source lines to the end and edit and continue (issue 35): XLA's compiled ops carry the user's
name stack and frames (against JAX's metadata), `as_text(debug_info="inline")`,
`Lowered.with_module` (an edited module compiled with the function's pytrees; a changed signature
refused) and `jit(f).lower(lowering_rules=)` (rules for one lowering only)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, lax, pipeline
from stablejax.lowering import LoweringError, aval_to_ir_type, hlo
from stablejax.lowering.registry import lookup_rule

f32 = np.float32


def loss(x, y):
  z = jnp.sin(x) * y
  return jnp.sum(z) + 1.0


def metadata(hlo_text: str) -> dict[str, set]:
  """Per HLO opcode of the compiled module: the set of its (op_name, source line) metadata,
  the line resolved through the stack frame tables JAX and stablejax both print."""
  lines = {}
  files = dict(re.findall(r'^(\d+) \{file_name_id=\d+ function_name_id=\d+ line=(\d+)',
                          hlo_text, re.M))
  frames = dict(re.findall(r"^(\d+) \{file_location_id=(\d+)", hlo_text, re.M))
  for opcode, attrs in re.findall(r"= \S+ ([a-z-]+)\(.*metadata=\{([^}]*)\}", hlo_text):
    name = re.search(r'op_name="([^"]*)"', attrs)
    frame = re.search(r"stack_frame_id=(\d+)", attrs)
    line = files.get(frames.get(frame.group(1))) if frame else None
    lines.setdefault(opcode, set()).add((name and name.group(1), line))
  return lines


def test_compiled_metadata_matches_jaxs():
  jax = pytest.importorskip("jax")
  jjnp = pytest.importorskip("jax.numpy")

  def jax_loss(x, y):
    z = jjnp.sin(x) * y
    return jjnp.sum(z) + 1.0
  x = np.linspace(0, 1, 8, dtype=f32)
  ours = sj.jit(sj.grad(loss)).lower(x, x).compile().as_text()
  theirs = jax.jit(jax.grad(jax_loss)).lower(x, x).compile().as_text()
  assert 'source_file="-"' not in ours
  mine, want = metadata(ours), metadata(theirs.replace("jit(jax_loss)", "jit(loss)"))
  names = lambda m: {n for entries in m.values() for n, _ in entries if n and "/" in n}
  assert names(mine) == names(want) and "jit(loss)/jvp()/cos" in names(mine)
  # the source lines: the same offsets into the two (equally laid out) functions
  base = lambda fn: fn.__code__.co_firstlineno
  shift = lambda m, fn: {op: {(n, int(l) - base(fn)) for n, l in e if l and n and "/" in n}
                         for op, e in m.items()}
  assert shift(mine, loss) == shift(want, jax_loss)


def test_compiled_metadata_names_parameters_and_lines():
  x = np.ones(3, f32)
  text = sj.jit(loss).lower(x, x).compile().as_text()
  assert re.search(r'parameter\(0\), metadata=\{op_name="x"\}', text)
  assert f'line={loss.__code__.co_firstlineno + 1} ' in text  # the sin, in the file table
  assert __file__ in text


def test_jit_call_compiles_with_the_locations(monkeypatch):
  texts = []
  real = pipeline.runtime.compile_module
  monkeypatch.setattr(pipeline.runtime, "compile_module",
                      lambda m, *a, **k: texts.append(m) or real(m, *a, **k))
  np.testing.assert_allclose(sj.jit(lambda x: jnp.cos(x) * 3.0)(np.ones(2, f32) * 7),
                             np.cos(7.0) * 3.0, rtol=1e-6)
  assert texts and "/cos" in texts[0] and __file__ in texts[0]


def test_text_without_debug_info_is_unchanged_by_the_locations():
  x = np.ones(3, f32)
  lowered = sj.jit(loss).lower(x, x)
  text = lowered.as_text()
  assert "loc(" not in text and "result_info" not in text
  # the locations are those of the debug module: stripping them gives the same text again
  stripped = sj.jit(loss).lower(x, x, passes=["dce", "mlir-strip-debuginfo"]).as_text()
  assert stripped == text
  assert lowered.as_text(debug_info=True).count("loc(") > 3


def test_inline_debug_info_puts_each_location_on_its_line():
  x = np.ones(3, f32)
  lowered = sj.jit(loss).lower(x, x)
  text = lowered.as_text(debug_info="inline")
  assert "#loc" not in text
  line = loss.__code__.co_firstlineno + 1
  sine = next(ln for ln in text.splitlines() if "stablehlo.sine" in ln)
  assert re.search(rf'loc\("jit\(loss\)/sin"\(callsite\("loss"\("[^"]*test_edit_and_continue.py"'
                   rf':{line}:', sine), sine
  # the same ops, locations aside, as the alias form
  strip = lambda t: [re.sub(r" loc\(.*$", "", ln) for ln in t.splitlines()
                     if ln.strip() and not ln.startswith("#loc")]
  assert strip(text) == strip(lowered.as_text(debug_info=True))
  with pytest.raises(ValueError, match="debug_info must be True, False or 'inline'"):
    lowered.as_text(debug_info="aliases")


# ----------------------------------------------------------------------------------------------
# Edit and continue

def pytree_fn(params, x):
  return {"out": params["w"] * x + params["b"], "aux": jnp.sum(x)}


def test_with_module_compiles_the_edited_module_with_the_pytrees():
  params = {"w": np.full(3, 2.0, f32), "b": np.ones(3, f32)}
  x = np.arange(3, dtype=f32)
  lowered = sj.jit(pytree_fn).lower(params, x)
  edited = lowered.as_text().replace("stablehlo.multiply", "stablehlo.subtract")
  assert edited != lowered.as_text()
  new = lowered.with_module(edited)
  assert new.as_text() == edited
  out = new.compile()(params, x)
  assert set(out) == {"out", "aux"}
  np.testing.assert_allclose(out["out"], 2.0 - x + 1.0)
  np.testing.assert_allclose(out["aux"], 3.0)
  np.testing.assert_allclose(lowered.compile()(params, x)["out"], 2.0 * x + 1.0)  # unchanged
  assert lowered.cost_analysis()["flops"] > 0
  with pytest.raises(ValueError, match="edited module"):  # its flops are the traced program's
    new.cost_analysis()
  assert new.compile().cost_analysis()  # XLA's, of the edited module


def test_with_module_takes_an_ir_module():
  lowered = sj.jit(loss).lower(np.ones(3, f32), np.ones(3, f32))
  module = lowered.compiler_ir()
  new = lowered.with_module(module)
  np.testing.assert_allclose(new.compile()(np.zeros(3, f32), np.ones(3, f32)), 1.0)
  assert "result_info" in new.as_text(debug_info=True)


def test_with_module_refuses_a_changed_signature():
  lowered = sj.jit(loss).lower(np.ones(3, f32), np.ones(3, f32))
  text = lowered.as_text()
  bad = text.replace("%arg1: tensor<3xf32>", "%arg1: tensor<3xf16>").replace(
      "stablehlo.multiply %0, %arg1", "stablehlo.multiply %0, %c").replace(
      "%0 = stablehlo.sine %arg0 : tensor<3xf32>",
      "%0 = stablehlo.sine %arg0 : tensor<3xf32>\n    %c = stablehlo.convert %arg1 : "
      "(tensor<3xf16>) -> tensor<3xf32>")
  with pytest.raises(ValueError, match=r"argument 'y': tensor<3xf32> became tensor<3xf16>"):
    lowered.with_module(bad)
  dropped = text.replace(", %arg1: tensor<3xf32>", "").replace("%arg1", "%arg0")
  with pytest.raises(ValueError, match="2 arguments became 1"):
    lowered.with_module(dropped)
  with pytest.raises(ValueError, match="does not parse"):
    lowered.with_module("module { nonsense }")
  with pytest.raises(TypeError, match="MLIR text or a jaxlib.mlir.ir.Module"):
    lowered.with_module(3)


def test_lowering_rules_override_one_lowering_only():
  x, y = np.full(3, 5.0, f32), np.full(3, 2.0, f32)
  before = lookup_rule(lax.mul_p, "cpu")
  lowered = sj.jit(lambda a, b: a * b).lower(
      x, y, lowering_rules={lax.mul_p: lambda ctx, a, b: [hlo.subtract(a, b)]})
  assert "stablehlo.subtract" in lowered.as_text()
  np.testing.assert_allclose(lowered.compile()(x, y), 3.0)
  assert lookup_rule(lax.mul_p, "cpu") is before
  np.testing.assert_allclose(sj.jit(lambda a, b: a * b)(x, y), 10.0)


def test_lowering_rules_reach_nested_jits_and_trace():
  inner = sj.jit(lambda a: a * a)
  fn = sj.jit(lambda a: inner(a) + 1.0)
  rules = {lax.mul_p: lambda ctx, a, b: [hlo.add(a, b)]}
  x = np.full(2, 3.0, f32)
  np.testing.assert_allclose(fn.lower(x, lowering_rules=rules).compile()(x), 7.0)
  np.testing.assert_allclose(fn.trace(x).lower(lowering_rules=rules).compile()(x), 7.0)


def test_lowering_rules_are_checked():
  x = np.ones(2, f32)
  with pytest.raises(TypeError, match="is not a core.Primitive"):
    sj.jit(jnp.sin).lower(x, lowering_rules={"sin": lambda ctx, a: [a]})
  with pytest.raises(TypeError, match="the rule for 'sin' is not callable"):
    sj.jit(jnp.sin).lower(x, lowering_rules={lax.sin_p: 3})
  with pytest.raises(TypeError, match="must be a dict"):
    sj.jit(jnp.sin).lower(x, lowering_rules=[(lax.sin_p, lambda ctx, a: [a])])
  # a wrong result type is named, as for a registered user rule
  wrong = lambda ctx, a: [hlo.convert(aval_to_ir_type(core.ShapedArray((2,), np.float16)), a)]
  with pytest.raises(LoweringError, match=r"rule for 'sin' returned \[tensor<2xf16>\]"):
    sj.jit(jnp.sin).lower(x, lowering_rules={lax.sin_p: wrong})
