"""The sorting-based jax.numpy functions against JAX: partitions, quantiles and medians,
bincount, histograms, digitize, unique and the set operations; eagerly and under jit (with the
static sizes JAX needs), vmap and grad; and jnp.convolve/correlate and jax.scipy.signal."""
import jax
import jax.numpy as jn
import jax.scipy.signal as jsignal
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import test_util
from stablejax.scipy import signal

F32 = np.float32


def _check(got, want, **kw):
  got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
  assert len(got_leaves) == len(want_leaves)
  for g, w in zip(got_leaves, want_leaves):
    assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype, (g, w)
    test_util.check_close(np.asarray(g), np.asarray(w), **kw)


# ----------------------------------------------------------------------------------------------
# partition

@pytest.mark.parametrize("kth, axis", [(2, -1), (0, 0), (-1, 1)])
def test_partition(kth, axis, rng):
  x = rng.standard_normal((5, 6)).astype(F32)
  part, idx = jnp.partition(x, kth, axis), jnp.argpartition(x, kth, axis)
  expected = np.partition(x, kth, axis)
  k = kth % x.shape[axis]
  pivot = np.take(np.asarray(part), [k], axis)
  np.testing.assert_array_equal(pivot, np.take(expected, [k], axis))
  assert np.all(np.take(np.asarray(part), range(k), axis) <= pivot)
  assert np.all(np.take(np.asarray(part), range(k, x.shape[axis]), axis) >= pivot)
  np.testing.assert_array_equal(np.take_along_axis(x, np.asarray(idx), axis), part)
  _check(np.take(sj.jit(jnp.partition, static_argnums=(1, 2))(x, kth, axis), [k], axis),
         np.take(jn.partition(x, kth, axis), [k], axis))


def test_partition_error():
  with pytest.raises(ValueError, match="partition"):
    jnp.partition(np.ones(3), 3)


# ----------------------------------------------------------------------------------------------
# quantiles

QUANTILE_CASES = [
    (0.3, None, False), ([0.0, 0.25, 1.0], 1, False), (0.5, (0, 2), True), (0.7, -1, True),
    ([0.1, 0.9], (0, 1, 2), False)]


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q, axis, keepdims", QUANTILE_CASES)
def test_quantile(method, q, axis, keepdims, rng):
  x = rng.standard_normal((3, 4, 5)).astype(F32)
  q = np.asarray(q, F32)
  for name in ("quantile", "nanquantile"):
    _check(getattr(jnp, name)(x, q, axis, method=method, keepdims=keepdims),
           getattr(jn, name)(x, q, axis, method=method, keepdims=keepdims))
  _check(jnp.percentile(x, q * 100, axis, method=method, keepdims=keepdims),
         jn.percentile(x, q * 100, axis, method=method, keepdims=keepdims), rtol=1e-5)


@pytest.mark.slow
def test_nan_quantiles(rng):
  x = rng.standard_normal((4, 6)).astype(F32)
  x[0, 2] = x[2, :3] = x[3, :] = np.nan
  for name in ("median", "nanmedian"):
    _check(getattr(jnp, name)(x, axis=1), getattr(jn, name)(x, axis=1))
    _check(getattr(jnp, name)(x), getattr(jn, name)(x))
  _check(jnp.nanquantile(x, np.float32(0.4), axis=1), jn.nanquantile(x, np.float32(0.4), axis=1))
  _check(jnp.nanpercentile(x, 40, axis=0), jn.nanpercentile(x, 40, axis=0), rtol=1e-5)
  _check(jnp.quantile(x, 0.4, axis=1), jn.quantile(x, 0.4, axis=1))


@pytest.mark.slow
def test_quantile_dtypes_and_transforms(rng):
  ints = rng.integers(-5, 5, (4, 7)).astype(np.int32)
  _check(jnp.median(ints, axis=0), jn.median(ints, axis=0))
  _check(jnp.quantile(ints, 0.25), jn.quantile(ints, 0.25))
  x = rng.standard_normal((4, 7)).astype(F32)
  _check(sj.jit(jnp.median)(x), jn.median(x))
  _check(sj.vmap(lambda r: jnp.quantile(r, 0.3))(x), jax.vmap(lambda r: jn.quantile(r, 0.3))(x))
  _check(sj.grad(lambda x: jnp.quantile(x, 0.3, axis=1).sum())(x),
         jax.grad(lambda x: jn.quantile(x, 0.3, axis=1).sum())(x))
  _check(sj.grad(jnp.median)(x), jax.grad(jn.median)(x))


def test_quantile_errors():
  with pytest.raises(ValueError, match="method"):
    jnp.quantile(np.ones(3), 0.5, method="bogus")
  with pytest.raises(ValueError, match="rank"):
    jnp.quantile(np.ones(3), np.ones((2, 2)))


