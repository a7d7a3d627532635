"""Jaxpr passes: dead-code elimination and inlining of calls."""
import numpy as np

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import passes
from stablejax.jaxpr import check_jaxpr, jaxpr_as_fun
from stablejax.test_util import check_close


def test_dce_removes_unused_equations():
  closed = sj.make_jaxpr(lambda x: (jnp.sin(x), jnp.cos(x))[1])(1.0)
  assert [e.primitive.name for e in closed.eqns] == ["sin", "cos"]
  cleaned = passes.dce_closed_jaxpr(closed)
  assert [e.primitive.name for e in cleaned.eqns] == ["cos"]
  check_jaxpr(cleaned.jaxpr)
  check_close(jaxpr_as_fun(cleaned)(0.5)[0], np.cos(0.5))


def test_dce_keeps_a_live_jaxpr_as_is():
  closed = sj.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
  assert passes.dce_closed_jaxpr(closed) is closed


def test_dce_cleans_sub_jaxprs_once():
  inner = sj.jit(lambda x: (jnp.sin(x), jnp.exp(x))[0])
  closed = sj.make_jaxpr(lambda x: inner(x) + inner(x + 1.0))(1.0)
  cleaned = passes.dce_closed_jaxpr(closed)
  callees = [e.params["jaxpr"] for e in cleaned.eqns if e.primitive.name == "jit"]
  assert len(callees) == 2 and callees[0] is callees[1]
  assert [e.primitive.name for e in callees[0].eqns] == ["sin"]


def test_jit_lowering_drops_dead_primal_work():
  text = sj.jit(sj.grad(jnp.sin)).lower(1.0).as_text()
  assert "stablehlo.cosine" in text and "stablehlo.sine" not in text
  # the jaxpr itself is unchanged, as in JAX
  assert "sin" in str(sj.make_jaxpr(sj.grad(jnp.sin))(1.0))


def _nested():
  inner = sj.jit(lambda x, y: (jnp.sin(x) * y, x + 1.0))

  @sj.jit
  def middle(x):
    a, b = inner(x, 2.0)
    return inner(a, b)[0] + np.arange(3, dtype=np.float32)
  return lambda x: middle(x) + inner(x, x)[1]


def test_inline_calls_flattens_nested_jits():
  x = np.linspace(0, 1, 3).astype(np.float32)
  closed = sj.make_jaxpr(_nested())(x)
  flat = passes.inline_calls(closed)
  assert "jit" in [e.primitive.name for e in closed.eqns]
  assert "jit" not in [e.primitive.name for e in flat.eqns]
  check_jaxpr(flat.jaxpr)
  check_close(jaxpr_as_fun(flat)(x)[0], jaxpr_as_fun(closed)(x)[0])
  check_close(jaxpr_as_fun(flat)(x)[0], _nested()(x))


def test_inline_calls_lowers_to_one_function():
  from stablejax import lowering
  x = np.ones(3, np.float32)
  closed = sj.make_jaxpr(_nested())(x)
  assert "call @" in str(lowering.lower_jaxpr(closed, "f"))
  text = str(lowering.lower_jaxpr(passes.inline_calls(closed), "f"))
  assert "call @" not in text and "func.func private" not in text


def test_inline_calls_without_calls_is_the_identity():
  closed = sj.make_jaxpr(lambda x: x * 2.0)(1.0)
  assert passes.inline_calls(closed) is closed
