"""The keywords of stablejax.numpy's functions against JAX 0.10.2: each case runs the same call on
both libraries (`lib` is the numpy module) and compares values, dtypes and shapes, or the
type of the error both raise."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

RNG = np.random.default_rng(0)
X345 = RNG.standard_normal((3, 4, 5)).astype(np.float32)
X345_NAN = X345.copy()
X345_NAN[0, 1, 2] = np.nan
W345 = RNG.random((3, 4, 5)).astype(np.float32)
W5 = RNG.random(5).astype(np.float32)


def check(fn, rtol=1e-6, atol=1e-6):
  """fn(jax.numpy) and fn(stablejax.numpy) agree: the same leaves (values, dtypes, shapes), or
  the same error type."""
  try:
    want = fn(jjnp)
  except Exception as e:  # noqa: BLE001 (the oracle's error type is the expectation)
    with pytest.raises(type(e)):
      fn(jnp)
    return
  got = fn(jnp)
  want_leaves, got_leaves = jax.tree.leaves(want), jax.tree.leaves(got)
  assert len(want_leaves) == len(got_leaves)
  for w, g in zip(want_leaves, got_leaves):
    w, g = np.asarray(w), np.asarray(g)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def _device(lib):
  return (jax if lib is jjnp else sj).devices()[0]


def _jit(lib):
  return jax.jit if lib is jjnp else sj.jit


# ----------------------------------------------------------------------------------------------
# The findings

@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
@pytest.mark.parametrize("initial", [None, 1.0, -5.0])
def test_nan_extrema_initial_on_empty_and_all_nan(name, initial):
  check(lambda lib: getattr(lib, name)(lib.zeros((3, 0)), axis=1, initial=initial)
        if initial is not None else lib.zeros(3))
  x = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
  check(lambda lib: getattr(lib, name)(x, axis=1, initial=initial))


@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize("x", [np.array([0, 1, 2]), np.array([[0.0, 0.5], [0.0, 0.0]]),
                               np.array([True, False])])
def test_sum_prod_dtype_bool(name, x):
  check(lambda lib: getattr(lib, name)(x, dtype=bool))
  if x.ndim == 2:
    check(lambda lib: getattr(lib, name)(x, axis=1, dtype=bool, keepdims=True))
    check(lambda lib: getattr(lib, name)(x, axis=0, dtype=bool, initial=True,
                                         where=np.array([True, False])))


@pytest.mark.parametrize("m_shape,y_shape,rowvar", [
    ((5,), (5,), True), ((5,), (2, 5), True), ((3, 5), (2, 5), True), ((5, 3), (5, 2), False),
    ((3, 5), (5,), True), ((5, 3), (5,), False), ((3, 5), (2, 4), True)])
def test_cov_with_y(m_shape, y_shape, rowvar):
  m, y = RNG.standard_normal(m_shape), RNG.standard_normal(y_shape)
  check(lambda lib: lib.cov(m, y, rowvar=rowvar), rtol=1e-5)


def test_cov_with_y_and_weights():
  m, y = RNG.standard_normal((3, 5)), RNG.standard_normal((2, 5))
  check(lambda lib: lib.cov(m, y, fweights=np.array([1, 2, 1, 1, 3]),
                            aweights=np.array([0.5, 1, 1, 2, 1])), rtol=1e-5)


@pytest.mark.parametrize("axes", [None, (0,), (0, 1), (1, 0), (1, -4), (3,), (-1, 0)])
def test_tensorsolve_axes(axes):
  a = RNG.standard_normal((2, 3, 3, 2)).astype(np.float32) + 3 * np.eye(6).reshape(2, 3, 3, 2)
  b = RNG.standard_normal((3, 2) if axes not in (None, (3,), (-1, 0)) else
                          (2, 3) if axes is None else (3, 3)).astype(np.float32)
  check(lambda lib: lib.linalg.tensorsolve(a, b, axes=axes), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest",
                                    "inverted_cdf"])
def test_quantiles_every_method(name, method):
  q = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0], np.float32)
  fn = lambda lib: getattr(lib, name)  # noqa: E731
  check(lambda lib: fn(lib)(X345_NAN, q, axis=-1, method=method))
  check(lambda lib: fn(lib)(X345_NAN, q[3], axis=(0, 2), method=method, keepdims=True))
  check(lambda lib: fn(lib)(np.arange(4.0), q, method=method))


@pytest.mark.parametrize("name", ["percentile", "nanpercentile"])
@pytest.mark.parametrize("method", ["nearest", "inverted_cdf"])
def test_percentiles(name, method):
  q = np.array([0.0, 25.0, 50.0, 100.0], np.float32)
  check(lambda lib: getattr(lib, name)(X345_NAN, q, axis=-1, method=method))
  check(lambda lib: getattr(lib, name)(X345_NAN, q, axis=2, method="inverted_cdf", weights=W5))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantiles_weights(name):
  q = np.array([0.1, 0.5, 0.9], np.float32)
  fn = lambda lib: getattr(lib, name)  # noqa: E731
  cdf = {"method": "inverted_cdf"}
  check(lambda lib: fn(lib)(X345_NAN, q, axis=-1, weights=W345, **cdf))
  check(lambda lib: fn(lib)(X345_NAN, q[1], axis=2, weights=W5, keepdims=True, **cdf))
  check(lambda lib: fn(lib)(X345_NAN, q, weights=W345, **cdf))
  check(lambda lib: fn(lib)(X345, q, axis=(0, 2), weights=W345, **cdf))
  check(lambda lib: fn(lib)(np.arange(4), q[1], weights=np.array([1, -1, 1, 1]), **cdf))
  check(lambda lib: fn(lib)(np.arange(4), q[1], weights=np.array([1, 2, 1, 1]), **cdf))
  # the errors: another method, a weight shape that fits nothing, complex weights
  check(lambda lib: fn(lib)(X345, q, axis=-1, weights=W345))
  check(lambda lib: fn(lib)(X345, q, weights=W5, **cdf))
  check(lambda lib: fn(lib)(X345, q, axis=1, weights=W5, **cdf))
  check(lambda lib: fn(lib)(np.arange(3.0), q, weights=np.ones(3, np.complex64), **cdf))


def test_quantile_weights_under_jit():
  check(lambda lib: _jit(lib)(lambda x, w: lib.quantile(x, 0.5, axis=0, weights=w,
                                                        method="inverted_cdf"))(X345, W345))


@pytest.mark.parametrize("x1_shape,x2_shape", [((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)),
                                               ((), (4,)), ((4,), ())])
def test_ldexp_broadcasts(x1_shape, x2_shape):
  x1 = RNG.standard_normal(x1_shape).astype(np.float32)
  x2 = RNG.integers(-5, 5, x2_shape).astype(np.int32)
  check(lambda lib: lib.ldexp(x1, x2))


@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "sort", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_sorter_and_methods(method, side):
  a = np.array([3.0, 1.0, 2.0, 2.0, 5.0], np.float32)
  v = np.array([[0.0, 2.0], [2.5, 6.0]], np.float32)
  sorter = np.argsort(a, kind="stable")
  check(lambda lib: lib.searchsorted(a, v, side=side, sorter=sorter, method=method))
  check(lambda lib: lib.searchsorted(np.sort(a), v, side=side, method=method))
  check(lambda lib: _jit(lib)(lambda a, v, s: lib.searchsorted(a, v, side, s, method=method))(
      a, v, sorter))


@pytest.mark.parametrize("mode", [None, "clip", "fill", "promise_in_bounds"])
@pytest.mark.parametrize("wrap", [None, True, False])
def test_take_along_axis_mode_fill_value_wrap_negative(mode, wrap):
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  i = np.array([[0, -1], [5, 2], [-5, 1]])
  if mode == "promise_in_bounds":
    i = np.array([[0, -1], [3, 2], [-4, 1]])  # (in bounds, its results for others differ)
  check(lambda lib: lib.take_along_axis(x, i, axis=1, mode=mode, fill_value=-3.0,
                                        wrap_negative_indices=wrap))


def test_take_along_axis_default_axis_and_bad_mode():
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  check(lambda lib: lib.take_along_axis(x, np.array([[1], [0], [3]])))
  check(lambda lib: lib.take_along_axis(x, np.array([[1], [0], [3]]), mode="wrap"))
  check(lambda lib: lib.take_along_axis(x, np.array([[1], [0], [3]]), mode="raise"))


JOINS = {
    "concatenate": lambda lib, xs, **kw: lib.concatenate(xs, **kw),
    "concatenate_none": lambda lib, xs, **kw: lib.concatenate(xs, axis=None, **kw),
    "stack": lambda lib, xs, **kw: lib.stack(xs, axis=1, **kw),
    "hstack": lambda lib, xs, **kw: lib.hstack(xs, **kw),
    "vstack": lambda lib, xs, **kw: lib.vstack(xs, **kw),
    "dstack": lambda lib, xs, **kw: lib.dstack(xs, **kw),
}


@pytest.mark.parametrize("join", sorted(JOINS))
@pytest.mark.parametrize("dtype", [None, np.int32, np.float16, bool, np.complex64])
def test_joins_dtype(join, dtype):
  xs = [np.array([[1.5, -2.0]], np.float32), np.array([[3, 0]], np.int32)]
  check(lambda lib: JOINS[join](lib, xs, dtype=dtype))
  check(lambda lib: JOINS[join](lib, [x[0] for x in xs], dtype=dtype))


def test_stack_of_an_array_dtype_and_out():
  check(lambda lib: lib.stack(np.arange(6.0).reshape(2, 3), axis=1, dtype=np.int32))
  check(lambda lib: lib.stack([np.ones(2)], out=np.ones((1, 2))))


CREATIONS = {
    "arange": lambda lib, **kw: lib.arange(1, 7, 2, **kw),
    "linspace": lambda lib, **kw: lib.linspace(0.0, 1.0, 5, **kw),
    "linspace_retstep": lambda lib, **kw: lib.linspace(0.0, 1.0, 5, retstep=True, **kw),
    "zeros": lambda lib, **kw: lib.zeros((2, 3), **kw),
    "ones": lambda lib, **kw: lib.ones(3, np.int32, **kw),
    "full": lambda lib, **kw: lib.full((2,), 7.0, **kw),
    "empty": lambda lib, **kw: lib.empty((2,), **kw),
    "eye": lambda lib, **kw: lib.eye(3, 2, 1, **kw),
    "zeros_like": lambda lib, **kw: lib.zeros_like(np.ones((2, 2), np.int32), **kw),
    "ones_like": lambda lib, **kw: lib.ones_like(np.ones(3), **kw),
    "full_like": lambda lib, **kw: lib.full_like(np.ones(3), 2, **kw),
    "empty_like": lambda lib, **kw: lib.empty_like(np.ones(3), **kw),
    "array": lambda lib, **kw: lib.array([[1, 2]], **kw),
    "asarray": lambda lib, **kw: lib.asarray([1.0, 2.0], **kw),
}


@pytest.mark.parametrize("name", sorted(CREATIONS))
def test_creation_device(name):
  make = CREATIONS[name]
  check(lambda lib: make(lib, device=_device(lib)))
  for leaf in jax.tree.leaves(make(jnp, device=sj.devices()[0])):
    assert leaf.devices() == {sj.devices()[0]}
  check(lambda lib: _jit(lib)(lambda: make(lib, device=_device(lib)))())
  # device and out_sharding together are refused, as in JAX
  if name not in ("linspace", "linspace_retstep", "eye", "empty_like"):
    check(lambda lib: make(lib, device=_device(lib), out_sharding=jax.P()))


def test_array_positional_copy_order_ndmin():
  with pytest.warns(DeprecationWarning):
    check(lambda lib: lib.array([1, 2], None, True, "K", 2))
  check(lambda lib: lib.array([1, 2], None, True, "K", 2, 3))
  check(lambda lib: lib.array([1, 2], None, True, ndmin=1, copy=False))


# ----------------------------------------------------------------------------------------------
# The keywords the signature census found missing (tests/py/test_api_coverage.py)

POSITIONAL_ONLY = ["sin", "sqrt", "floor", "ceil", "isnan", "isposinf", "degrees", "real",
                   "conj", "bitwise_not", "equal", "less", "power", "mod", "hypot", "fmod"]


@pytest.mark.parametrize("name", POSITIONAL_ONLY)
def test_elementwise_operands_are_positional_only(name):
  nargs = 2 if name in ("equal", "less", "power", "mod", "hypot", "fmod") else 1
  args = [np.array([1.5, 2.0], np.float32)] * nargs
  check(lambda lib: getattr(lib, name)(*args))
  keyword = {"x": args[0]} if nargs == 1 else {"x1": args[0], "x2": args[1]}
  check(lambda lib: getattr(lib, name)(**keyword))


@pytest.mark.parametrize("name", ["round", "around", "isposinf", "isneginf", "stack"])
def test_out_is_refused(name):
  x = np.array([1.25, np.inf], np.float32)
  args = ([x],) if name == "stack" else (x,)
  check(lambda lib: getattr(lib, name)(*args, out=np.zeros(2, np.float32)))
  check(lambda lib: getattr(lib, name)(*args, out=None))


def test_clip_needs_an_input():
  check(lambda lib: lib.clip(min=0.0, max=1.0))
  check(lambda lib: lib.clip(np.array([-1.0, 0.5, 2.0]), max=1.0))


@pytest.mark.parametrize("dtype", [None, np.int8, np.uint8, np.int16, np.float32])
@pytest.mark.parametrize("mode", ["raise", "clip", "wrap", "ignore"])
def test_ravel_multi_index_dtype_and_ignore(dtype, mode):
  idx = [np.array([0, 1, 2]), np.array([3, 0, 1])]
  check(lambda lib: lib.ravel_multi_index(idx, (3, 4), mode=mode, dtype=dtype))
  check(lambda lib: lib.ravel_multi_index(idx, (3, 4), mode=mode, order="F", dtype=dtype))


def test_ravel_multi_index_dtype_limits():
  idx = [np.array([0, 1], np.uint8), np.array([1, 1], np.uint8)]
  check(lambda lib: lib.ravel_multi_index(idx, (3, 4)))
  check(lambda lib: lib.ravel_multi_index(idx, (300, 4), dtype=np.int8))


@pytest.mark.parametrize("copy", [None, True, False])
@pytest.mark.parametrize("order", ["C", "F"])
def test_reshape_signature(copy, order):
  x = np.arange(6.0, dtype=np.float32)
  check(lambda lib: lib.reshape(x, (2, 3), order, copy=copy))
  check(lambda lib: lib.reshape(x, shape=(3, -1), order=order))
  check(lambda lib: lib.asarray(x).reshape(3, 2, order=order))
  check(lambda lib: lib.asarray(x).reshape((2, 3)))
  check(lambda lib: lib.reshape(lib.asarray(x), 2, 3))  # (3 is `order`: an error in both)
  check(lambda lib: lib.reshape(lib.asarray(x), (2, 3), "A"))


OUT_SHARDED = {
    "reshape": lambda lib, **kw: lib.reshape(np.arange(6.0), (2, 3), **kw),
    "ravel": lambda lib, **kw: lib.ravel(np.ones((2, 3)), **kw),
    "broadcast_to": lambda lib, **kw: lib.broadcast_to(np.arange(3), (2, 3), **kw),
    "bincount": lambda lib, **kw: lib.bincount(np.array([0, 1, 1, 3]), length=4, **kw),
    "percentile": lambda lib, **kw: lib.percentile(np.arange(6.0).reshape(2, 3), 50.0, axis=1,
                                                   **kw),
    "arange": lambda lib, **kw: lib.arange(4, **kw),
    "array": lambda lib, **kw: lib.array([1, 2], **kw),
    "asarray": lambda lib, **kw: lib.asarray([1.0, 2.0], **kw),
}


@pytest.mark.parametrize("name", sorted(OUT_SHARDED))
def test_out_sharding(name):
  make = OUT_SHARDED[name]

  def sharded(lib, *spec):
    root = jax if lib is jjnp else sj
    return make(lib, out_sharding=root.sharding.NamedSharding(root.make_mesh((1,), ("x",)),
                                                              root.P(*spec)))
  check(lambda lib: sharded(lib))
  check(lambda lib: make(lib, out_sharding=None))
  if name == "bincount":  # (JAX's error is its ShardingTypeError, a bare Exception)
    for lib in (jjnp, jnp):
      with pytest.raises(Exception, match="fully replicated"):
        sharded(lib, "x")
    return
  want, got = sharded(jjnp, "x"), sharded(jnp, "x")
  np.testing.assert_array_equal(got, want)
  if hasattr(want.sharding, "spec"):  # (JAX gives a single-device sharding for some)
    assert tuple(got.sharding.spec) == tuple(want.sharding.spec)
