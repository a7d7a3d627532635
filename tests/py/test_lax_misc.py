"""The lax miscellany against JAX 0.10.2: reduce_and/or/xor, reduce_precision,
optimization_barrier, Precision and dot_general's precision, batch_matmul, collapse,
broadcast_to_rank, map and associative_scan; with jit, vmap, grad and their lowerings."""
import numpy as np
import pytest

import stablejax as sj
from stablejax import core, lax, test_util
from stablejax.lax import primitive_kit

jax = pytest.importorskip("jax")
jlax = pytest.importorskip("jax.lax")
jjnp = pytest.importorskip("jax.numpy")

F32 = np.float32


def rand(shape, dtype=F32, seed=0):
  return test_util.rand(np.random.default_rng(seed), shape, dtype)


def check_like_jax(got, want):
  for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
    aval, w = core.get_aval(g), jjnp.asarray(w)
    assert (aval.dtype, aval.shape, aval.weak_type) == (w.dtype, w.shape, w.aval.weak_type)
    test_util.check_close(np.asarray(g), np.asarray(w))


# ----------------------------------------------------------------------------------------------
# reduce_and / reduce_or / reduce_xor

@pytest.mark.parametrize("name", ["reduce_and", "reduce_or", "reduce_xor"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8])
def test_bitwise_reductions(name, dtype):
  x = rand((3, 4, 2), dtype)
  for axes in [(0,), (1, 2), (0, 1, 2)]:
    want = getattr(jlax, name)(x, axes)
    check_like_jax(getattr(lax, name)(x, axes), want)
    check_like_jax(sj.jit(lambda v: getattr(lax, name)(v, axes))(x), want)
    np.testing.assert_array_equal(
        primitive_kit.evaluate_reference(getattr(lax, name + "_p"), x, axes=axes), want)
  test_util.check_vmap(lambda v: getattr(lax, name)(v, (1,)), [x], [2])


@pytest.mark.parametrize("name,op", [("reduce_and", "and"), ("reduce_or", "or"),
                                     ("reduce_xor", "xor")])
def test_bitwise_reduction_lowering(name, op):
  text = sj.jit(lambda v: getattr(lax, name)(v, (0,))).lower(rand((3, 2), np.bool_)).as_text()
  assert "stablehlo.reduce" in text and f"stablehlo.{op}" in text
  assert f"{name}[axes=(0,)]" in str(sj.make_jaxpr(lambda v: getattr(lax, name)(v, (0,)))(
      rand((3, 2), np.bool_)))


def test_bitwise_reduction_rejects_floats():
  with pytest.raises(TypeError, match="reduce_or"):
    lax.reduce_or(rand((3,)), (0,))


# ----------------------------------------------------------------------------------------------
# reduce_precision

