"""Platforms: lowering for every platform of the table without a device, rules per platform
(replacing one warns), `lower_fun` inside a rule using the module's platform rules, and
multi-platform modules (`lower(platforms=...)`: a platform index argument and a
`stablehlo.case` per platform-specific rule) that compile and run with the device's branch."""
import warnings

import numpy as np
import pytest

import stablejax as sj
from stablejax import core, lax, lowering, platforms, runtime
from stablejax.lowering import (
    LoweringError, hlo, lower_fun, lower_jaxpr, register_lowering)

f32 = np.float32


def _prim(name: str) -> core.Primitive:
  prim = core.Primitive(name)
  prim.def_abstract_eval(lambda x: x)
  return prim


# Doubles on cpu, squares on cuda, negates elsewhere.
per_platform = _prim("test_per_platform")
register_lowering(per_platform, lambda ctx, x: hlo.negate(x))
register_lowering(per_platform, lambda ctx, x: hlo.add(x, x), platform="cpu")
register_lowering(per_platform, lambda ctx, x: hlo.multiply(x, x), platform="cuda")
BRANCH = {"cpu": lambda x: 2 * x, "cuda": lambda x: x * x, "rocm": np.negative,
          "tpu": np.negative}


def _f(x):
  return sj.numpy.sin(per_platform.bind(x)) + 1.


@pytest.mark.parametrize("platform", platforms.PLATFORMS)
def test_lower_for_every_platform_without_a_device(platform):
  def g(x):
    y = lax.cond(x[0] > 0, lambda x: x * 2, lambda x: -x, x)
    return lax.scan(lambda c, v: (c + v, c), 0., y)[0] + per_platform.bind(x).sum()
  text = sj.jit(g).lower(np.ones(3, f32), platform=platform).as_text()
  assert "stablehlo.case" in text and "stablehlo.while" in text
  want = {"cpu": "stablehlo.add %arg0, %arg0", "cuda": "stablehlo.multiply %arg0, %arg0",
          "rocm": "stablehlo.negate %arg0", "tpu": "stablehlo.negate %arg0",
          "iree": "stablehlo.negate %arg0"}[platform]
  assert want in text


def test_replacing_a_rule_for_the_same_platform_warns():
  prim = _prim("test_replace_rule")
  register_lowering(prim, lambda ctx, x: x, platform="cuda")
  with pytest.warns(UserWarning,
                    match="rule for 'cuda' of primitive 'test_replace_rule'.*platform='gpu'"):
    register_lowering(prim, lambda ctx, x: x, platform="gpu")
  with pytest.warns(UserWarning, match="'rocm' of primitive 'test_replace_rule'"):
    register_lowering(prim, lambda ctx, x: x, platform="rocm")
  default = lambda ctx, x: x  # noqa: E731
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    register_lowering(prim, default)
    register_lowering(prim, default)  # the same rule again: nothing replaced
    register_lowering(prim, lambda ctx, x: x, platform="tpu")  # a new platform
  with pytest.warns(UserWarning, match="default lowering rule of primitive"):
    register_lowering(prim, lambda ctx, x: x)


def test_lower_fun_inside_a_rule_uses_the_module_platform_rules():
  outer = _prim("test_outer_lower_fun")
  register_lowering(outer, lower_fun(lambda x: per_platform.bind(lax.neg(x))))
  for platform, op in [("cpu", "stablehlo.add"), ("cuda", "stablehlo.multiply"),
                       ("tpu", "stablehlo.negate %0")]:
    assert op in sj.jit(outer.bind).lower(f32(1), platform=platform).as_text()
  text = sj.jit(outer.bind).lower(f32(1), platforms=("cpu", "cuda")).as_text()
  assert text.count("stablehlo.case") == 1 and "stablehlo.add" in text
  assert "stablehlo.multiply" in text


def test_multi_platform_module_selects_rules_with_a_case_on_the_platform_index():
  lowered = sj.jit(_f).lower(f32(3), platforms=("cpu", "cuda"))
  text = lowered.as_text()
  assert ("@main(%arg0: tensor<i32> {jax.global_constant = \"_platform_index\"}, "
          "%arg1: tensor<f32>) -> tensor<f32>") in text
  assert '"stablehlo.case"(%arg0)' in text and text.count("stablehlo.return") == 2
  assert "stablehlo.add %arg1, %arg1" in text and "stablehlo.multiply %arg1, %arg1" in text
  assert text.count("stablehlo.sine") == 1  # the same rule everywhere: no case
  assert lowered.platforms == ("cpu", "cuda") and lowered.platform is None


@pytest.mark.parametrize("plats", [("cpu", "cuda"), ("cuda", "tpu", "cpu"), ("rocm", "cpu")])
def test_multi_platform_module_runs_the_branch_of_the_device(plats):
  compiled = sj.jit(_f).lower(f32(3), platforms=plats).compile()
  platform = runtime.platform_of(compiled.executable.device)
  want = np.sin(BRANCH[platform](f32(3))) + 1
  np.testing.assert_allclose(np.asarray(compiled(f32(3))), want, rtol=1e-6)
  assert compiled.executable.in_avals[0].shape == ()  # no platform index to pass


