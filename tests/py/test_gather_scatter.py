"""lax.gather, the lax.scatter family and lax.rev against JAX and their numpy references:
values, shapes and dtypes eagerly and under jit, vmap over every operand, gradients against
finite differences, lowering to stablehlo, and the errors of bad dimension numbers."""
import jax
import numpy as np
import pytest

import stablejax as sj
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

GDN, SDN = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers


def _jax_dnums(dn):
  cls = jax.lax.GatherDimensionNumbers if isinstance(dn, GDN) else jax.lax.ScatterDimensionNumbers
  return cls(*dn)


# name -> (operand shape, indices (a numpy array), gather dnums, slice sizes)
GATHERS = {
    "rows": ((5, 4), np.array([[3], [0], [4]]), GDN((1,), (0,), (0,)), (1, 4)),
    "points": ((4, 5), np.array([[[0, 1], [3, 4], [2, 2]], [[1, 0], [0, 0], [3, 1]]]),
               GDN((), (0, 1), (0, 1)), (1, 1)),
    "windows": ((6, 7), np.array([[0, 1], [4, 4], [2, 0]]), GDN((1, 2), (), (0, 1)), (2, 3)),
    "offset_first": ((5, 4), np.array([[1], [2]]), GDN((0,), (1,), (1,)), (5, 1)),
    "batching": ((3, 5, 4), np.array([[[1], [4]], [[0], [0]], [[2], [3]]]),
                 GDN((2,), (1,), (1,), (0,), (0,)), (1, 1, 4)),
    "out_of_bounds": ((5, 4), np.array([[7], [-2], [1]]), GDN((1,), (0,), (0,)), (1, 4)),
}
MODES = ["clip", "fill", "promise_in_bounds"]


def _gather(L, dn, sizes, mode, fill_value=None):
  dn = dn if L is lax else _jax_dnums(dn)
  return lambda x, i: L.gather(x, i, dn, sizes, mode=mode, fill_value=fill_value)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(GATHERS))
def test_gather_matches_jax(name, mode, rng):
  shape, idx, dn, sizes = GATHERS[name]
  x = test_util.rand(rng, shape)
  idx = idx.astype(np.int32)
  expected = _gather(jax.lax, dn, sizes, mode)(x, idx)
  if mode == "promise_in_bounds" and name == "out_of_bounds":
    expected = _gather(jax.lax, dn, sizes, "clip")(x, idx)  # XLA clamps
  for f in (_gather(lax, dn, sizes, mode), sj.jit(_gather(lax, dn, sizes, mode))):
    out = f(x, idx)
    assert out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))
  ref = primitive_kit.evaluate_reference(lax.gather_p, x, idx, dimension_numbers=dn,
                                    slice_sizes=sizes, indices_are_sorted=False,
                                    unique_indices=False,
                                    mode=lax.GatherScatterMode.from_any(mode),
                                    fill_value=np.nan if mode == "fill" else None)
  np.testing.assert_array_equal(ref, np.asarray(expected))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.float16])
def test_gather_fill_values_by_dtype(dtype, rng):
  x = test_util.rand(rng, (5, 4), dtype)
  idx = np.array([[7], [1]], np.int32)
  dn = GATHERS["rows"][2]
  out = _gather(lax, dn, (1, 4), "fill")(x, idx)
  expected = _gather(jax.lax, dn, (1, 4), "fill")(x, idx)
  assert out.dtype == expected.dtype
  np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))
  out = _gather(lax, dn, (1, 4), "fill", fill_value=3)(x, idx)
  np.testing.assert_array_equal(np.asarray(out),
                                np.asarray(_gather(jax.lax, dn, (1, 4), "fill", 3)(x, idx)))


