"""jax.numpy array creation and manipulation (flip/roll/repeat/tile/split/stack/pad/diff/...):
values, dtypes, shapes and weak types against JAX, eagerly and under jit; vmap and grad of the
differentiable ones; errors."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, test_util

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

F32, I32 = np.float32, np.int32


def rand(shape, dtype=F32, seed=0):
  return test_util.rand(np.random.default_rng(seed), shape, dtype)


def _leaves(x):
  return list(x) if isinstance(x, (list, tuple)) else [x]


def check_like_jax(actual, expected, rtol=None, atol=None):
  """Values, shapes, dtypes and weak types of `actual` (pytrees of lists) equal JAX's."""
  actual, expected = _leaves(actual), _leaves(expected)
  assert len(actual) == len(expected)
  for a, e in zip(actual, expected):
    assert a.shape == e.shape and a.dtype == e.dtype, (a, e)
    assert core.get_aval(a).weak_type == e.weak_type, (a, e)
    test_util.check_close(a, e, rtol, atol)


def check_eager_and_jit(name, arrays, *args, **kwargs):
  """`name(*arrays, *args, **kwargs)` against jax.numpy, eagerly and under jit (the arrays are
  the jitted arguments)."""
  expected = getattr(jjnp, name)(*arrays, *args, **kwargs)
  fn = getattr(jnp, name)
  check_like_jax(fn(*arrays, *args, **kwargs), expected)
  check_like_jax(sj.jit(lambda *xs: fn(*xs, *args, **kwargs))(*arrays), expected)


X34 = rand((3, 4))
X234 = rand((2, 3, 4), seed=1)

CASES = [
    ("flip", [X234], (), {}), ("flip", [X234], (), {"axis": (0, 2)}),
    ("flip", [X234], (), {"axis": -1}), ("fliplr", [X34], (), {}), ("flipud", [X34], (), {}),
    ("rot90", [X34], (), {}), ("rot90", [X234], (2, (2, 1)), {}), ("rot90", [X34], (-1,), {}),
    ("rot90", [X34], (4,), {}),
    ("roll", [X34], (2,), {}), ("roll", [X34], (-1,), {"axis": 1}),
    ("roll", [X234], ((1, -2),), {"axis": (0, 2)}), ("roll", [X234], (5,), {"axis": (1, 2)}),
    ("rollaxis", [X234], (2,), {}), ("rollaxis", [X234], (0, 3), {}),
    ("repeat", [X34], (2,), {}), ("repeat", [X34], (3,), {"axis": 1}),
    ("repeat", [X34], (np.array([1, 0, 3]),), {"axis": 0}),
    ("repeat", [X34], (np.array([2, 1, 0, 1]),), {"axis": 1, "total_repeat_length": 6}),
    ("repeat", [X34], (np.array([2, 1, 0, 1]),), {"axis": 1, "total_repeat_length": 2}),
    ("tile", [X34], (2,), {}), ("tile", [X34], ((2, 1, 3),), {}), ("tile", [X234], ((2, 1),), {}),
    ("resize", [X34], ((5, 3),), {}), ("resize", [X34], (2,), {}),
    ("split", [X34], (2,), {"axis": 1}), ("split", [X34], ([1, 3],), {"axis": 1}),
("array_split", [X34], (3,), {"axis": 1}),
    ("vsplit", [X34], (3,), {}), ("hsplit", [X34], (2,), {}), ("dsplit", [X234], (2,), {}),
    ("unstack", [X234], (), {"axis": 1}),
    ("vstack", [[X34, X34]], (), {}), ("hstack", [[X34[0], X34[1]]], (), {}),
    ("dstack", [[X34, X34]], (), {}), ("column_stack", [[X34[0], X34[1]]], (), {}),
    ("concat", [[X34, X34]], (), {"axis": 1}), ("block", [[[X34, X34], [X34, X34]]], (), {}),
    ("atleast_1d", [X34[0, 0]], (), {}), ("atleast_2d", [X34[0]], (), {}),
    ("atleast_3d", [X34[0]], (), {}), ("atleast_3d", [X34], (), {}),
    ("broadcast_to", [X34[0]], ((2, 3, 4),), {}), ("broadcast_arrays", [X34, X234[:, :1]], (), {}),
    ("append", [X34, X34], (), {}), ("append", [X34, X34], (), {"axis": 0}),
    ("insert", [X34], (1, 7.0), {"axis": 1}),
    ("insert", [X34], (np.array([0, 4]), X34[:, :2]), {"axis": 1}),
    ("insert", [X34], (np.array([-1, 2]), 5.0), {}),
    ("delete", [X34], (1,), {"axis": 1}), ("delete", [X34], (np.array([0, 2, -1]),), {}),
    ("delete", [X34], (slice(0, None, 2),), {"axis": 1}),
    ("diff", [X34], (), {}), ("diff", [X234], (), {"n": 2, "axis": 1}),
    ("diff", [X34], (), {"prepend": 1.0, "append": X34[:, :2]}),
    ("ediff1d", [X34], (), {"to_begin": 1.0, "to_end": X34[0]}),
    ("permute_dims", [X234], ((2, 0, 1),), {}), ("matrix_transpose", [X234], (), {}),
    ("tril", [X34], (), {}), ("tril", [X234], (), {"k": -1}), ("triu", [X34], (), {"k": 1}),
    ("vander", [X34[0]], (), {}), ("vander", [X34[0]], (3,), {"increasing": True}),
    ("empty_like", [X34], (), {}), ("copy", [X34], (), {}),
]


