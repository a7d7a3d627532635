"""Wrong rules are named at the rule: a JVP, transpose or batching rule whose result has the wrong
type, and a lowering rule that is missing, raises or returns the wrong types (the error names the
primitive, the platform, the rule's file:line and the user's line that bound the primitive).
Batching rules that need the axis get it as an argument (`batching.AxisData`)."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import stablejax as sj
from stablejax import core, lax
from stablejax.interpreters import ad, batching, rule_checks
from stablejax.lowering import LoweringError, ir_constant, register_lowering

X = np.arange(3, dtype=np.float32)
HERE = __file__


def _primitive(name: str) -> core.Primitive:
  """A fresh elementwise primitive (`2 x`) with no transformation or lowering rules."""
  prim = core.Primitive(name)
  prim.def_impl(lambda x: np.asarray(x) * 2)
  prim.def_abstract_eval(lambda x: x)
  return prim


def _line_of(fn) -> str:
  return f"{HERE}:{inspect.getsourcelines(fn)[1]}"


# ----------------------------------------------------------------------------------------------
# JVP, transpose and batching rules

def test_jvp_rule_with_a_tangent_of_the_wrong_shape_is_named():
  prim = _primitive("wrong_jvp")

  def wrong_jvp(primals, tangents):
    return prim.bind(*primals), lax.reduce_sum(tangents[0], (0,))

  ad.primitive_jvps[prim] = wrong_jvp
  with pytest.raises(TypeError, match="JVP rule of primitive 'wrong_jvp'") as info:
    sj.jvp(prim.bind, (X,), (X,))
  message = str(info.value)
  assert "wrong_jvp" in message and _line_of(wrong_jvp) in message
  assert "f32[]" in message and "f32[3]" in message


def test_jvp_rule_with_a_tangent_of_the_wrong_dtype_is_named():
  prim = _primitive("wrong_jvp_dtype")
  ad.primitive_jvps[prim] = lambda primals, tangents: (
      prim.bind(*primals), lax.convert_element_type(tangents[0], np.float16))
  with pytest.raises(TypeError, match=r"wrong_jvp_dtype.*f16\[3\], not f32\[3\]"):
    sj.jvp(prim.bind, (X,), (X,))


def test_transpose_rule_with_a_cotangent_of_the_wrong_shape_is_named():
  prim = _primitive("wrong_transpose")

  def wrong_transpose(ct):
    return [lax.reduce_sum(ct, (0,))]

  ad.deflinear(prim, wrong_transpose)
  with pytest.raises(TypeError, match="transpose rule of primitive 'wrong_transpose'") as info:
    sj.grad(lambda x: prim.bind(x).sum())(X)
  message = str(info.value)
  assert _line_of(wrong_transpose) in message and "argument 0" in message


def test_transpose_rule_with_too_few_cotangents_is_named():
  prim = _primitive("short_transpose")
  ad.primitive_jvps[prim] = lambda primals, tangents: (prim.bind(*primals),
                                                       prim.bind(*tangents))
  ad.primitive_transposes[prim] = lambda ct, x: []
  with pytest.raises(TypeError, match="transpose rule of primitive 'short_transpose'.*1 "
                                      "cotangents"):
    sj.grad(lambda x: prim.bind(x).sum())(X)


def test_batching_rule_dropping_the_mapped_axis_is_named():
  prim = _primitive("drops_axis")

  def drops_axis(args, dims):
    (x,), (d,) = args, dims
    return lax.reduce_sum(prim.bind(x), (d,)), d  # claims the axis it summed away

  batching.primitive_batchers[prim] = drops_axis
  with pytest.raises(TypeError, match="batching rule of primitive 'drops_axis'") as info:
    sj.vmap(prim.bind)(np.ones((2, 3), np.float32))
  message = str(info.value)
  assert _line_of(drops_axis) in message and "size 2" in message


def test_batching_rule_with_the_wrong_unbatched_type_is_named():
  prim = _primitive("wrong_batched_dtype")
  batching.primitive_batchers[prim] = lambda args, dims: (
      lax.convert_element_type(prim.bind(args[0]), np.int32), dims[0])
  with pytest.raises(TypeError, match=r"wrong_batched_dtype.*i32\[3\].*f32\[3\]"):
    sj.vmap(prim.bind)(np.ones((2, 3), np.float32))


def test_correct_user_rules_pass_the_checks():
  prim = _primitive("twice")
  ad.deflinear(prim, lambda ct: [prim.bind(ct)])
  batching.defvectorized(prim)
  xs = np.ones((2, 3), np.float32)
  np.testing.assert_allclose(sj.vmap(sj.grad(lambda x: prim.bind(x).sum()))(xs), 2 * xs)


def test_builtin_rules_are_trusted_unless_the_flag_is_on():
  rule = ad.primitive_jvps[lax.sin_p]
  before = sj.config.check_transform_rules
  try:
    sj.config.update("check_transform_rules", False)
    assert not rule_checks.is_checked(rule)
    assert rule_checks.is_checked(lambda primals, tangents: None)  # a user's: always
    sj.config.update("check_transform_rules", True)
    assert rule_checks.is_checked(rule)
  finally:
    sj.config.update("check_transform_rules", before)


# ----------------------------------------------------------------------------------------------
# Lowering rules

def _bind(prim: core.Primitive, x):
  return prim.bind(x) + 1.0


_BIND_LINE = f"{HERE}:{inspect.getsourcelines(_bind)[1] + 1}"


def _lower(prim: core.Primitive, rule=None, nested: bool = False):
  """Lower a program binding `prim` (lowered with `rule`; inside a second jit if `nested`)."""
  if rule is not None:
    register_lowering(prim, rule)
  f = sj.jit(lambda x: _bind(prim, x))
  return sj.jit(lambda x: f(x)).lower(X) if nested else f.lower(X)


def test_missing_lowering_rule_names_where_it_was_bound():
  with pytest.raises(NotImplementedError) as info:  # no rule at all: JAX's exact type
    _lower(_primitive("unlowered"))
  assert type(info.value) is NotImplementedError
  text = "\n".join([str(info.value), *info.value.__notes__])
  assert "'unlowered'" in text and "'cpu'" in text and _BIND_LINE in text


def test_lowering_rule_that_raises_keeps_its_type_and_is_named():
  def raises(ctx, x):
    raise ValueError("the rule's own message")

  with pytest.raises(ValueError, match="the rule's own message") as info:
    _lower(_primitive("raises"), raises)
  note, = info.value.__notes__
  assert "'raises'" in note and "'cpu'" in note
  assert _line_of(raises) in note and _BIND_LINE in note


def test_lowering_rule_returning_the_wrong_type_is_named():
  def wrong_type(ctx, x):
    return [ir_constant(np.zeros(2, np.float32))]

  with pytest.raises(LoweringError, match=r"'wrong_type' returned \[tensor<2xf32>\]") as info:
    _lower(_primitive("wrong_type"), wrong_type, nested=True)  # named at the inner equation
  note, = info.value.__notes__
  assert _line_of(wrong_type) in note and _BIND_LINE in note and "'cpu'" in note


def test_lowering_rule_returning_no_values_is_named():
  def returns_none(ctx, x):
    return None

  with pytest.raises(LoweringError, match="returned None") as info:
    _lower(_primitive("returns_none"), returns_none)
  assert _line_of(returns_none) in info.value.__notes__[0]


# ----------------------------------------------------------------------------------------------
# Batching rules given the axis

def test_fancy_batching_rule_gets_the_axis_data():
  prim = _primitive("sees_axis")
  seen = []

  def rule(axis_data, args, dims):
    seen.append(axis_data)
    return prim.bind(args[0]), dims[0]

  batching.fancy_primitive_batchers[prim] = rule
  sj.vmap(prim.bind, axis_name="i")(np.ones((4, 3), np.float32))
  sj.vmap(prim.bind, in_axes=1)(np.ones((3, 5), np.float32))
  assert seen == [batching.AxisData("i", 4, None), batching.AxisData(None, 5, None)]


def test_collective_inside_a_batched_jaxpr_acts_along_the_named_axis():
  """The name reaches the jaxprs batched by higher-order rules (jit, cond, scan) through
  `batch_jaxpr`'s axis data, with no thread-local."""
  def f(x):
    inner = sj.jit(lambda y: lax.psum(y, "i"))(x)
    return lax.cond(x.sum() > 0, lambda y: lax.psum(y, "i"), lambda y: -y, inner)

  xs = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
  total = xs.sum(0)
  np.testing.assert_allclose(sj.vmap(f, axis_name="i")(xs), np.stack([2 * total] * 2))


def test_batch_jaxpr_takes_axis_data():
  closed = sj.make_jaxpr(lambda x: x * 2)(X)
  with pytest.raises(TypeError, match="AxisData"):
    batching.batch_jaxpr(closed, 2, [0])
  batched, out_dims = batching.batch_jaxpr(closed, batching.AxisData(None, 2), [0])
  assert out_dims == [0] and batched.in_avals[0].shape == (2, 3)