@pytest.mark.parametrize("name", ["rows", "windows", "batching", "points"])
def test_gather_vmap(name, rng):
  shape, idx, dn, sizes = GATHERS[name]
  f = _gather(lax, dn, sizes, "clip")
  xs = test_util.rand(rng, (3,) + shape)
  idxs = np.stack([idx, idx[::-1], idx]).astype(np.int32)
  test_util.check_vmap(f, [xs, idx.astype(np.int32)], [0, None])
  test_util.check_vmap(f, [xs[0], idxs], [None, 0])
  test_util.check_vmap(f, [xs, idxs], [0, 0])
  test_util.check_vmap(f, [np.moveaxis(xs, 0, -1), np.moveaxis(idxs, 0, 1)], [-1, 1])


@pytest.mark.slow
@pytest.mark.parametrize("name, mode", [
    (name, mode) for name in ["rows", "windows", "batching", "out_of_bounds"] for mode in MODES
    # out-of-bounds indices break promise_in_bounds' promise (its result is undefined)
    if not (name == "out_of_bounds" and mode == "promise_in_bounds")])
def test_gather_grads(name, mode, rng):
  shape, idx, dn, sizes = GATHERS[name]
  x = test_util.rand(rng, shape, np.float64)
  f = _gather(lax, dn, sizes, mode, fill_value=0. if mode == "fill" else None)
  with test_util.x64():
    test_util.check_grads(lambda x: f(x, idx.astype(np.int32)), (x,), order=2)
  g = sj.grad(lambda x: f(x, idx.astype(np.int32)).sum())(x.astype(np.float32))
  jf = _gather(jax.lax, dn, sizes, mode, fill_value=0. if mode == "fill" else None)
  expected = jax.grad(lambda x: jf(x, idx.astype(np.int32)).sum())(x.astype(np.float32))
  np.testing.assert_allclose(np.asarray(g), np.asarray(expected))


# name -> (operand shape, indices, scatter dnums, updates shape)
SCATTERS = {
    "rows": ((5, 4), np.array([[3], [0], [4]]), SDN((1,), (0,), (0,)), (3, 4)),
    "points": ((4, 5), np.array([[0, 1], [3, 4], [2, 2]]), SDN((), (0, 1), (0, 1)), (3,)),
    "windows": ((6, 7), np.array([[0, 1], [4, 4]]), SDN((1, 2), (), (0, 1)), (2, 2, 3)),
    "batching": ((3, 5, 4), np.array([[[1], [4]], [[0], [2]], [[2], [3]]]),
                 SDN((2,), (1,), (1,), (0,), (0,)), (3, 2, 4)),
    "out_of_bounds": ((5, 4), np.array([[7], [-2], [1]]), SDN((1,), (0,), (0,)), (3, 4)),
}
SCATTER_FNS = ["scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"]


def _scatter(L, fn, dn, mode=None, unique=False):
  dn = dn if L is lax else _jax_dnums(dn)
  return lambda x, i, u: getattr(L, fn)(x, i, u, dn, mode=mode, unique_indices=unique)


@pytest.mark.parametrize("mode", [None, "clip"])
@pytest.mark.parametrize("fn", SCATTER_FNS)
@pytest.mark.parametrize("name", list(SCATTERS))
def test_scatter_matches_jax(name, fn, mode, rng):
  shape, idx, dn, ushape = SCATTERS[name]
  x, u = test_util.rand(rng, shape), test_util.rand(rng, ushape)
  idx = idx.astype(np.int32)
  expected = np.asarray(_scatter(jax.lax, fn, dn, mode)(x, idx, u))
  for f in (_scatter(lax, fn, dn, mode), sj.jit(_scatter(lax, fn, dn, mode))):
    out = f(x, idx, u)
    assert out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)
  prim = getattr(lax, fn + "_p")
  ref = primitive_kit.evaluate_reference(prim, x, idx, u, dimension_numbers=dn,
                                    indices_are_sorted=False, unique_indices=False,
                                    mode=lax.GatherScatterMode.from_any(mode))
  np.testing.assert_allclose(ref, expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.uint8])
