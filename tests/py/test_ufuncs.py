"""jnp.ufunc and jnp.frompyfunc against JAX: the 14 functions JAX makes ufuncs and their
methods (reduce, accumulate, at, reduceat, outer), their attributes, signatures and errors;
values, dtypes, shapes and weak types, eagerly, under jit, vmap and grad. Calling a ufunc stages
what its section's function stages."""
import inspect

import jax
import jax.numpy as jn
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core
from stablejax.numpy import _bitwise, _logic, _math_arithmetic, _math_transcendental

F32 = np.float32
R = np.random.default_rng(0)
X = R.standard_normal((3, 4)).astype(F32)
I = R.integers(-8, 8, (3, 4)).astype(np.int32)
B = R.random((3, 4)) > 0.5
U = R.integers(0, 200, (3, 4)).astype(np.uint8)
MASK = np.array([True, False, True, True])
IDX = np.array([0, 2, 0, 0])

UFUNCS = ["add", "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "logaddexp2",
          "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
          "negative", "subtract"]
BINARY = [n for n in UFUNCS if n != "negative"]
# an operand each binary ufunc takes
OPERAND = {n: I if n.startswith("bitwise") else B if n.startswith("logical") else X
           for n in BINARY}


def _weak(x):
  return core.get_aval(x).weak_type if isinstance(x, (sj.Array, core.Tracer)) else None


def _check(got, want, rtol=2e-5, atol=2e-5):
  got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
  assert len(got_leaves) == len(want_leaves), (got, want)
  for g, w in zip(got_leaves, want_leaves):
    assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype, (g, w)
    if isinstance(w, jax.Array):
      assert _weak(g) == w.weak_type, (g, w)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def _compare(fn, *args, jit=True):
  """fn(module, *args) on both libraries: the same values, or the same error type."""
  try:
    want = fn(jn, *args)
  except Exception as e:  # noqa: BLE001  (the oracle's error is what we compare)
    with pytest.raises(type(e)):
      fn(jnp, *args)
    return
  _check(fn(jnp, *args), want)
  if jit and args:
    _check(sj.jit(lambda *a: fn(jnp, *a))(*args), want)


def _methods(name):
  """method id -> function of (module, operand) for the binary ufunc `name`."""
  u = lambda m: getattr(m, name)  # noqa: E731
  return {
      "call": lambda m, x: u(m)(x, x[::-1]),
      "reduce": lambda m, x: u(m).reduce(x),
      "reduce_axis1_keepdims": lambda m, x: u(m).reduce(x, axis=1, keepdims=True),
      "reduce_none": lambda m, x: u(m).reduce(x, axis=None),
      "reduce_where_initial": lambda m, x: u(m).reduce(x, where=MASK, initial=x[0, 0],
                                                       axis=1),
      "reduce_empty": lambda m, x: u(m).reduce(x[:0]),
      "accumulate": lambda m, x: u(m).accumulate(x),
      "accumulate_axis1": lambda m, x: u(m).accumulate(x, axis=-1),
      "outer": lambda m, x: u(m).outer(x[0], x[1:]),
      "at_repeated": lambda m, x: u(m).at(x, IDX, x[1], inplace=False),
      "at_scalar": lambda m, x: u(m).at(x, (1, 2), x[0, 0], inplace=False),
      "reduceat": lambda m, x: u(m).reduceat(x, np.array([0, 2, 1]), axis=1),
  }


@pytest.mark.parametrize("name,method", [(n, k) for n in BINARY for k in _methods(n)])
def test_binary_ufunc_methods_match_jax(name, method):
  _compare(_methods(name)[method], OPERAND[name])