@pytest.mark.parametrize("bits", [(5, 10), (8, 7), (4, 3), (11, 52), (2, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reduce_precision(bits, dtype):
  x = (rand((64,), dtype) * np.asarray(100, dtype)).astype(dtype)
  want = jlax.reduce_precision(x, *bits)
  check_like_jax(lax.reduce_precision(x, *bits), want)
  check_like_jax(sj.jit(lambda v: lax.reduce_precision(v, *bits))(x), want)
  ref = primitive_kit.evaluate_reference(lax.reduce_precision_p, x, exponent_bits=bits[0],
                                    mantissa_bits=bits[1])
  np.testing.assert_array_equal(ref, np.asarray(want))


def test_reduce_precision_rules():
  x = rand((5,))
  f = lambda v: lax.reduce_precision(v, 8, 23)  # exact for float32: derivatives of identity
  test_util.check_grads(f, [x], order=1)
  test_util.check_vmap(lambda v: lax.reduce_precision(v, 5, 10), [rand((3, 4))], [1])
  assert "stablehlo.reduce_precision" in sj.jit(f).lower(x).as_text()
  assert str(sj.make_jaxpr(f)(x)) == str(jax.make_jaxpr(
      lambda v: jlax.reduce_precision(v, 8, 23))(x))
  with pytest.raises(ValueError, match="exponent_bits"):
    lax.reduce_precision(x, 0, 2)
  with pytest.raises(TypeError, match="reduce_precision"):
    lax.reduce_precision(np.ones(3, np.int32), 5, 2)


# ----------------------------------------------------------------------------------------------
# optimization_barrier

def test_optimization_barrier():
  x = rand((3,))
  f = lambda v: lax.optimization_barrier((v, v + 1.0))  # noqa: E731
  out = sj.jit(f)(x)
  test_util.check_close(out, (x, x + 1))
  assert "stablehlo.optimization_barrier" in sj.jit(f).lower(x).as_text()
  g = lambda v: jjnp_sum(lax.optimization_barrier(v * v))  # noqa: E731
  test_util.check_close(sj.grad(g)(x), 2 * x)
  test_util.check_vmap(lambda v: lax.optimization_barrier([v, 2 * v]), [rand((4, 3))], [1])


def jjnp_sum(x):
  return lax.reduce_sum(x, tuple(range(np.ndim(x))))


# ----------------------------------------------------------------------------------------------
# Precision, dot_general precision, batch_matmul

def test_precision_enum():
  assert [p.name for p in lax.Precision] == [p.name for p in jlax.Precision]
  assert lax.Precision("highest") is lax.Precision.HIGHEST
  assert lax.Precision("bfloat16") is lax.Precision.DEFAULT
  assert repr(lax.Precision.HIGH) == "Precision.HIGH" and str(lax.Precision.HIGH) == "HIGH"
  with pytest.raises(ValueError):
    lax.Precision("foo")


@pytest.mark.parametrize("precision", [None, "highest", lax.Precision.HIGH,
                                       ("default", "highest")])
def test_dot_general_precision(precision):
  x, y = rand((2, 3)), rand((3, 4), seed=1)
  dims = (((1,), (0,)), ((), ()))
  jprecision = precision if not isinstance(precision, lax.Precision) else precision.name.lower()
  f = lambda a, b: lax.dot_general(a, b, dims, precision=precision)  # noqa: E731
  jf = lambda a, b: jlax.dot_general(a, b, dims, precision=jprecision)  # noqa: E731
  assert str(sj.make_jaxpr(f)(x, y)) == str(jax.make_jaxpr(jf)(x, y))
  text = sj.jit(f).lower(x, y).as_text()
  assert ("precision = [" in text) == (precision is not None)
  check_like_jax(f(x, y), jf(x, y))
  check_like_jax(sj.grad(lambda a: jjnp_sum(f(a, y)))(x), jax.grad(lambda a: jf(a, y).sum())(x))
  check_like_jax(sj.vmap(f, (0, None))(rand((5, 2, 3)), y),
                 jax.vmap(jf, (0, None))(rand((5, 2, 3)), y))


def test_dot_general_bad_precision():
  with pytest.raises(ValueError, match="Precision"):
    lax.dot_general(rand((2,)), rand((2,)), (((0,), (0,)), ((), ())), precision="nope")


def test_batch_matmul():
  a, b = rand((4, 2, 3)), rand((4, 3, 5), seed=1)
  check_like_jax(lax.batch_matmul(a, b), jlax.batch_matmul(a, b))
  check_like_jax(lax.batch_matmul(a, b, precision="highest"),
                 jlax.batch_matmul(a, b, precision="highest"))
  with pytest.raises(ValueError, match="same ndim"):
    lax.batch_matmul(a, rand((3, 5)))
  with pytest.raises(ValueError, match="at least 2D"):
    lax.batch_matmul(rand((3,)), rand((3,)))


# ----------------------------------------------------------------------------------------------
# collapse, broadcast_to_rank

def test_collapse_and_broadcast_to_rank():
  x = rand((2, 3, 4, 5))
  for args in [(1, 3), (0,), (1, -1), (2, 2), (0, 4)]:
    check_like_jax(lax.collapse(x, *args), jlax.collapse(x, *args))
  for rank in [2, 4, 6]:
    check_like_jax(lax.broadcast_to_rank(x[0, 0], rank), jlax.broadcast_to_rank(x[0, 0], rank))


# ----------------------------------------------------------------------------------------------
# map and associative_scan

@pytest.mark.slow
@pytest.mark.parametrize("batch_size", [None, 1, 2, 3, 7, 10])
def test_map(batch_size):
  xs = {"a": rand((7, 3)), "b": rand((7,), seed=1)}
  f = lambda d: (d["a"] * d["b"], jjnp_sum(d["a"]))  # noqa: E731
  jf = lambda d: (d["a"] * d["b"], d["a"].sum())  # noqa: E731
  want = jlax.map(jf, xs, batch_size=batch_size)
  check_like_jax(lax.map(f, xs, batch_size=batch_size), want)
  check_like_jax(sj.jit(lambda v: lax.map(f, v, batch_size=batch_size))(xs), want)
  g = sj.grad(lambda v: jjnp_sum(lax.map(lambda r: r * r, v, batch_size=batch_size)))
  test_util.check_close(g(xs["a"]), 2 * xs["a"])


def test_map_is_a_scan():
  assert "scan[" in str(sj.make_jaxpr(lambda v: lax.map(lambda r: r + 1.0, v))(rand((4, 2))))


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan(n, reverse):
  x = rand((n, 3))
  check_like_jax(lax.associative_scan(lax.add, x, reverse=reverse),
                 jlax.associative_scan(jlax.add, x, reverse=reverse))
  check_like_jax(lax.associative_scan(lax.max, x, reverse=reverse, axis=0),
                 jlax.associative_scan(jlax.max, x, reverse=reverse, axis=0))
  y = rand((3, n), seed=2)
  check_like_jax(sj.jit(lambda v: lax.associative_scan(lax.mul, v, axis=1))(y),
                 jlax.associative_scan(jlax.mul, y, axis=1))


@pytest.mark.slow
def test_associative_scan_pytree_and_grad():
  # Linear recurrence h_t = a_t * h_{t-1} + b_t as pairs: an associative combination.
  def combine(p, q):
    return q[0] * p[0], q[0] * p[1] + q[1]
  a, b = rand((6,)), rand((6,), seed=1)
  check_like_jax(lax.associative_scan(combine, (a, b)), jlax.associative_scan(combine, (a, b)))
  f = lambda v: jjnp_sum(lax.associative_scan(lax.add, v))  # noqa: E731
  test_util.check_close(sj.grad(f)(a), jax.grad(lambda v: jlax.associative_scan(
      jlax.add, v).sum())(a))
  test_util.check_vmap(lambda v: lax.associative_scan(lax.add, v), [rand((4, 5))], [0])
  with pytest.raises(ValueError, match="same first dimension"):
    lax.associative_scan(combine, (a, b[:3]))


# ----------------------------------------------------------------------------------------------
# reduce over the known monoids

@pytest.mark.parametrize("op,init", [("add", 0.0), ("mul", 1.0), ("max", -np.inf),
                                     ("min", np.inf), ("add", 2.0), ("max", 0.5)])
def test_reduce_monoids(op, init):
  x = rand((3, 4))
  init = np.float32(init)
  want = jlax.reduce(x, init, getattr(jlax, op), (1,))
  check_like_jax(lax.reduce(x, init, getattr(lax, op), (1,)), want)
  check_like_jax(sj.jit(lambda v: lax.reduce(v, init, getattr(lax, op), (1,)))(x), want)
  eqns = sj.make_jaxpr(lambda v: lax.reduce(v, init, getattr(lax, op), (1,)))(x).jaxpr.eqns
  jax_eqns = jax.make_jaxpr(lambda v: jlax.reduce(v, init, getattr(jlax, op), (1,)))(x).eqns
  # (a monoid's reduction from its identity; the general reduce from another initial value)
  assert eqns[0].primitive.name == jax_eqns[0].primitive.name


def test_reduce_bitwise_and_errors():
  b, i = rand((3, 4), np.bool_), rand((3, 4), np.int32)
  check_like_jax(lax.reduce(b, True, lax.bitwise_or, (0,)),
                 jlax.reduce(b, True, jlax.bitwise_or, (0,)))
  check_like_jax(lax.reduce(i, np.int32(-1), lax.bitwise_and, (0, 1)),
                 jlax.reduce(i, np.int32(-1), jlax.bitwise_and, (0, 1)))
  check_like_jax(lax.reduce(i, 0, lambda a, c: a - c, (0,)),
                 jlax.reduce(i, 0, lambda a, c: a - c, (0,)))
  with pytest.raises(TypeError):
    lax.reduce((i, i), (0, 0), lax.add, (0,))