# ----------------------------------------------------------------------------------------------
# bincount, histograms, digitize

def test_bincount(rng):
  x = rng.integers(-1, 6, 20).astype(np.int32)
  w = rng.standard_normal(20).astype(F32)
  _check(jnp.bincount(x), jn.bincount(x))
  _check(jnp.bincount(x, w, minlength=9), jn.bincount(x, w, minlength=9))
  _check(sj.jit(lambda x, w: jnp.bincount(x, w, length=4))(x, w),
         jn.bincount(x, w, length=4))
  with pytest.raises(TypeError, match="integer"):
    jnp.bincount(w)
  with pytest.raises(ValueError, match="shape of weights"):
    jnp.bincount(x, w[:3])
  with pytest.raises(Exception, match="length"):
    sj.jit(jnp.bincount)(x)


@pytest.mark.slow
@pytest.mark.parametrize("bins, range_, density, weighted", [
    (10, None, None, False), (5, (-1.0, 1.5), True, True), ([-2.0, -0.5, 0.0, 3.0], None,
                                                            False, True)])
def test_histogram(bins, range_, density, weighted, rng):
  x = rng.standard_normal(50).astype(F32)
  w = rng.random(50).astype(F32) if weighted else None
  bins = np.asarray(bins, F32) if isinstance(bins, list) else bins
  _check(jnp.histogram(x, bins, range_, w, density), jn.histogram(x, bins, range_, w, density),
         rtol=1e-5, atol=1e-5)
  _check(jnp.histogram_bin_edges(x, bins, range_), jn.histogram_bin_edges(x, bins, range_))
  f = lambda x: jnp.histogram(x, bins, range_, w, density)  # noqa: E731
  _check(sj.jit(f)(x), jn.histogram(x, bins, range_, w, density), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_histogram_constant_and_int_input():
  _check(jnp.histogram(np.full(4, 2.0, F32), 3), jn.histogram(np.full(4, 2.0, F32), 3))
  ints = np.array([0, 1, 1, 3, 7], np.int32)
  _check(jnp.histogram(ints, 4), jn.histogram(ints, 4))


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", [[0.0, 1.0, 2.5, 4.0], [4.0, 2.5, 1.0, 0.0], []])
def test_digitize(right, bins, rng):
  x = (rng.random(12) * 5 - 0.5).astype(F32)
  x[:3] = [0.0, 1.0, 4.0]
  bins = np.asarray(bins, F32)
  _check(jnp.digitize(x, bins, right), jn.digitize(x, bins, right))
  _check(sj.jit(jnp.digitize, static_argnums=2)(x, bins, right), jn.digitize(x, bins, right))


# ----------------------------------------------------------------------------------------------
# unique and set operations

@pytest.mark.slow
@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True),
                                   (True, False, True), (False, True, False)])
def test_unique(flags, rng):
  x = rng.integers(0, 5, (3, 4)).astype(np.int32)
  ri, rv, rc = flags
  _check(jnp.unique(x, ri, rv, rc), jn.unique(x, ri, rv, rc))
  for size, fill in [(7, None), (7, -1), (2, None)]:
    f = lambda x: jnp.unique(x, ri, rv, rc, size=size, fill_value=fill)  # noqa: E731
    want = jn.unique(x, ri, rv, rc, size=size, fill_value=fill)
    _check(f(x), want)
    _check(sj.jit(f)(x), want)


@pytest.mark.slow
def test_unique_floats_with_nans():
  x = np.array([1.0, np.nan, 0.5, np.nan, 1.0], F32)
  _check(jnp.unique(x), jn.unique(x))
  _check(jnp.unique(x, equal_nan=False), jn.unique(x, equal_nan=False))
  _check(jnp.unique(x, return_counts=True), jn.unique(x, return_counts=True))


def test_unique_errors():
  with pytest.raises(Exception, match="size"):
    sj.jit(jnp.unique)(np.arange(3))
  with pytest.raises(NotImplementedError):
    jnp.unique(np.ones((2, 2)), axis=0)


SET_OPS = ["union1d", "intersect1d", "setdiff1d", "setxor1d"]


@pytest.mark.slow
@pytest.mark.parametrize("name", SET_OPS)
def test_set_ops(name, rng):
  a = rng.integers(0, 8, 9).astype(np.int32)
  b = rng.integers(3, 12, (2, 3)).astype(np.int32)
  ours, theirs = getattr(jnp, name), getattr(jn, name)
  _check(ours(a, b), theirs(a, b))
  _check(ours(a, b.astype(F32)), theirs(a, b.astype(F32)))
  for size, fill in [(12, 99), (3, None)]:
    f = lambda a, b: ours(a, b, size=size, fill_value=fill)  # noqa: E731
    _check(sj.jit(f)(a, b), theirs(a, b, size=size, fill_value=fill))


