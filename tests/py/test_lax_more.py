"""lax's totally ordered comparisons (eq_to, le_to, lt_to), stage and device_put_p, against JAX."""

import jax
import numpy as np
import pytest
from jaxlib.xla_client import ArrayCopySemantics

import stablejax as sj
from stablejax import lax

SPECIAL = np.array([-np.nan, -np.inf, -1.5, -0.0, 0.0, 1.5, np.inf, np.nan], np.float32)
SPECIAL[0] = -SPECIAL[-1]  # a NaN with its sign bit set


@pytest.mark.parametrize("name", ["eq_to_p", "le_to_p", "lt_to_p"])
def test_total_order_comparisons_match_jax(name):
  x, y = SPECIAL[:, None], SPECIAL[None, :]
  ours, theirs = getattr(lax, name), getattr(jax.lax, name)
  want = np.asarray(theirs.bind(x, y))
  for got in (ours.bind(x, y), sj.jit(ours.bind)(x, y)):
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(got), want)
  assert want[3, 4] == (name != "eq_to_p")  # -0 and +0 are apart, unlike lt/le/eq
  ints = np.array([-2, 0, 3], np.int32)
  np.testing.assert_array_equal(np.asarray(ours.bind(ints, 0)), np.asarray(theirs.bind(ints, 0)))


@pytest.mark.parametrize("name", ["eq_to_p", "le_to_p", "lt_to_p"])
def test_total_order_comparisons_lower_with_totalorder(name):
  text = sj.jit(getattr(lax, name).bind).lower(1.0, 2.0).as_text()
  assert "TOTALORDER" in text
  assert str(sj.make_jaxpr(getattr(lax, name).bind)(1.0, 2.0)) == str(
      jax.make_jaxpr(getattr(jax.lax, name).bind)(1.0, 2.0))


def test_total_order_comparison_has_zero_tangent():
  out, tangent = sj.jvp(lambda x: lax.le_to_p.bind(x, 1.0), (2.0,), (1.0,))
  want_out, want_tangent = jax.jvp(lambda x: jax.lax.le_to_p.bind(x, 1.0), (2.0,), (1.0,))
  assert bool(out) == bool(want_out)
  assert np.asarray(tangent).dtype == np.asarray(want_tangent).dtype


def _dp(lib):
  reuse = (ArrayCopySemantics.REUSE_INPUT,)
  return lambda x: lib.device_put_p.bind(x, devices=(None,), srcs=(None,), copy_semantics=reuse)[0]


@pytest.mark.parametrize("transform", [lambda f: f, lambda f: jax.grad(lambda x: f(x) * x)])
def test_device_put_p_jaxpr_matches_jax(transform):
  sj_transform = (lambda f: f) if transform(lambda x: x)(2.0) == 2.0 else (
      lambda f: sj.grad(lambda x: f(x) * x))
  assert str(sj.make_jaxpr(sj_transform(_dp(lax)))(1.0)) == str(
      jax.make_jaxpr(transform(_dp(jax.lax)))(1.0))


def test_device_put_p_values():
  x = np.arange(3.0, dtype=np.float32)
  np.testing.assert_array_equal(np.asarray(sj.vmap(_dp(lax))(x)), x)
  assert float(sj.jit(_dp(lax))(2.0)) == 2.0
  assert float(sj.grad(lambda x: _dp(lax)(x) * x)(3.0)) == 6.0


@pytest.mark.parametrize("fn", [lambda s: (lambda: s.stage(1.0)),
                                lambda s: (lambda: s.stage(np.ones(3, np.float32))),
                                lambda s: (lambda x: s.stage(1.0) + x)])
def test_stage_jaxpr_matches_jax(fn):
  args = () if fn(lax).__code__.co_argcount == 0 else (1.0,)
  assert str(sj.make_jaxpr(fn(lax))(*args)) == str(jax.make_jaxpr(fn(jax.lax))(*args))


@pytest.mark.parametrize("value", [1.0, np.int32(3), np.ones((2,), np.float16)])
def test_stage_outside_traces_is_an_array(value):
  got, want = lax.stage(value), jax.lax.stage(value)
  assert isinstance(got, sj.Array)
  assert got.dtype == want.dtype and got.weak_type == want.weak_type
  np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