@pytest.mark.parametrize("name,arrays,args,kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_jax(name, arrays, args, kwargs):
  check_eager_and_jit(name, arrays, *args, **kwargs)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float16, np.uint8])
@pytest.mark.parametrize("name,args,kwargs", [
    ("flip", (), {}), ("roll", (1,), {"axis": 0}), ("repeat", (2,), {}), ("tile", ((1, 2),), {}),
    ("diff", (), {}), ("rot90", (), {}), ("append", (), {"values": 1}),
    ("insert", (1, 3), {}), ("tril", (), {}), ("resize", ((4, 4),), {})])
def test_dtypes_match_jax(dtype, name, args, kwargs):
  check_eager_and_jit(name, [rand((3, 4), dtype)], *args, **kwargs)


def test_weak_types_follow_jax():
  for name, args in [("atleast_1d", (3.0,)), ("atleast_2d", (3,)), ("flip", (2.0,)),
                     ("append", (1.0, 2.0)), ("tile", (1.0, 3)), ("repeat", (2, 3)),
                     ("broadcast_to", (1.0, (2,)))]:
    check_like_jax(getattr(jnp, name)(*args), getattr(jjnp, name)(*args))
  check_like_jax(jnp.broadcast_arrays(1.0, X34), jjnp.broadcast_arrays(1.0, X34))
  check_like_jax(jnp.array(3.0), jjnp.array(3.0))
  check_like_jax(jnp.array([3.0]), jjnp.array([3.0]))
  check_like_jax(sj.jit(lambda x: jnp.pad(x, 1, "edge"))(2.0 * jnp.ones(3)),
                 jjnp.pad(2.0 * jjnp.ones(3), 1, "edge"))


def test_roll_by_traced_shift():
  for shift, axis in [(3, 1), (-7, 0), (np.array([1, -2]), (0, 1))]:
    f = lambda x, s, axis=axis: jnp.roll(x, s, axis)  # noqa: E731
    check_like_jax(sj.jit(f)(X34, np.asarray(shift, I32)), jjnp.roll(X34, shift, axis))
  check_like_jax(sj.jit(lambda x, s: jnp.roll(x, s))(X34, I32(5)), jjnp.roll(X34, 5))


PAD_MODES = [("constant", {}), ("constant", {"constant_values": 2.5}),
             ("constant", {"constant_values": ((1, 2), (3, 4))}),
             ("constant", {"constant_values": (5, 6)}), ("edge", {}), ("wrap", {}),
             ("reflect", {}), ("symmetric", {}), ("reflect", {"reflect_type": "odd"}),
             ("symmetric", {"reflect_type": "odd"}), ("linear_ramp", {}),
             ("linear_ramp", {"end_values": (1, 5)}), ("maximum", {}), ("minimum", {}),
             ("mean", {}), ("mean", {"stat_length": 2}), ("maximum", {"stat_length": (1, 3)}),
             ("empty", {})]