@pytest.mark.slow
@pytest.mark.parametrize("name", SET_OPS)
def test_set_ops_default_fill(name):
  a, b = np.array([5, 1, 3, 3], np.int32), np.array([3, 4, 6], np.int32)
  _check(getattr(jnp, name)(a, b, size=8), getattr(jn, name)(a, b, size=8))


@pytest.mark.parametrize("invert", [False, True])
def test_isin(invert, rng):
  x = rng.integers(0, 6, (3, 4)).astype(np.int32)
  t = np.array([1, 4, 9], np.int32)
  _check(jnp.isin(x, t, invert=invert), jn.isin(x, t, invert=invert))
  _check(sj.jit(jnp.isin)(x, t.astype(F32)), jn.isin(x, t.astype(F32)))
  _check(sj.vmap(jnp.isin, (0, None))(x, t), jax.vmap(jn.isin, (0, None))(x, t))
  _check(jnp.isin(x, np.zeros(0, np.int32)), jn.isin(x, np.zeros(0, np.int32)))


# ----------------------------------------------------------------------------------------------
# jnp.convolve / jnp.correlate and jax.scipy.signal

@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n, m", [(7, 3), (3, 6), (5, 5)])
def test_numpy_convolve(name, mode, n, m, rng):
  a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
  v = rng.standard_normal(m).astype(F32)
  ours, theirs = getattr(jnp, name), getattr(jn, name)
  _check(ours(a, v, mode), theirs(a, v, mode), rtol=1e-5, atol=1e-5)
  _check(ours(a.real, v, mode), theirs(a.real, v, mode), rtol=1e-5, atol=1e-5)
  _check(sj.jit(ours, static_argnums=2)(v, a, mode), theirs(v, a, mode), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_numpy_convolve_dtypes_grad_and_errors(rng):
  ints = np.arange(5, dtype=np.int32)
  _check(jnp.convolve(ints, ints[:2]), jn.convolve(ints, ints[:2]))
  _check(jnp.convolve(ints, ints[:2], preferred_element_type=np.int32),
         jn.convolve(ints, ints[:2], preferred_element_type=np.int32))
  a, v = rng.standard_normal(6).astype(F32), rng.standard_normal(3).astype(F32)
  _check(sj.grad(lambda a, v: jnp.correlate(a, v, "same").sum(), (0, 1))(a, v),
         jax.grad(lambda a, v: jn.correlate(a, v, "same").sum(), (0, 1))(a, v), rtol=1e-5)
  _check(sj.vmap(jnp.convolve, (0, None))(np.stack([a, a]), v),
         jax.vmap(jn.convolve, (0, None))(np.stack([a, a]), v), rtol=1e-5)
  with pytest.raises(ValueError, match="1-dimensional"):
    jnp.convolve(np.ones((2, 2)), v)
  with pytest.raises(ValueError, match="mode"):
    jnp.convolve(a, v, "bogus")
  with pytest.raises(ValueError, match="empty"):
    jnp.correlate(a, np.ones(0, F32))


SIGNAL_SHAPES = [((5, 6), (2, 3)), ((2, 3), (5, 6)), ((4, 4), (4, 4)), ((3,), (5,)),
                 ((4, 5, 3), (2, 2, 2))]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", SIGNAL_SHAPES)
def test_signal(mode, shapes, rng):
  x, y = [(rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(np.complex64)
          for s in shapes]
  names = ["convolve", "correlate"] + (["convolve2d", "correlate2d"] if len(shapes[0]) == 2
                                       else [])
  for name in names:
    ours, theirs = getattr(signal, name), getattr(jsignal, name)
    _check(ours(x, y, mode), theirs(x, y, mode), rtol=1e-4, atol=1e-4)
    _check(ours(x.real, y.real, mode), theirs(x.real, y.real, mode), rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_signal_jit_grad_and_errors(rng):
  x, y = rng.standard_normal((6, 5)).astype(F32), rng.standard_normal((3, 2)).astype(F32)
  _check(sj.jit(signal.correlate2d, static_argnums=2)(x, y, "same"),
         jsignal.correlate2d(x, y, "same"), rtol=1e-5, atol=1e-5)
  _check(sj.grad(lambda x: signal.convolve(x, y).sum())(x),
         jax.grad(lambda x: jsignal.convolve(x, y).sum())(x), rtol=1e-5)
  with pytest.raises(ValueError, match="smaller"):
    signal.convolve(np.ones((2, 5)), np.ones((3, 1)))
  with pytest.raises(NotImplementedError, match="boundary"):
    signal.convolve2d(x, y, boundary="wrap")
  with pytest.raises(ValueError, match="2-dimensional"):
    signal.correlate2d(x[0], y[0])
  with pytest.raises(ValueError, match="method"):
    signal.convolve(x, y, method="fft")