@pytest.mark.parametrize("fn", [
    lambda m, x: m.add.reduce(x, dtype=np.float32),
    lambda m, x: m.add.accumulate(x, dtype=np.float32),
    lambda m, x: m.multiply.reduce(x, axis=(0, 1)),
    lambda m, x: m.add.at(x, IDX, x[0], inplace=False),
    lambda m, x: m.multiply.at(x, IDX, x[0], inplace=False),
    lambda m, x: m.minimum.reduce(x, where=MASK, initial=3),
    lambda m, x: m.subtract.reduce(x, axis=None, keepdims=True),
    lambda m, x: m.subtract.reduce(x, where=MASK, initial=1, axis=1),
    lambda m, x: m.logical_and.reduce(x),
    lambda m, x: m.logical_xor.reduce(x, axis=1),
    lambda m, x: m.logaddexp.reduce(x, axis=1, initial=1.0),
    lambda m, x: m.logaddexp2.reduce(x, where=MASK, keepdims=True, axis=1),
], ids=lambda f: None)
@pytest.mark.parametrize("x", [I, X, U], ids=["int32", "float32", "uint8"])
def test_keywords_and_dtypes_match_jax(fn, x):
  _compare(fn, x)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.bitwise_and.reduce(x, where=MASK),
    lambda m, x: m.bitwise_and.reduce(x, where=np.zeros(4, bool), axis=1),
    lambda m, x: m.bitwise_or.accumulate(x, axis=1),
    lambda m, x: m.add.reduce(x),
    lambda m, x: m.add.at(x, IDX, True, inplace=False),
    lambda m, x: m.multiply.at(x, IDX, False, inplace=False),
    lambda m, x: m.subtract.reduce(x),
])
@pytest.mark.parametrize("x", [B, U], ids=["bool", "uint8"])
def test_boolean_and_unsigned_operands_match_jax(fn, x):
  _compare(fn, x)


def test_extremum_reduce_takes_dtype():
  """(JAX 0.10.2 refuses `dtype` there: its max reduction traces it as an array.)"""
  _check(jnp.maximum.reduce(I, axis=1, dtype=np.float32), jn.max(I.astype(F32), axis=1))
  _check(jnp.minimum.reduce(X, dtype=np.int32), jn.min(X.astype(np.int32), axis=0))


def _two_out(a, b):
  return a + b, a - b


def _mul(a, b):
  return a * b + 1


SHAPE_AXES = [(shape, axis) for shape in [(3,), (4, 3), (0, 3), (4, 0)]
              for axis in [None, *range(-len(shape), len(shape))]]


@pytest.mark.parametrize("name", ["add", "subtract", "maximum", "bitwise_and", "logical_xor",
                                  "logaddexp", "frompyfunc"])
@pytest.mark.parametrize("shape,axis", SHAPE_AXES)
def test_reduce_and_accumulate_over_shapes_and_axes_match_jax(name, shape, axis):
  rng = np.random.default_rng(len(shape) + (axis or 0))
  x = OPERAND.get(name, X).dtype.type(rng.integers(-3, 4, shape))
  u = lambda m: m.frompyfunc(_mul, 2, 1) if name == "frompyfunc" else getattr(m, name)  # noqa
  _compare(lambda m, a: u(m).reduce(a, axis=axis), x)
  where = rng.random(shape) > 0.5
  _compare(lambda m, a, w: u(m).reduce(a, axis=axis, where=w, initial=a.dtype.type(1)), x, where)
  if axis is not None:
    _compare(lambda m, a: u(m).accumulate(a, axis=axis), x)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.frompyfunc(_mul, 2, 1)(x, x[0]),
    lambda m, x: m.frompyfunc(_mul, 2, 1).reduce(x, axis=1),
    lambda m, x: m.frompyfunc(_mul, 2, 1, identity=1).reduce(x, where=MASK),
    lambda m, x: m.frompyfunc(_mul, 2, 1).reduce(x, dtype=np.int32),
    lambda m, x: m.frompyfunc(_mul, 2, 1).accumulate(x, axis=1),
    lambda m, x: m.frompyfunc(_mul, 2, 1).outer(x[0], x[:, 0]),
    lambda m, x: m.frompyfunc(_mul, 2, 1).at(x, (IDX[:3], IDX[1:]), 2.0, inplace=False),
    lambda m, x: m.frompyfunc(_mul, 2, 1).at(x, (np.array([1, 1]),), x[0], inplace=False),
    lambda m, x: m.frompyfunc(_mul, 2, 1).at(x, (), 2.0, inplace=False),
    lambda m, x: m.frompyfunc(_mul, 2, 1).at(x, 1, 2.0, inplace=False),
    lambda m, x: m.frompyfunc(_mul, 2, 1).reduceat(x, np.array([0, 2]), axis=1),
    lambda m, x: m.frompyfunc(lambda a, b: a > b, 2, 1).reduce(x, axis=1),
    lambda m, x: m.frompyfunc(lambda a, b: a > b, 2, 1).accumulate(x, axis=1),
    lambda m, x: m.frompyfunc(_two_out, 2, 2)(x, 1.0),
    lambda m, x: m.frompyfunc(jn.sin if m is jn else jnp.sin, 1, 1)(x),
    lambda m, x: m.frompyfunc(jn.sin if m is jn else jnp.sin, 1, 1).at(x, IDX, inplace=False),
    lambda m, x: m.negative.at(x, IDX, inplace=False),
    lambda m, x: m.negative(x),
])
def test_frompyfunc_matches_jax(fn):
  _compare(fn, X)