@pytest.mark.parametrize("fn", SCATTER_FNS)
def test_scatter_dtypes(fn, dtype, rng):
  shape, idx, dn, ushape = SCATTERS["rows"]
  x, u = test_util.rand(rng, shape, dtype), test_util.rand(rng, ushape, dtype)
  idx = idx.astype(np.int32)
  if dtype == np.bool_ and fn in ("scatter_add", "scatter_mul"):
    with pytest.raises(TypeError, match=f"{fn.replace('_', '-')} does not accept dtype bool"):
      _scatter(lax, fn, dn)(x, idx, u)
    return
  out = _scatter(lax, fn, dn)(x, idx, u)
  expected = _scatter(jax.lax, fn, dn)(x, idx, u)
  assert out.dtype == expected.dtype
  np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))


@pytest.mark.parametrize("fn", SCATTER_FNS)
@pytest.mark.parametrize("name", ["rows", "windows", "batching"])
def test_scatter_vmap(name, fn, rng):
  shape, idx, dn, ushape = SCATTERS[name]
  f = _scatter(lax, fn, dn)
  xs, us = test_util.rand(rng, (3,) + shape), test_util.rand(rng, (3,) + ushape)
  idx = idx.astype(np.int32)
  idxs = np.stack([idx, idx[::-1], idx])
  test_util.check_vmap(f, [xs, idx, us[0]], [0, None, None])
  test_util.check_vmap(f, [xs[0], idxs, us[0]], [None, 0, None])
  test_util.check_vmap(f, [xs[0], idx, np.moveaxis(us, 0, 1)], [None, None, 1])
  test_util.check_vmap(f, [xs, idxs, us], [0, 0, 0])


@pytest.mark.slow
@pytest.mark.parametrize("fn", SCATTER_FNS)
@pytest.mark.parametrize("name", ["rows", "windows", "batching", "out_of_bounds"])
def test_scatter_grads(name, fn, rng):
  shape, idx, dn, ushape = SCATTERS[name]
  x, u = test_util.rand(rng, shape, np.float64), test_util.rand(rng, ushape, np.float64)
  f = _scatter(lax, fn, dn, unique=True)
  with test_util.x64():
    test_util.check_grads(lambda x, u: f(x, idx.astype(np.int32), u), (x, u), order=2)
  jf = _scatter(jax.lax, fn, dn, unique=True)
  x32, u32 = x.astype(np.float32), u.astype(np.float32)
  g = sj.grad(lambda x, u: (f(x, idx, u) ** 2).sum(), argnums=(0, 1))(x32, u32)
  expected = jax.grad(lambda x, u: (jf(x, idx, u) ** 2).sum(), argnums=(0, 1))(x32, u32)
  test_util.check_close(g, tuple(np.asarray(e) for e in expected))


@pytest.mark.slow
def test_scatter_set_grad_with_duplicate_indices(rng):
  """With repeated indices the last update wins; its gradient goes to the winner only."""
  x, u = test_util.rand(rng, (4,)), test_util.rand(rng, (3,))
  idx = np.array([[1], [2], [1]], np.int32)
  dn = SDN((), (0,), (0,))
  f = lambda x, u: (_scatter(lax, "scatter", dn)(x, idx, u) * np.arange(1., 5.)).sum()
  jf = lambda x, u: (_scatter(jax.lax, "scatter", dn)(x, idx, u) * np.arange(1., 5.)).sum()
  test_util.check_close(sj.grad(f, (0, 1))(x, u), tuple(map(np.asarray, jax.grad(jf, (0, 1))(x, u))))


def test_scatter_min_max_ties_share_the_gradient():
  x = np.array([1., 5., 3.], np.float32)
  u = np.array([1., 2., 2.], np.float32)
  idx = np.array([[0], [1], [1]], np.int32)
  dn = SDN((), (0,), (0,))
  for fn in ("scatter_min", "scatter_max"):
    g = sj.grad(lambda x, u: _scatter(lax, fn, dn)(x, idx, u).sum(), (0, 1))(x, u)
    e = jax.grad(lambda x, u: _scatter(jax.lax, fn, dn)(x, idx, u).sum(), (0, 1))(x, u)
    test_util.check_close(g, tuple(map(np.asarray, e)))


