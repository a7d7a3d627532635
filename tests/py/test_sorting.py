"""Sorting, top_k and the cumulative reductions against JAX: values, dtypes, jit, vmap, grad,
finite differences, lowering."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

F32, I32 = np.float32, np.int32


def _same(actual, expected):
  a_leaves, e_leaves = jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(expected)
  assert len(a_leaves) == len(e_leaves)
  for a, e in zip(a_leaves, e_leaves):
    assert np.asarray(a).dtype == np.asarray(e).dtype, (np.asarray(a).dtype, np.asarray(e).dtype)
    test_util.check_close(a, e)


def _special_floats(rng, shape):
  x = rng.standard_normal(shape).astype(F32)
  flat = x.reshape(-1)
  flat[::5] = 0.
  flat[1::7] = -0.
  flat[2::9] = np.nan
  flat[3::11] = flat[0]  # ties
  return x


# name -> (function of (lax module, numpy module) and arrays, input makers)
LAX_CASES = {
    "sort": lambda L, x: L.sort(x),
    "sort_axis0": lambda L, x: L.sort(x, dimension=0),
    "sort_unstable": lambda L, x: L.sort(x, is_stable=False),
    "sort_key_val": lambda L, x: L.sort_key_val(x, x * 2 + 1),
    "sort_multi": lambda L, x: L.sort((L.round(x), x, x * 3), num_keys=2),
    "top_k": lambda L, x: L.top_k(x, 3),
    "top_k_axis0": lambda L, x: L.top_k(x, 2, axis=0),
    "cumsum": lambda L, x: L.cumsum(x, axis=1),
    "cumprod": lambda L, x: L.cumprod(x, axis=1, reverse=True),
    "cummax": lambda L, x: L.cummax(x, axis=0),
    "cummin": lambda L, x: L.cummin(x, axis=1, reverse=True),
    "cumlogsumexp": lambda L, x: L.cumlogsumexp(x, axis=1),
}


@pytest.mark.parametrize("name", LAX_CASES)
def test_lax_matches_jax(name, rng):
  f = LAX_CASES[name]
  x = _special_floats(rng, (4, 6)) if name.startswith("sort") else rng.standard_normal(
      (4, 6)).astype(F32)
  expected = f(jax.lax, x)
  _same(f(lax, x), expected)
  _same(sj.jit(lambda x: f(lax, x))(x), expected)
  _same(sj.vmap(lambda x: f(lax, x))(x[None]), jax.vmap(lambda x: f(jax.lax, x))(x[None]))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.float16, np.complex64])
def test_sort_dtypes(dtype, rng):
  x = test_util.rand(rng, (3, 7), dtype)
  _same(lax.sort(x), jax.lax.sort(x))
  _same(lax.sort_key_val(x, np.arange(21).reshape(3, 7)),
        jax.lax.sort_key_val(x, np.arange(21).reshape(3, 7)))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_cumulative_dtypes(dtype, rng):
  x = test_util.rand(rng, (5,), dtype)
  for name in ("cumsum", "cumprod", "cummax", "cummin"):
    _same(getattr(lax, name)(x), getattr(jax.lax, name)(x))


def test_references_match_lax(rng):
  x = _special_floats(rng, (3, 5))
  for prim, params in [(lax.sort_p, dict(dimension=1, is_stable=True, num_keys=1)),
                       (lax.top_k_p, dict(k=2, axis=1)),
                       (lax.cummax_p, dict(axis=1, reverse=False))]:
    got = prim.bind(x, **params)
    want = primitive_kit.evaluate_reference(prim, x, **params)
    for g, w in zip(got if prim.multiple_results else [got],
                    want if prim.multiple_results else [want]):
      np.testing.assert_array_equal(np.asarray(g), w)


GRAD_CASES = {
    "sort": lambda L, x: L.sort(x, dimension=0),
    "sort_key_val": lambda L, x: L.sort_key_val(L.cos(x), x * x)[1],
    "top_k": lambda L, x: L.top_k(x, 2)[0],
    "cumprod": lambda L, x: L.cumprod(x, axis=1),
    "cummax": lambda L, x: L.cummax(x, axis=1, reverse=True),
    "cummin": lambda L, x: L.cummin(x, axis=0),
    "cumlogsumexp": lambda L, x: L.cumlogsumexp(x, axis=1, reverse=True),
}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_grads(name, rng):
  f = GRAD_CASES[name]
  x = rng.standard_normal((3, 4)).astype(F32)
  weights = rng.standard_normal(np.shape(f(jax.lax, x))).astype(F32)
  loss = lambda L, x: (f(L, x) * weights).sum()  # noqa: E731
  expected = jax.grad(lambda x: loss(jax.lax, x))(x)
  test_util.check_close(sj.grad(lambda x: loss(lax, x))(x), expected)
  test_util.check_close(sj.jit(sj.grad(lambda x: loss(lax, x)))(x), expected)
  test_util.check_close(sj.vmap(sj.grad(lambda x: loss(lax, x)))(x[None]), expected[None])
  with test_util.x64():
    test_util.check_grads(lambda x: f(lax, x), (x.astype(np.float64),), order=1)


@pytest.mark.parametrize("op, text", [
    (lambda x: lax.sort(x), "stablehlo.sort"),
    (lambda x: lax.sort(x), "TOTALORDER"),
    (lambda x: lax.top_k(x, 2), "chlo.top_k"),
    (lambda x: lax.cummax(x, 1), "stablehlo.reduce_window"),
    (lambda x: lax.cumlogsumexp(x, 1), "stablehlo.log_plus_one"),
])
def test_lowering(op, text):
  assert text in sj.jit(op).lower(np.zeros((2, 3), F32)).as_text()


def test_errors():
  with pytest.raises(TypeError, match="equal shapes"):
    lax.sort((np.zeros(3), np.zeros(4)))
  with pytest.raises(ValueError, match="num_keys"):
    lax.sort(np.zeros(3), num_keys=2)
  with pytest.raises(ValueError, match="no larger than size"):
    lax.top_k(np.zeros(3), 4)
  with pytest.raises(TypeError, match="cumlogsumexp"):
    lax.cumlogsumexp(np.zeros(3, I32))


# ----------------------------------------------------------------------------------------------
# stablejax.numpy

NP_CASES = {
    "sort": lambda N, x: N.sort(x),
    "sort_none": lambda N, x: N.sort(x, axis=None),
    "sort_desc": lambda N, x: N.sort(x, axis=0, descending=True),
    "argsort": lambda N, x: N.argsort(x),
    "argsort_desc": lambda N, x: N.argsort(x, descending=True),
    "argsort_desc_unstable": lambda N, x: N.argsort(N.round(x), stable=False, descending=True,
                                                    axis=0),
    "lexsort": lambda N, x: N.lexsort((x, N.round(x))),
    "searchsorted_left": lambda N, x: N.searchsorted(N.sort(x[0]), x),
    "searchsorted_right": lambda N, x: N.searchsorted(N.sort(x[0]), x, side="right",
                                                      method="compare_all"),
    "cumsum": lambda N, x: N.cumsum(x),
    "cumprod": lambda N, x: N.cumprod(x, axis=1),
    "nancumsum": lambda N, x: N.nancumsum(x, axis=0),
    "nancumprod": lambda N, x: N.nancumprod(x, axis=1),
    "cumulative_sum": lambda N, x: N.cumulative_sum(x, axis=1, include_initial=True),
    "cumulative_prod": lambda N, x: N.cumulative_prod(x, axis=0),
}


@pytest.mark.parametrize("name", NP_CASES)
def test_numpy_matches_jax(name, rng):
  f = NP_CASES[name]
  x = _special_floats(rng, (3, 5))
  if name == "argsort_desc_unstable":
    x = np.nan_to_num(x)  # unstable order of ties is unspecified: compare sorted values only
    got, want = f(jnp, x), f(jjnp, x)
    np.testing.assert_array_equal(np.take_along_axis(np.round(x), np.asarray(got), 0),
                                  np.take_along_axis(np.round(x), np.asarray(want), 0))
    return
  _same(f(jnp, x), f(jjnp, x))
  _same(sj.jit(lambda x: f(jnp, x))(x), f(jjnp, x))


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.int32])
def test_numpy_cumulative_dtypes(dtype, rng):
  x = test_util.rand(rng, (2, 4), dtype)
  for name in ("cumsum", "cumprod"):
    _same(getattr(jnp, name)(x, axis=1), getattr(jjnp, name)(x, axis=1))
    _same(getattr(jnp, name)(x, dtype=np.float32), getattr(jjnp, name)(x, dtype=np.float32))
  _same(jnp.cumulative_sum(x, axis=0), jjnp.cumulative_sum(x, axis=0))
  _same(jnp.argsort(x, axis=0), jjnp.argsort(x, axis=0))


def test_numpy_errors():
  with pytest.raises(ValueError, match="explicit value"):
    jnp.cumulative_sum(np.zeros((2, 2)))
  with pytest.raises(TypeError, match="kind"):
    jnp.sort(np.zeros(3), kind="quicksort")
  with pytest.raises(ValueError, match="side"):
    jnp.searchsorted(np.zeros(3), 1., side="middle")