@pytest.mark.parametrize("fn", [
    lambda m: m.add(X, [1.0]),
    lambda m: m.add(X, 1.0, out=X),
    lambda m: m.add(X, 1.0, where=True),
    lambda m: m.add.reduce(X, out=0),  # (an array would be an unhashable static to JAX)
    lambda m: m.add.reduce([1.0, 2.0]),
    lambda m: m.add.accumulate(X, out=X),
    lambda m: m.add.at(X, IDX, 1.0),
    lambda m: m.add.at(X, [0, 1], 1.0, inplace=False),
    lambda m: m.add.reduceat(X, IDX, out=X),
    lambda m: m.add.outer(X, [1.0]),
    lambda m: m.negative.reduce(X),
    lambda m: m.negative.accumulate(X),
    lambda m: m.negative.outer(X, X),
    lambda m: m.negative.reduceat(X, IDX),
    lambda m: m.subtract.reduce(X, where=MASK),
    lambda m: m.subtract.reduce(X[:0]),
    lambda m: m.subtract.reduce(X, axis=(0, 1)),
    lambda m: m.subtract.reduce(X, axis=2),
    lambda m: m.subtract.reduce(X, where=MASK.astype(int), initial=1.0),
    lambda m: m.maximum.reduce(X, where=MASK),
    lambda m: m.maximum.reduce(X[:0]),
    lambda m: m.subtract.accumulate(X, axis=None),
    lambda m: m.subtract.reduceat(X, IDX[None]),
    lambda m: m.subtract.reduceat(F32(1.0), IDX),
    lambda m: m.subtract.reduceat(X, IDX, axis=None),
    lambda m: m.bitwise_and.reduce(X),
    lambda m: m.frompyfunc(_two_out, 2, 2).reduce(X),
    lambda m: m.frompyfunc(_mul, 2, 1)(X, X, X),
])
def test_errors_match_jax(fn):
  with pytest.raises(Exception) as want:
    fn(jn)
  with pytest.raises(want.type):
    fn(jnp)


def test_the_ufuncs_are_jaxs():
  theirs = {n for n in dir(jn) if isinstance(getattr(jn, n), jn.ufunc)}
  ours = {n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc)}
  assert ours == theirs == set(UFUNCS)


@pytest.mark.parametrize("name", UFUNCS)
def test_attributes_and_signatures_match_jax(name):
  ours, theirs = getattr(jnp, name), getattr(jn, name)
  assert repr(ours) == repr(theirs) and ours.__name__ == theirs.__name__
  assert (ours.nin, ours.nout, ours.nargs) == (theirs.nin, theirs.nout, theirs.nargs)
  assert ours.identity == theirs.identity or (ours.identity is None is theirs.identity)
  assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
  for method in ["reduce", "accumulate", "at", "reduceat", "outer"]:
    got, want = inspect.signature(getattr(ours, method)), inspect.signature(getattr(theirs, method))
    assert list(got.parameters) == list(want.parameters), method
    assert [(p.kind, p.default) for p in got.parameters.values()] == [
        (p.kind, p.default) for p in want.parameters.values()], method


@pytest.mark.parametrize("u", [jnp.add, jnp.negative, jnp.frompyfunc(_two_out, 2, 2)])
def test_attributes_are_read_only(u):
  for attr in ["nargs", "nin", "nout", "identity", "_func"]:
    getattr(u, attr)
    with pytest.raises(AttributeError):
      setattr(u, attr, None)