def test_lowering_emits_gather_scatter_and_reverse():
  x = np.zeros((5, 4), np.float32)
  idx = np.array([[1], [2]], np.int32)
  u = np.ones((2, 4), np.float32)
  for mode in MODES:
    text = sj.jit(lambda x: lax.gather(x, idx, GDN((1,), (0,), (0,)), (1, 4), mode=mode)
                  ).lower(x).as_text()
    assert "stablehlo.gather" in text
    assert ("stablehlo.select" in text) == (mode == "fill")
    assert ("stablehlo.clamp" in text) == (mode == "clip")
  for fn in SCATTER_FNS:
    text = sj.jit(lambda x: getattr(lax, fn)(x, idx, u, SDN((1,), (0,), (0,)))).lower(x).as_text()
    assert "stablehlo.scatter" in text
  assert "stablehlo.reverse" in sj.jit(lambda x: lax.rev(x, (0, 1))).lower(x).as_text()


def test_rev(rng):
  x = test_util.rand(rng, (3, 4, 5))
  for dims in [(0,), (1, 2), ()]:
    out = lax.rev(x, dims)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(jax.lax.rev(x, dims)))
    np.testing.assert_array_equal(np.asarray(sj.jit(lambda x: lax.rev(x, dims))(x)),
                                  np.flip(x, dims))
  test_util.check_vmap(lambda x: lax.rev(x, (0, 1)), [x], [1])
  with test_util.x64():
    test_util.check_grads(lambda x: lax.rev(x, (1,)), (x.astype(np.float64),))
  for dims in [(0, 0), (-1,), (3,)]:
    with pytest.raises(TypeError, match="rev dimensions"):
      lax.rev(x, dims)


def test_errors_name_the_problem():
  x = np.zeros((5, 4), np.float32)
  with pytest.raises(TypeError, match="gather: the last axis of the indices"):
    lax.gather(x, np.zeros((2, 2), np.int32), GDN((1,), (0,), (0,)), (1, 4))
  with pytest.raises(TypeError, match="gather: indices must have an integer type"):
    lax.gather(x, np.zeros((2, 1), np.float32), GDN((1,), (0,), (0,)), (1, 4))
  with pytest.raises(TypeError, match="gather: slice_sizes"):
    lax.gather(x, np.zeros((2, 1), np.int32), GDN((1,), (0,), (0,)), (1, 9))
  with pytest.raises(TypeError, match="offset_dims"):
    lax.gather(x, np.zeros((2, 1), np.int32), GDN((), (0,), (0,)), (1, 4))
  with pytest.raises(TypeError, match="scatter-add: operand and updates must have one dtype"):
    lax.scatter_add(x, np.zeros((2, 1), np.int32), np.ones((2, 4), np.int32), SDN((1,), (0,), (0,)))
  with pytest.raises(TypeError, match="scatter: updates"):
    lax.scatter(x, np.zeros((2, 1), np.int32), np.ones((3, 4), np.float32), SDN((1,), (0,), (0,)))
  with pytest.raises(ValueError, match="Unknown gather mode"):
    lax.GatherScatterMode.from_any("nope")


def test_in_dim_helpers(rng):
  x = test_util.rand(rng, (4, 5))
  i = np.int32(2)
  for name, args in [("dynamic_slice_in_dim", (i, 2, 1)), ("dynamic_index_in_dim", (i, 0, False)),
                     ("dynamic_index_in_dim", (i, 1)), ("index_in_dim", (-1, 1, False)),
                     ("dynamic_update_slice_in_dim", (np.ones((4, 2), np.float32), i, 1)),
                     ("dynamic_update_index_in_dim", (np.ones((5,), np.float32), i, 0))]:
    out = getattr(lax, name)(x, *args)
    expected = getattr(jax.lax, name)(x, *args)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))
  idx = (np.array([0, 3, 1], np.int32), np.array([4, 0, 2], np.int32))
  np.testing.assert_array_equal(np.asarray(lax.index_take(x, idx, (0, 1))),
                                np.asarray(jax.lax.index_take(x, idx, (0, 1))))
