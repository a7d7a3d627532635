"""The small lax helpers (select, split/stack/unstack/tile, broadcast_like, empty, dtype, the
shape computations and type aliases) and jax.tree's broadcast/reduce_associative/static, against
JAX 0.10.2."""
import dataclasses

import jax
import numpy as np
import pytest

import stablejax as sj
from stablejax import lax, test_util

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _check(out, expected):
  out, expected = jax.tree_util.tree_map(np.asarray, (out, expected))
  assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(expected)
  for o, e in zip(jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(expected)):
    assert o.dtype == e.dtype and o.shape == e.shape
    test_util.check_close(o, e)


CASES = [
    ("select", lambda m: (X > 5, X, -X)),
    ("split", lambda m: (X, [1, 0, 2], 1)),
    ("split", lambda m: (X, (3, 1), -1)),
    ("stack", lambda m: ([X, X + 1, X * 2], 2)),
    ("stack", lambda m: ([X[0, 0, 0], X[1, 1, 1]],)),
    ("unstack", lambda m: (X, 1)),
    ("unstack", lambda m: (X, -1)),
    ("tile", lambda m: (X, (2, 1, 3))),
    ("tile", lambda m: (X[0, 0], (3,))),
    ("broadcast_like", lambda m: (X[0, 0], X)),
]


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_array_helpers_match_jax(name, args):
  args = args(None)
  fn, jfn = getattr(lax, name), getattr(jax.lax, name)
  expected = jfn(*args)
  if isinstance(expected, list):
    expected = list(expected)
  _check(fn(*args), expected)
  arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
  if arrays:
    static = dict(enumerate(args))

    def call(*xs):
      full = dict(static)
      full.update(zip(arrays, xs))
      return fn(*(full[i] for i in range(len(args))))

    _check(sj.jit(call)(*(args[i] for i in arrays)), expected)


@pytest.mark.slow
def test_array_helpers_under_vmap_and_grad():
  _check(sj.vmap(lambda x: lax.tile(x, (2, 1)))(X), jax.vmap(lambda x: jax.lax.tile(x, (2, 1)))(X))
  _check(sj.vmap(lambda x: lax.stack([x, x], 1))(X),
         jax.vmap(lambda x: jax.lax.stack([x, x], 1))(X))
  _check(sj.vmap(lambda x: lax.split(x, [1, 3], 1))(X),
         jax.vmap(lambda x: jax.lax.split(x, [1, 3], 1))(X))
  f = lambda x: sj.numpy.sum(lax.tile(x, (1, 2, 1)) * lax.stack(lax.unstack(x, 1) * 2, 1) ** 2)
  jf = lambda x: jax.numpy.sum(jax.lax.tile(x, (1, 2, 1))
                               * jax.lax.stack(jax.lax.unstack(x, 1) * 2, 1) ** 2)
  _check(sj.grad(f)(X), jax.grad(jf)(X))
  _check(sj.grad(lambda x: sj.numpy.sum(lax.select(x > 5, x * x, -x)))(X),
         jax.grad(lambda x: jax.numpy.sum(jax.lax.select(x > 5, x * x, -x)))(X))


def test_array_helper_errors():
  with pytest.raises(ValueError, match="Sum of sizes"):
    lax.split(X, [1, 1], 1)
  with pytest.raises(TypeError, match="reps length"):
    lax.tile(X, (2,))
  with pytest.raises(ValueError, match="same shape"):
    lax.stack([X, X[0]])
  with pytest.raises(ValueError, match="broadcast_like"):
    lax.broadcast_like(X, X[0])
  with pytest.raises(TypeError, match="must be boolean or integer"):
    lax.select(np.float32(1), X, X)


def test_empty_dtype_and_broadcast_shapes():
  _check(lax.empty((2, 3), np.int16), jax.lax.empty((2, 3), np.int16))
  assert sj.jit(lambda: lax.empty((4,), np.float32))().shape == (4,)
  for value in (1.0, 1, True, "float64", np.float16, X, np.int64(3), float, np.dtype("uint8")):
    assert lax.dtype(value) == jax.lax.dtype(value), value
  for shapes in [((3, 1), (4,)), ((1,), ()), ((2, 1, 5), (7, 1))]:
    assert lax.broadcast_shapes(*shapes) == jax.lax.broadcast_shapes(*shapes)
  with pytest.raises(ValueError, match="Incompatible shapes"):
    lax.broadcast_shapes((3,), (4,))


CONV = [((2, 3, 10, 9), (4, 3, 3, 2), (1, 2), "SAME"),
        ((2, 3, 10, 9), (4, 3, 3, 2), (2, 3), "VALID"),
        ((2, 3, 10, 9), (4, 3, 3, 2), (1, 1), [(1, 2), (0, 3)])]


@pytest.mark.parametrize("lhs,rhs,strides,pads", CONV)
def test_conv_shape_tuples(lhs, rhs, strides, pads):
  assert lax.conv_shape_tuple(lhs, rhs, strides, pads) == tuple(
      int(d) for d in jax.lax.conv_shape_tuple(lhs, rhs, strides, pads))
  nhwc, hwio = tuple(np.take(lhs, (0, 2, 3, 1))), tuple(np.take(rhs, (2, 3, 1, 0)))
  dn = ("NHWC", "HWIO", "NHWC")
  for name in ("conv_general_shape_tuple", "conv_transpose_shape_tuple"):
    ours = getattr(lax, name)(nhwc, hwio, strides, pads, dn)
    assert ours == tuple(int(d) for d in getattr(jax.lax, name)(nhwc, hwio, strides, pads, dn))
  with pytest.raises(TypeError, match="Wrong number of explicit pads"):
    lax.conv_shape_tuple(lhs, rhs, strides, [(0, 0)])


def test_reduce_window_shape_tuple():
  args = ((5, 7, 3), (2, 3, 1), (1, 2, 2), [(0, 1), (1, 1), (0, 0)])
  for dilations in [(), ((2, 1, 1),), ((2, 1, 1), (1, 2, 1))]:
    assert lax.reduce_window_shape_tuple(*args, *dilations) == tuple(
        int(d) for d in jax.lax.reduce_window_shape_tuple(*args, *dilations))


def test_type_aliases_exist():
  for name in ("DotDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "PrecisionLike"):
    assert getattr(lax, name) is not None


TREE = ([1., 2.], {"a": (3., 4.), "b": 5.})


def test_tree_broadcast_and_reduce_associative():
  prefix = (0, {"a": 1, "b": 2})
  assert sj.tree.broadcast(prefix, TREE) == jax.tree.broadcast(prefix, TREE)
  assert sj.tree.broadcast(7, TREE) == jax.tree.broadcast(7, TREE)
  pair = lambda a, b: (a, b)
  assert sj.tree.reduce_associative(pair, TREE) == jax.tree.reduce_associative(pair, TREE)
  assert sj.tree.reduce_associative(pair, [], identity=0) == 0
  with pytest.raises(TypeError, match="identity"):
    sj.tree.reduce_associative(pair, [])
  with pytest.raises(ValueError):
    sj.tree.broadcast((1, 2, 3), TREE)


def test_tree_static():
  ours, theirs = sj.tree.static(default=1), jax.tree.static(default=1)
  assert ours.metadata == theirs.metadata and ours.default == theirs.default
  assert dict(sj.tree.static(metadata={"x": 1}).metadata) == {"static": True, "x": 1}
  assert isinstance(ours, dataclasses.Field)