def test_frompyfunc_attributes_equality_and_hash():
  f = jnp.frompyfunc(_mul, 2, 1, identity=1)
  assert (f.nin, f.nout, f.nargs, f.identity, repr(f)) == (2, 1, 2, 1, "<jnp.ufunc '_mul'>")
  assert f == jnp.frompyfunc(_mul, 2, 1, identity=1) and hash(f) == hash(
      jnp.frompyfunc(_mul, 2, 1, identity=1))
  assert f != jnp.frompyfunc(_mul, 2, 1) and jnp.add != jnp.multiply
  assert str(inspect.signature(jnp.frompyfunc)) == str(inspect.signature(jn.frompyfunc))


SECTION = {"negative": _math_arithmetic.negative, "add": _math_arithmetic.add,
           "subtract": _math_arithmetic.subtract, "multiply": _math_arithmetic.multiply,
           "maximum": _math_arithmetic.maximum, "minimum": _math_arithmetic.minimum,
           "bitwise_and": _bitwise.bitwise_and, "bitwise_or": _bitwise.bitwise_or,
           "bitwise_xor": _bitwise.bitwise_xor, "logical_and": _logic.logical_and,
           "logical_or": _logic.logical_or, "logical_xor": _logic.logical_xor,
           "logaddexp": _math_transcendental.logaddexp,
           "logaddexp2": _math_transcendental.logaddexp2}


@pytest.mark.parametrize("name", UFUNCS)
def test_calling_a_ufunc_stages_its_function(name):
  x = OPERAND.get(name, X)
  args = (x,) if name == "negative" else (x, 1)
  want = str(sj.make_jaxpr(SECTION[name])(*args[:1]) if len(args) == 1 else
             sj.make_jaxpr(lambda a: SECTION[name](a, 1))(x))
  got = str(sj.make_jaxpr(lambda a: getattr(jnp, name)(*((a,) + args[1:])))(x))
  assert got == want


@pytest.mark.parametrize("name,method", [
    ("add", lambda u, x: u.reduce(x, axis=1)),
    ("multiply", lambda u, x: u.reduce(x)),
    ("maximum", lambda u, x: u.reduce(x, axis=1)),
    ("bitwise_xor", lambda u, x: u.reduce(x, axis=1)),
    ("logical_and", lambda u, x: u.reduce(x, axis=1)),
    ("add", lambda u, x: u.accumulate(x, axis=1)),
])
def test_fast_methods_stage_jaxs_primitives(name, method):
  """The fast methods stage what JAX's do, inside its `jit` wrapper."""
  x = OPERAND[name]
  ours = sj.make_jaxpr(lambda a: method(getattr(jnp, name), a))(x)
  theirs = jax.make_jaxpr(lambda a: method(getattr(jn, name), a))(x)
  (call,) = theirs.eqns
  assert [e.primitive.name for e in ours.eqns] == _inner_primitives(call.params["jaxpr"].jaxpr)


def _inner_primitives(jaxpr):
  names = []
  for e in jaxpr.eqns:
    names += _inner_primitives(e.params["jaxpr"].jaxpr) if e.primitive.name == "jit" else [
        e.primitive.name]
  return names


@pytest.mark.parametrize("fn", [
    lambda m, x: m.add.reduce(x),
    lambda m, x: m.multiply.reduce(x, axis=1),
    lambda m, x: m.logaddexp.reduce(x, axis=1),
    lambda m, x: m.subtract.reduce(x, axis=1),
    lambda m, x: m.add.accumulate(x, axis=1),
    lambda m, x: m.subtract.accumulate(x),
    lambda m, x: m.frompyfunc(_mul, 2, 1).accumulate(x, axis=1),
    lambda m, x: m.maximum.outer(x[0], x[1]),
    lambda m, x: m.frompyfunc(_mul, 2, 1).at(x, IDX, 2.0, inplace=False),
    lambda m, x: m.subtract.reduceat(x, np.array([0, 2]), axis=1),
])
def test_vmap_and_grad_match_jax(fn):
  xs = np.stack([X, X[::-1]])
  _check(sj.vmap(lambda a: fn(jnp, a))(xs), jax.vmap(lambda a: fn(jn, a))(xs))
  scalar = lambda m: lambda a: m.sum(fn(m, a) ** 2)  # noqa: E731
  _check(sj.grad(scalar(jnp))(X), jax.grad(scalar(jn))(X), rtol=1e-4, atol=1e-4)
