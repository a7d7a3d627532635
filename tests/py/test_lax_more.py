"""lax's totally ordered comparisons (eq_to, le_to, lt_to), stage and device_put_p, against JAX."""

import jax
import numpy as np
import pytest

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
