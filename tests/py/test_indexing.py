"""numpy indexing `x[idx]`, the indexed updates `x.at[idx]` and the jnp indexing functions
against JAX: values, shapes, dtypes and weak types, eagerly, under jit, vmap and grad, and the
primitives they stage."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as snp
from stablejax import test_util
from stablejax.core import ConcretizationTypeError
from stablejax.numpy._indexing import NonConcreteBooleanIndexError

I2 = np.array([[0, 2], [1, -1]])
X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

# Static indices (numpy values): basic, negative steps, out-of-bounds ints (clamped, as in JAX),
# integer arrays in every placement, boolean masks and scalar booleans.
STATIC_INDICES = [
    np.s_[1], np.s_[10], np.s_[-7], np.s_[::-1], np.s_[5:1:-2], np.s_[:, ::-2, 1], np.s_[-1:],
    np.s_[1, None, ..., ::2], np.s_[..., 3], np.s_[None], np.s_[2:0], np.s_[::-3, 4:1:-1],
    np.s_[I2], np.s_[:, I2], np.s_[:, :, I2], np.s_[I2, :, I2], np.s_[I2, 1], np.s_[1, :, I2],
    np.s_[None, I2, None, 2], np.s_[[0, 2], :, [1, 3]], np.s_[X[:, 0, 0] > 10],
    np.s_[X[:, :, 0] > 10], np.s_[X > 30], np.s_[True], np.s_[False], np.s_[..., [1, 1]],
    np.s_[I2, ::-1], np.s_[:, ::2, I2], np.s_[np.array(1)], np.s_[I2, ..., None],
    np.s_[np.array([], np.int32)], np.s_[np.array([0, 2]), 1:3, np.array([4, 0])],
    np.s_[1, [True, False, True, True]], np.s_[:, None, I2, ::2],
]


@pytest.mark.parametrize("idx", STATIC_INDICES, ids=repr)
def test_static_indexing_matches_jax(idx):
  expected = jnp.asarray(X)[idx]
  for f in (lambda x: x[idx], sj.jit(lambda x: x[idx])):
    out = f(snp.asarray(X))
    assert out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))


TRACED_INDEX_FNS = {
    "array": lambda x, i: x[i],
    "array_axis1": lambda x, i: x[:, i],
    "arrays_apart": lambda x, i: x[i, ::-1, i],
    "scalar": lambda x, i: x[1, i[0, 0]],
    "scalar_and_array": lambda x, i: x[i[0, 0], i],
    "two_scalars": lambda x, i: x[i[1, 1], 1:3, i[0, 1]],
    "scalar_reversed": lambda x, i: x[::-1, i[0, 1]],
}


@pytest.mark.parametrize("name", list(TRACED_INDEX_FNS))
def test_traced_indices_match_jax(name):
  f = TRACED_INDEX_FNS[name]
  idx = I2.astype(np.int32)
  expected = f(jnp.asarray(X), jnp.asarray(idx))
  for g in (f, sj.jit(f)):
    out = g(snp.asarray(X), snp.asarray(idx))
    assert out.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))


def test_concrete_0d_array_index():
  np.testing.assert_array_equal(np.asarray(snp.asarray(X)[snp.asarray(2)]), X[2])
  np.testing.assert_array_equal(np.asarray(snp.asarray(X)[snp.asarray(-1), 1]), X[-1, 1])


def test_indexing_stages_the_primitives_jax_does():
  jaxpr = str(sj.make_jaxpr(lambda x: x[::-1])(X))
  assert "rev" in jaxpr and "gather" not in jaxpr
  assert "gather" in str(sj.make_jaxpr(lambda x, i: x[i])(X, I2.astype(np.int32)))
  assert "dynamic_slice" in str(sj.make_jaxpr(lambda x, i: x[i])(X, np.int32(1)))
  text = sj.jit(lambda x, i: x.at[i].add(1.)).lower(X, I2.astype(np.int32)).as_text()
  assert "stablehlo.scatter" in text
  assert "stablehlo.gather" in sj.jit(lambda x, i: x[:, i]).lower(X, I2).as_text()
  assert "stablehlo.reverse" in sj.jit(lambda x: x[:, ::-1]).lower(X).as_text()


def test_eager_windows_of_one_shape_compile_one_program(caplog):
  """Evaluated eagerly, a unit-stride slice is a dynamic_slice at its starts, as JAX's: the rows
  of an array (or any windows of one shape) compile one program, not one each."""
  x = snp.asarray(X)
  windows = [np.s_[i] for i in range(3)] + [np.s_[i, 1:4] for i in range(3)] + [
      np.s_[:, 0:2, i:i + 3] for i in range(3)]
  sj.clear_caches()  # (this module's other tests compile windows too)
  with caplog.at_level("WARNING", logger="stablejax"), sj.log_compiles(True):
    outs = [x[w] for w in windows]
    strided = [sj.lax.slice(x, (0, 0, i), (3, 4, 5), (1, 2, 2)) for i in range(2)]
  for w, out in zip(windows, outs):
    np.testing.assert_array_equal(np.asarray(out), X[w])
  for i, out in enumerate(strided):
    np.testing.assert_array_equal(np.asarray(out), X[:, ::2, i::2])
  names = [r.compile.name for r in caplog.records if hasattr(r, "compile")]
  assert names.count("dynamic_slice") == 3 and "slice" in names  # (one per window shape)
  assert names.count("slice") == 2  # strided windows are slices, compiled per window
  with pytest.raises(TypeError, match="limit <= size"):
    sj.lax.slice(x, (0, 0, 1), (3, 4, 6))  # slice's own error, not dynamic_slice's


def test_indexing_errors_match_jax():
  x = snp.asarray(X)
  with pytest.raises(TypeError, match="non-tuple sequence"):
    x[[0, 1]]
  with pytest.raises(IndexError, match="Too many indices"):
    x[0, 0, 0, 0]
  with pytest.raises(IndexError, match="single ellipsis"):
    x[..., ...]
  with pytest.raises(TypeError, match="Indexer must have integer or boolean type"):
    x[np.array([1.5])]
  with pytest.raises(NonConcreteBooleanIndexError, match="Array boolean indices must be concrete"):
    sj.jit(lambda x, m: x[m])(x, np.array([True, False, True]))
  assert issubclass(NonConcreteBooleanIndexError, IndexError)
  with pytest.raises(IndexError, match="boolean index did not match"):
    x[np.array([True, False])]
  with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
    snp.zeros((0, 3))[0]


@pytest.mark.slow
def test_indexing_vmap_and_grad(rng):
  x = test_util.rand(rng, (4, 3, 5))
  idx = np.array([[2, 0], [1, 1], [0, 2], [2, 2]], np.int32)
  test_util.check_vmap(lambda x, i: x[i, ::-1], [x, idx], [0, 0])
  test_util.check_vmap(lambda x, i: x[:, i], [x, idx[0]], [0, None])
  test_util.check_vmap(lambda x, i: x[i], [snp.asarray(x[0]), idx], [None, 0])
  test_util.check_vmap(lambda x, i: x[1, i[0]], [np.moveaxis(x, 0, 2), idx], [2, 0])
  f = lambda x: (x[idx[0], ::-1, 1:4:2] ** 2).sum()
  expected = jax.grad(f)(x)
  test_util.check_close(sj.grad(f)(x), np.asarray(expected))
  with test_util.x64():
    test_util.check_grads(lambda x: x[idx[:, 0], :, -2], (x.astype(np.float64),))


AT_METHODS = ["set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max"]
AT_INDICES = [np.s_[I2], np.s_[:, 1:3], np.s_[1, ::-1], np.s_[I2, :, 2], np.s_[None, 0],
              np.s_[X[:, 0, 0] > 10], np.s_[..., -1], np.s_[2, 3, 4], np.s_[np.array([1, 1, 0])]]


@pytest.mark.parametrize("idx", AT_INDICES, ids=repr)
@pytest.mark.parametrize("method", AT_METHODS)
def test_at_methods_match_jax(method, idx, rng):
  y = jnp.asarray(X)[idx]
  values = test_util.rand(rng, np.shape(y)) + 2
  expected = getattr(jnp.asarray(X).at[idx], method)(values)
  for f in (lambda x, v: getattr(x.at[idx], method)(v),
            sj.jit(lambda x, v: getattr(x.at[idx], method)(v))):
    out = f(snp.asarray(X), values)
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(out), np.asarray(expected), rtol=1e-5)


@pytest.mark.parametrize("mode", [None, "clip", "fill", "drop", "promise_in_bounds"])
def test_at_modes_and_get(mode):
  x = np.arange(5, dtype=np.float32)
  idx = np.array([7, -1, -9, 2])
  sx, jx = snp.asarray(x), jnp.asarray(x)
  for method, args in [("get", ()), ("set", (9.,)), ("add", (1.,))]:
    if mode == "promise_in_bounds" and method != "get":
      continue  # the promise is broken: the result is unspecified
    if mode == "promise_in_bounds":
      idx = np.array([4, -1, 0, 2])
    expected = getattr(jx.at[idx], method)(*args, mode=mode)
    out = getattr(sx.at[idx], method)(*args, mode=mode)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))
  expected = jx.at[idx].get(mode="fill", fill_value=-1.)
  np.testing.assert_array_equal(np.asarray(sx.at[idx].get(mode="fill", fill_value=-1.)),
                                np.asarray(expected))
  out = sx.at[np.array([0, 2])].get(indices_are_sorted=True, unique_indices=True)
  np.testing.assert_array_equal(np.asarray(out), x[[0, 2]])


def test_at_apply_dtypes_and_weak_types():
  x = np.arange(6, dtype=np.int32)
  out = snp.asarray(x).at[1:3].apply(lambda v: v * 2)
  np.testing.assert_array_equal(np.asarray(out), np.asarray(jnp.asarray(x).at[1:3].apply(
      lambda v: v * 2)))
  assert snp.asarray(x).at[1].set(2).dtype == np.int32
  ones = snp.ones(3)
  out = ones.at[0].set(5)
  assert out.dtype == np.float32 and out.weak_type == jnp.ones(3).at[0].set(5).weak_type
  weak = snp.asarray(1.0) * snp.ones(3)
  assert weak.at[0].set(2).dtype == np.float32


@pytest.mark.parametrize("idx", [np.array([0, 0, 1]), (slice(None), np.array([2, 2])), 1,
                                 (0, slice(0, 2)), np.array([[1, 1], [0, 1]])])
def test_at_apply_applies_once_per_occurrence_of_an_index(idx):
  # a repeated index gets func applied once per occurrence (sqrt(sqrt(x))), as JAX's scatter
  x = np.arange(1., 7., dtype=np.float32).reshape(2, 3)
  want = jnp.asarray(x).at[idx].apply(jnp.sqrt)
  np.testing.assert_array_equal(np.asarray(snp.asarray(x).at[idx].apply(snp.sqrt)), want)
  jitted = sj.jit(lambda x: x.at[idx].apply(snp.sqrt))(x)
  np.testing.assert_array_equal(np.asarray(jitted), want)
  dropped = snp.arange(5).at[np.array([1, 1, 7])].apply(lambda v: v * 2, mode="drop")
  np.testing.assert_array_equal(
      np.asarray(dropped), jnp.arange(5).at[np.array([1, 1, 7])].apply(lambda v: v * 2,
                                                                         mode="drop"))


@pytest.mark.slow
def test_at_grad_vmap(rng):
  x, v = test_util.rand(rng, (5, 3)), test_util.rand(rng, (2, 3))
  idx = np.array([3, 1])
  for method in ["set", "add", "multiply", "min", "max"]:
    f = lambda x, v: (getattr(x.at[idx], method)(v, unique_indices=True) ** 2).sum()
    expected = jax.grad(f, (0, 1))(x, v)
    test_util.check_close(sj.grad(f, (0, 1))(x, v), tuple(map(np.asarray, expected)))
  g = lambda x: (x.at[idx].get() * 3.).sum()
  test_util.check_close(sj.grad(g)(x), np.asarray(jax.grad(g)(x)))
  with test_util.x64():
    test_util.check_grads(lambda x, v: snp.asarray(x).at[idx].set(v),
                          (x.astype(np.float64), v.astype(np.float64)))
    test_util.check_grads(lambda x, v: snp.asarray(x).at[::-2].add(v[0, 0]),
                          (x.astype(np.float64), v.astype(np.float64)))
  xs, vs = test_util.rand(rng, (4, 5, 3)), test_util.rand(rng, (4, 2, 3))
  idxs = np.array([[0, 1], [2, 2], [4, 0], [3, 3]], np.int32)
  test_util.check_vmap(lambda x, v, i: snp.asarray(x).at[i].add(v), [xs, vs, idxs], [0, 0, 0])
  test_util.check_vmap(lambda x, v: snp.asarray(x).at[idx].set(v), [xs, vs[0]], [0, None])
  test_util.check_vmap(lambda x, i: snp.asarray(x).at[i, 1].set(7.), [xs[0], idxs], [None, 0])
  with pytest.raises(NotImplementedError, match="unique_indices=True"):
    sj.grad(lambda v: snp.asarray(x).at[idx].multiply(v).sum())(v)


A = np.random.default_rng(1).integers(-2, 3, (4, 5)).astype(np.float32)
TI = np.array([[0, 4], [-1, 7]])
# name -> (function of a numpy module and an array, whether it can be jit-compiled)
FUNCTIONS = {
    "take_axis": (lambda m, a: m.take(a, TI, axis=1), True),
    "take_flat": (lambda m, a: m.take(a, TI), True),
    "take_clip": (lambda m, a: m.take(a, TI, axis=0, mode="clip"), True),
    "take_wrap": (lambda m, a: m.take(a, TI, axis=0, mode="wrap"), True),
    "take_fill_value": (lambda m, a: m.take(a, TI, axis=1, fill_value=-3.), True),
    "take_along_axis": (lambda m, a: m.take_along_axis(a, np.argsort(A, axis=1), axis=1), True),
    "take_along_axis_bcast": (lambda m, a: m.take_along_axis(a, np.array([[0], [3]]), axis=0),
                              True),
    "take_along_axis_none": (lambda m, a: m.take_along_axis(a, np.array([3, -1, 9]), None),
                             True),
    "put_along_axis": (lambda m, a: m.put_along_axis(a, np.array([[0], [3], [1], [2]]), 9.,
                                                     axis=1, inplace=False), True),
    "nonzero_size": (lambda m, a: m.nonzero(a, size=12, fill_value=-1), True),
    "nonzero_fill_tuple": (lambda m, a: m.nonzero(a, size=16, fill_value=(7, 8)), True),
    "nonzero": (lambda m, a: m.nonzero(a), False),
    "argwhere": (lambda m, a: m.argwhere(a, size=5), True),
    "argwhere_nosize": (lambda m, a: m.argwhere(a > 0), False),
    "flatnonzero": (lambda m, a: m.flatnonzero(a, size=25), True),
    "compress": (lambda m, a: m.compress(np.array([True, False, True]), a, axis=1), True),
    "compress_size": (lambda m, a: m.compress(a[:, 0] > 0, a, axis=0, size=3), True),
    "extract": (lambda m, a: m.extract(a > 0, a, size=8, fill_value=7), True),
    "diagonal": (lambda m, a: m.diagonal(a, 1), True),
    "diagonal_neg": (lambda m, a: m.diagonal(a, -2, 1, 0), True),
    "diag_vector": (lambda m, a: m.diag(a[0], -1), True),
    "diag_matrix": (lambda m, a: m.diag(a, 2), True),
    "diag_indices": (lambda m, a: m.diag_indices(3, 3), True),
    "tril_indices": (lambda m, a: m.tril_indices(4, 1, 5), True),
    "triu_indices": (lambda m, a: m.triu_indices(4, -1), True),
    "indices": (lambda m, a: m.indices((2, 3)), True),
    "indices_sparse": (lambda m, a: m.indices((2, 3), sparse=True), True),
    "ix_": (lambda m, a: m.ix_(np.array([0, 2]), np.array([1, 3, 4])), True),
    "unravel_index": (lambda m, a: m.unravel_index(np.array([3, 17, -1, 40]), (4, 5)), True),
    "ravel_multi_index": (lambda m, a: m.ravel_multi_index(
        (np.array([1, 3]), np.array([4, 0])), (4, 5)), True),
    "ravel_multi_index_clip": (lambda m, a: m.ravel_multi_index(
        (np.array([1, 9]), np.array([4, -1])), (4, 5), mode="clip", order="F"), True),
    "select": (lambda m, a: m.select([a > 1, a < 0], [a, a * 2], -5.), True),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_indexing_functions_match_jax(name):
  f, jittable = FUNCTIONS[name]
  expected = jax.tree_util.tree_leaves(f(jnp, jnp.asarray(A)))
  runs = [lambda a: f(snp, a)] + ([sj.jit(lambda a: f(snp, a))] if jittable else [])
  for g in runs:
    out = g(snp.asarray(A))
    out = list(out) if isinstance(out, (tuple, list)) else [out]
    assert len(out) == len(expected)
    for o, e in zip(out, expected):
      assert o.shape == e.shape and o.dtype == e.dtype, (o, e)
      np.testing.assert_array_equal(np.asarray(o), np.asarray(e))


def test_indexing_functions_errors():
  a = snp.asarray(A)
  with pytest.raises(ConcretizationTypeError):
    sj.jit(lambda a: snp.nonzero(a))(a)
  with pytest.raises(ValueError, match="inplace"):
    snp.put_along_axis(a, np.zeros((4, 1), np.int32), 1., axis=1)
  with pytest.raises(NotImplementedError, match="raise"):
    snp.take(a, np.array([1]), mode="raise")
  with pytest.raises(ValueError, match="Calling nonzero on 0d arrays"):
    snp.nonzero(snp.asarray(1.))
  with pytest.raises(ValueError, match="invalid entry"):
    snp.ravel_multi_index((np.array([5]), np.array([0])), (4, 5))


@pytest.mark.slow
def test_take_vmap_grad(rng):
  a = test_util.rand(rng, (3, 4, 5))
  idx = np.array([[1, 3], [0, 0], [3, 2]], np.int32)
  test_util.check_vmap(lambda a, i: snp.take(a, i, axis=0), [a, idx], [0, 0])
  test_util.check_vmap(lambda a, i: snp.take_along_axis(a, i[:, :1], axis=0), [a, idx],
                       [2, None])
  f = lambda a: (snp.take(a, idx, axis=1) ** 2).sum()
  test_util.check_close(sj.grad(f)(a), np.asarray(jax.grad(
      lambda a: (jnp.take(a, idx, axis=1) ** 2).sum())(a)))
  with test_util.x64():
    test_util.check_grads(lambda a: snp.take_along_axis(a, idx[None, :, :1], axis=1),
                          (a.astype(np.float64),))