@pytest.mark.parametrize("mode,kwargs", PAD_MODES, ids=[f"{m}-{i}" for i, (m, _) in
                                                         enumerate(PAD_MODES)])
@pytest.mark.parametrize("pad_width", [2, ((1, 6), (9, 0)), (0, 3)])
def test_pad_matches_jax(mode, kwargs, pad_width):
  fn = lambda x: jnp.pad(x, pad_width, mode, **kwargs)  # noqa: E731
  expected = jjnp.pad(X34, pad_width, mode, **kwargs)
  if mode == "empty":
    (top, _), (left, _) = np.broadcast_to(pad_width, (2, 2))
    assert fn(X34).shape == expected.shape and fn(X34).dtype == expected.dtype
    test_util.check_close(np.asarray(fn(X34))[top:top + 3, left:left + 4], X34)
    return
  check_like_jax(fn(X34), expected)
  check_like_jax(sj.jit(fn)(X34), expected)


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "reflect", "symmetric", "maximum",
                                  "mean"])
def test_pad_integers(mode):
  x = rand((3, 4), I32)
  check_like_jax(jnp.pad(x, ((1, 2), (3, 0)), mode), jjnp.pad(x, ((1, 2), (3, 0)), mode))


@pytest.mark.slow
def test_creation_matches_jax():
  cases = [("empty", ((2, 3),), {}), ("empty", (3,), {"dtype": I32}), ("identity", (3,), {}),
           ("identity", (2,), {"dtype": bool}), ("tri", (3,), {}), ("tri", (3, 5, 1), {}),
           ("tri", (4, 2, -1), {"dtype": I32}), ("geomspace", (1.0, 1000.0, 4), {}),
           ("geomspace", (-1.0, -16.0, 5), {"endpoint": False}),
           ("geomspace", (2, np.array([8.0, 32.0]), 3), {"axis": 1}),
           ("logspace", (0, 2, 5), {}), ("logspace", (0.0, 3.0, 4), {"base": 2.0, "dtype": I32}),
           ("linspace", (np.zeros(2, F32), np.ones(2, F32), 5), {"axis": 1}),
           ("linspace", (0, 10, 5), {"dtype": I32}), ("linspace", (0.0, 1.0, 4), {"endpoint": False}),
           ("linspace", (2.0, 3.0, 1), {}), ("linspace", (2.0, 3.0, 0), {}),
           ("arange", (0.0, 1.0, 0.1), {}), ("arange", (1, 10, 3), {}),
           ("arange", (0.0, 1.0, 0.1), {"dtype": np.float16}), ("arange", (5,), {}),
           ("broadcast_shapes", ((2, 1), (3,)), {}), ("broadcast_shapes", (3, (2, 1)), {})]
  for name, args, kwargs in cases:
    actual, expected = getattr(jnp, name)(*args, **kwargs), getattr(jjnp, name)(*args, **kwargs)
    if name == "broadcast_shapes":
      assert actual == expected
    else:
      check_like_jax(actual, expected)
  (step_actual, step_expected) = (f(0.0, 1.0, 5, retstep=True)[1] for f in (jnp.linspace,
                                                                             jjnp.linspace))
  check_like_jax(step_actual, step_expected)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse):
  xs = [rand((3,)), rand((2,), I32), rand((4,), seed=2)]
  for n in (1, 2, 3):
    check_like_jax(jnp.meshgrid(*xs[:n], indexing=indexing, sparse=sparse),
                   jjnp.meshgrid(*xs[:n], indexing=indexing, sparse=sparse))


@pytest.mark.slow
def test_mgrid_ogrid_fromfunction_frombuffer():
  check_like_jax(jnp.mgrid[0:3, 0:2], jjnp.mgrid[0:3, 0:2])
  check_like_jax(jnp.mgrid[0:1:5j], jjnp.mgrid[0:1:5j])
  check_like_jax(jnp.mgrid[0:3, 0.0:1.0:3j], jjnp.mgrid[0:3, 0.0:1.0:3j])
  check_like_jax(jnp.ogrid[1:4:2, -1:2], jjnp.ogrid[1:4:2, -1:2])
  f = lambda i, j: i * 10 + j  # noqa: E731
  check_like_jax(jnp.fromfunction(f, (2, 3)), jjnp.fromfunction(f, (2, 3)))
  check_like_jax(jnp.fromfunction(f, (2, 3), dtype=I32), jjnp.fromfunction(f, (2, 3), dtype=I32))
  buf = np.arange(4, dtype=F32).tobytes()
  check_like_jax(jnp.frombuffer(buf, dtype=F32), jjnp.frombuffer(buf, dtype=F32))