def test_multi_platform_nested_jit_callee_takes_the_platform_index():
  inner = sj.jit(_f)
  lowered = sj.jit(lambda x: inner(x) * 2.).lower(f32(2), platforms=("cuda", "cpu"))
  text = lowered.as_text()
  assert ("func.func private @_f(%arg0: tensor<i32> {jax.global_constant = \"_platform_index\"}"
          ", %arg1: tensor<f32>)") in text
  assert "call @_f(%arg0, %arg1)" in text
  platform = runtime.platform_of(lowered.compile().executable.device)
  np.testing.assert_allclose(lowered.compile()(f32(2)),
                             (np.sin(BRANCH[platform](f32(2))) + 1) * 2, rtol=1e-6)


class _Ordered(core.Effect):
  ordered = True

  def __repr__(self):
    return "TestOrdered"


def test_multi_platform_rules_thread_the_tokens_of_ordered_effects():
  effect = _Ordered()
  prim = _prim("test_ordered_per_platform")
  prim.def_effects(lambda: (effect,))

  def rule(op):
    def lower(ctx, x):
      ctx.set_tokens_out({effect: hlo.after_all([ctx.tokens_in[effect]])})
      return op(x)
    return lower
  register_lowering(prim, rule(hlo.sine), platform="cpu")
  register_lowering(prim, rule(hlo.cosine), platform="cuda")
  lowered = sj.jit(lambda x: prim.bind(prim.bind(x))).lower(f32(1), platforms=("cpu", "cuda"))
  text = lowered.as_text()
  assert text.count("(tensor<i32>) -> (!stablehlo.token, tensor<f32>)") == 2
  assert "%2:2 = \"stablehlo.case\"(%arg0)" in text and "after_all %1#0" in text
  platform = runtime.platform_of(lowered.compile().executable.device)
  op = np.sin if platform == "cpu" else np.cos
  np.testing.assert_allclose(lowered.compile()(f32(1)), op(op(f32(1))), rtol=1e-6)


def test_host_callbacks_lower_for_several_platforms_only_with_one_target(capfd):
  def g(x):
    sj.debug.print("a {}", x, ordered=True)
    return x
  text = sj.jit(g).lower(f32(3), platforms=("cuda", "rocm")).as_text()
  assert "xla_ffi_python_gpu_callback(%0, %arg1)" in text and "stablehlo.case" not in text
  with pytest.raises(NotImplementedError, match="several platforms at once \\(cpu, cuda\\)"):
    sj.jit(g).lower(f32(3), platforms=("cpu", "cuda"))
  with pytest.raises(NotImplementedError, match="not supported on tpu"):
    sj.jit(g).lower(f32(3), platform="tpu")


def test_lower_jaxpr_takes_one_platform_or_several():
  closed = sj.make_jaxpr(per_platform.bind)(f32(1))
  assert str(lower_jaxpr(closed, "f", ("cuda",))) == str(lower_jaxpr(closed, "f", "cuda"))
  assert "tensor<i32>" in str(lower_jaxpr(closed, "f", ["cpu", "tpu"]))
  with pytest.raises(ValueError, match="distinct platforms"):
    lower_jaxpr(closed, "f", ("cpu", "cpu"))
  with pytest.raises(ValueError, match="distinct platforms"):
    lower_jaxpr(closed, "f", ())
  with pytest.raises(ValueError, match="unknown platform 'metal'"):
    lower_jaxpr(closed, "f", ("cpu", "metal"))
  with pytest.raises(TypeError, match="platform= or platforms=, not both"):
    sj.jit(per_platform.bind).lower(f32(1), platform="cpu", platforms=("cpu", "cuda"))
  assert "tensor<i32>" in sj.jit(per_platform.bind).trace(f32(1)).lower(
      platforms=("cpu", "cuda")).as_text()


def test_fix_platform_index_makes_a_single_platform_main():
  module = sj.jit(_f).lower(f32(1), platforms=("cpu", "cuda")).compiler_ir()
  fixed = str(lowering.fix_platform_index(module, 1))
  assert "func.func public @main(%arg0: tensor<f32>) -> tensor<f32>" in fixed
  assert "stablehlo.constant dense<1> : tensor<i32>" in fixed
  assert "func.func private @main_multi_platform(" in fixed


def test_a_platform_dependent_rule_in_a_multi_platform_module_is_an_error():
  prim = _prim("test_asks_platform")
  register_lowering(prim, lambda ctx, x: hlo.sine(x) if ctx.platform == "cpu" else x)
  assert "sine" in sj.jit(prim.bind).lower(f32(1), platform="cpu").as_text()
  with pytest.raises(LoweringError, match="several platforms.*register one rule per platform"):
    sj.jit(prim.bind).lower(f32(1), platforms=("cpu", "cuda"))