def test_reshape_and_ravel_orders():
  for order in ("C", "F"):
    expected = jjnp.reshape(jjnp.asarray(X234), (4, 6), order=order)
    check_like_jax(jnp.reshape(X234, (4, 6), order=order), expected)
    check_like_jax(jnp.ravel(X234, order=order), jjnp.ravel(X234, order=order))
  check_like_jax(jnp.reshape(X34, shape=(2, -1)), jjnp.reshape(jjnp.asarray(X34), shape=(2, -1)))
  with pytest.raises(NotImplementedError):
    jnp.ravel(X34, order="K")


def test_asarray_and_array():
  check_like_jax(jnp.asarray([1, 2], dtype=F32), jjnp.asarray([1, 2], dtype=F32))
  check_like_jax(jnp.asarray(X34, copy=True), jjnp.asarray(X34, copy=True))
  check_like_jax(jnp.array(X34[0], ndmin=3), jjnp.array(X34[0], ndmin=3))


# ----------------------------------------------------------------------------------------------
# vmap and grad


VMAPPED = [
    lambda x: jnp.roll(x, 2, 1), lambda x: jnp.roll(x, (1, -1), (0, 1)),
    lambda x: jnp.tile(x, (2, 1)), lambda x: jnp.repeat(x, 2, axis=0),
    lambda x: jnp.repeat(x, np.array([0, 2, 1, 1]), axis=1),
    lambda x: jnp.pad(x, ((1, 2), (0, 3)), "reflect"), lambda x: jnp.pad(x, 2, "edge"),
    lambda x: jnp.pad(x, 1, "wrap"), lambda x: jnp.pad(x, 1, "mean"),
    lambda x: jnp.pad(x, 2, "linear_ramp"), lambda x: jnp.pad(x, (1, 2), constant_values=3.0),
    lambda x: jnp.stack(jnp.split(x, 2, axis=1)[::-1]), lambda x: jnp.diff(x, 2),
    lambda x: jnp.flip(x), lambda x: jnp.rot90(x), lambda x: jnp.tril(x),
    lambda x: jnp.insert(x, 1, 0.5, axis=0), lambda x: jnp.delete(x, 2, axis=1),
]
JAX_TWINS = [
    lambda x: jjnp.roll(x, 2, 1), lambda x: jjnp.roll(x, (1, -1), (0, 1)),
    lambda x: jjnp.tile(x, (2, 1)), lambda x: jjnp.repeat(x, 2, axis=0),
    lambda x: jjnp.repeat(x, np.array([0, 2, 1, 1]), axis=1),
    lambda x: jjnp.pad(x, ((1, 2), (0, 3)), "reflect"), lambda x: jjnp.pad(x, 2, "edge"),
    lambda x: jjnp.pad(x, 1, "wrap"), lambda x: jjnp.pad(x, 1, "mean"),
    lambda x: jjnp.pad(x, 2, "linear_ramp"), lambda x: jjnp.pad(x, (1, 2), constant_values=3.0),
    lambda x: jjnp.stack(jjnp.split(x, 2, axis=1)[::-1]), lambda x: jjnp.diff(x, 2),
    lambda x: jjnp.flip(x), lambda x: jjnp.rot90(x), lambda x: jjnp.tril(x),
    lambda x: jjnp.insert(x, 1, 0.5, axis=0), lambda x: jjnp.delete(x, 2, axis=1),
]


@pytest.mark.slow
@pytest.mark.parametrize("i", range(len(VMAPPED)))
def test_vmap_and_grad_match_jax(i):
  f, g = VMAPPED[i], JAX_TWINS[i]
  xs = rand((5, 3, 4), seed=i)
  check_like_jax(sj.vmap(f)(xs), jax.vmap(g)(xs))
  xs1 = np.moveaxis(xs, 0, 1)
  check_like_jax(sj.vmap(f, in_axes=1)(xs1), jax.vmap(g, in_axes=1)(xs1))
  w = rand(np.shape(g(xs[0])), seed=100 + i)
  loss, jloss = (lambda x: jnp.sum(f(x) * w)), (lambda x: jjnp.sum(g(x) * w))
  test_util.check_close(sj.grad(loss)(xs[0]), jax.grad(jloss)(xs[0]))
  test_util.check_close(sj.jit(sj.grad(loss))(xs[0]), jax.grad(jloss)(xs[0]))


@pytest.mark.slow
@pytest.mark.parametrize("f", [
    lambda x: jnp.roll(x, 1, 0), lambda x: jnp.pad(x, 2, "symmetric", reflect_type="odd"),
    lambda x: jnp.repeat(x, 2, axis=1), lambda x: jnp.diff(x, prepend=0.0)])
def test_grads_against_finite_differences(f):
  with test_util.x64(True):
    test_util.check_grads(f, [rand((3, 4), np.float64)], order=2)


@pytest.mark.slow
def test_roll_traced_shift_under_vmap_and_grad():
  xs, shifts = rand((3, 5)), np.array([0, 2, -6], I32)
  check_like_jax(sj.vmap(jnp.roll)(xs, shifts), jax.vmap(jjnp.roll)(xs, shifts))
  w = rand((5,), seed=3)
  test_util.check_close(sj.grad(lambda x: jnp.sum(jnp.roll(x, I32(2)) * w))(xs[0]),
                        jax.grad(lambda x: jjnp.sum(jjnp.roll(x, I32(2)) * w))(xs[0]))


# ----------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("call,error", [
    (lambda m: m.split(X34, 3, axis=1), ValueError),
    (lambda m: m.split(X34, [3, 1], axis=1), ValueError),
    (lambda m: m.rot90(X34[0]), ValueError),
    (lambda m: m.rot90(X34, axes=(1, 1)), ValueError),
    (lambda m: m.fliplr(X34[0]), ValueError),
    (lambda m: m.repeat(X34, [1, 2]), TypeError),
    (lambda m: m.repeat(X34, np.array([1, 2]), axis=0), ValueError),
    (lambda m: m.diff(X34, n=-1), ValueError),
    (lambda m: m.diff(X34[0, 0]), ValueError),
    (lambda m: m.broadcast_to(X34, (4, 3)), ValueError),
    (lambda m: m.broadcast_shapes((2,), (3,)), ValueError),
    (lambda m: m.pad(X34, 1, "nope"), NotImplementedError),
    (lambda m: m.pad(X34, 1, "edge", constant_values=1), ValueError),
    (lambda m: m.pad(X34, -1), ValueError),
    (lambda m: m.pad(X34, ((1, 2, 3),)), ValueError),
    (lambda m: m.pad(np.ones(0, F32), 1, "wrap"), ValueError),
    (lambda m: m.pad(X34, 1.5), TypeError),
    (lambda m: m.tril(X34[0]), ValueError),
    (lambda m: m.vander(X34), ValueError),
    (lambda m: m.meshgrid(X34), ValueError),
    (lambda m: m.meshgrid(X34[0], indexing="ji"), ValueError),
    (lambda m: m.resize(X34, (-1, 2)), ValueError),
    (lambda m: m.matrix_transpose(X34[0]), ValueError),
    (lambda m: m.unstack(X34[0, 0]), ValueError),
    (lambda m: m.rollaxis(X34, 0, 5), ValueError),
    (lambda m: m.block([(X34,)]), ValueError),
    (lambda m: m.block([[X34], X34]), ValueError),
    (lambda m: m.insert(X34, np.ones((2, 2), I32), 1.0), ValueError),
])
def test_errors_match_jax(call, error):
  with pytest.raises(error):
    call(jjnp)
  with pytest.raises(error):
    call(jnp)


def test_static_arguments_must_be_concrete():
  with pytest.raises(sj.errors.ConcretizationTypeError if hasattr(sj, "errors")
                     else core.ConcretizationTypeError):
    sj.jit(lambda x, r: jnp.repeat(x, r))(X34, I32(2))
  with pytest.raises(core.ConcretizationTypeError):
    sj.jit(lambda x, i: jnp.delete(x, i))(X34, I32(2))
