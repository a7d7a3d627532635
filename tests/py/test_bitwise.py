"""Bitwise primitives (xor, shifts, population_count, clz, bitcast_convert_type) and the numpy
functions over them: values against numpy references and JAX (XLA's out-of-range shifts
included), dtypes, broadcasting, vmap, jit, zero derivatives, printed jaxprs and lowering."""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jax_np  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402
from stablejax import lax  # noqa: E402
from stablejax.lax import primitive_kit  # noqa: E402

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]
BINARY = ["bitwise_xor", "shift_left", "shift_right_logical", "shift_right_arithmetic"]
UNARY = ["population_count", "clz"]
PRIM = {"bitwise_xor": lax.xor_p, "shift_left": lax.shift_left_p,
        "shift_right_logical": lax.shift_right_logical_p,
        "shift_right_arithmetic": lax.shift_right_arithmetic_p,
        "population_count": lax.population_count_p, "clz": lax.clz_p}


def _ints(rng, dtype, shape):
  info = np.iinfo(dtype)
  return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def _shifts(rng, dtype, shape):
  """Shift amounts in range, at and past the bit width, and negative (for signed types)."""
  bits = np.iinfo(dtype).bits
  lo = -3 if np.iinfo(dtype).min < 0 else 0
  return rng.integers(lo, bits + 3, shape).astype(dtype)


def _check(out, expected):
  out, expected = np.asarray(out), np.asarray(expected)
  assert out.dtype == expected.dtype and out.shape == expected.shape
  np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", BINARY)
def test_binary_against_jax_and_reference(name, dtype, rng):
  x = _ints(rng, dtype, (4, 9))
  y = _shifts(rng, dtype, (4, 9)) if name.startswith("shift") else _ints(rng, dtype, (4, 9))
  expected = getattr(jax.lax, name)(x, y)
  _check(getattr(lax, name)(x, y), expected)
  _check(sj.jit(getattr(lax, name))(x, y), expected)
  _check(primitive_kit.evaluate_reference(PRIM[name], x, y), expected)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_against_jax_and_reference(name, dtype, rng):
  x = np.concatenate([_ints(rng, dtype, (20,)), np.array([0, 1, np.iinfo(dtype).max,
                                                          np.iinfo(dtype).min], dtype)])
  expected = getattr(jax.lax, name)(x)
  _check(getattr(lax, name)(x), expected)
  _check(primitive_kit.evaluate_reference(PRIM[name], x), expected)


def test_xor_of_booleans_and_scalar_broadcast():
  x = np.array([True, False, True])
  _check(lax.bitwise_xor(x, np.array([True, True, False])), np.array([False, True, True]))
  _check(lax.bitwise_xor(np.uint32([1, 2, 3]), np.uint32(7)), np.uint32([6, 5, 4]))
  _check(lax.shift_left(np.int32(1), np.int32([0, 31, 32])), np.int32([1, -2 ** 31, 0]))


@pytest.mark.parametrize("src,dst,shape", [
    (np.float32, np.uint32, (3, 2)), (np.int32, np.float32, (5,)), (np.uint32, np.uint8, (3,)),
    (np.uint8, np.uint32, (2, 4)), (np.float32, np.int16, (2, 3)), (np.int8, np.uint8, ()),
    (np.uint16, np.float16, (4,)),
])
def test_bitcast_convert_type(src, dst, shape, rng):
  x = _ints(rng, np.uint8, shape + (np.dtype(src).itemsize,)).view(src).reshape(shape)
  expected = jax.lax.bitcast_convert_type(x, dst)
  _check(lax.bitcast_convert_type(x, dst), expected)
  _check(sj.jit(lambda x: lax.bitcast_convert_type(x, dst))(x), expected)
  _check(primitive_kit.evaluate_reference(lax.bitcast_convert_type_p, x, new_dtype=np.dtype(dst)),
         expected)


@pytest.mark.parametrize("fn,exc,match", [
    (lambda: lax.shift_left(np.float32(1), np.float32(1)), TypeError, "shift_left"),
    (lambda: lax.shift_left(np.int32(1), np.uint32(1)), TypeError, "same dtypes"),
    (lambda: lax.bitwise_xor(np.float32(1), np.float32(1)), TypeError, "xor"),
    (lambda: lax.clz(np.float32(1)), TypeError, "clz"),
    (lambda: lax.bitcast_convert_type(np.array([True]), np.uint8), TypeError, "bool"),
    (lambda: lax.bitcast_convert_type(np.uint8([1, 2, 3]), np.uint32), ValueError, "3 \\* 8"),
])
def test_errors(fn, exc, match):
  with pytest.raises(exc, match=match):
    fn()


def test_jaxprs_match_jax():
  def f(x, y):
    return lax.bitcast_convert_type(
        lax.shift_right_logical(lax.bitwise_xor(x, y), lax.population_count(y)), np.float32)

  def jf(x, y):
    return jax.lax.bitcast_convert_type(
        jax.lax.shift_right_logical(jax.lax.bitwise_xor(x, y), jax.lax.population_count(y)),
        np.float32)
  x = np.uint32([1, 2])
  assert str(sj.make_jaxpr(f)(x, x)) == str(jax.make_jaxpr(jf)(x, x))


@pytest.mark.parametrize("name,op", [
    ("bitwise_xor", "stablehlo.xor"), ("shift_left", "stablehlo.shift_left"),
    ("shift_right_logical", "stablehlo.shift_right_logical"),
    ("shift_right_arithmetic", "stablehlo.shift_right_arithmetic"),
    ("population_count", "stablehlo.popcnt"), ("clz", "stablehlo.count_leading_zeros"),
])
def test_lowering(name, op):
  x = np.int32([1, 2, 3])
  fn = getattr(lax, name)
  text = sj.jit(fn).lower(*([x] * (1 if name in UNARY else 2))).as_text()
  assert op in text


def test_bitcast_lowering():
  text = sj.jit(lambda x: lax.bitcast_convert_type(x, np.uint8)).lower(np.float32([1.])).as_text()
  assert "stablehlo.bitcast_convert" in text and "tensor<1x4xui8>" in text


def test_vmap(rng):
  x, y = _ints(rng, np.int32, (5, 3)), _shifts(rng, np.int32, (5,))
  _check(sj.vmap(lax.shift_right_arithmetic, in_axes=(1, None))(x, y),
         jax.vmap(jax.lax.shift_right_arithmetic, in_axes=(1, None))(x, y))
  _check(sj.vmap(lax.clz)(x), jax.vmap(jax.lax.clz)(x))
  # a batch axis in the trailing position of a widening bitcast moves to the front
  u8 = _ints(rng, np.uint8, (4, 2))
  _check(sj.vmap(lambda v: lax.bitcast_convert_type(v, np.uint32))(u8.reshape(2, 4)),
         jax.vmap(lambda v: jax.lax.bitcast_convert_type(v, np.uint32))(u8.reshape(2, 4)))
  _check(sj.vmap(lambda v: lax.bitcast_convert_type(v, np.uint16), in_axes=1)(u8.T),
         u8.view(np.uint16).reshape(4))  # (JAX's own batching rule fails here)
  _check(sj.vmap(lambda v: lax.bitcast_convert_type(v, np.uint8), in_axes=1)(x.view(np.uint32)),
         jax.vmap(lambda v: jax.lax.bitcast_convert_type(v, np.uint8), in_axes=1)(
             x.view(np.uint32)))


def test_zero_derivatives():
  def f(x):
    return lax.convert_element_type(lax.bitcast_convert_type(x, np.int32), np.float32) * 1e-9 * x

  def jf(x):
    return jax.lax.convert_element_type(jax.lax.bitcast_convert_type(x, np.int32),
                                        np.float32) * 1e-9 * x
  x = np.float32(1.5)
  np.testing.assert_allclose(sj.grad(f)(x), jax.grad(jf)(x), rtol=1e-6)
  _, t = sj.jvp(lambda x: lax.bitcast_convert_type(x, np.uint32), (x,), (np.float32(1.),))
  _, jt = jax.jvp(lambda x: jax.lax.bitcast_convert_type(x, np.uint32), (x,), (np.float32(1.),))
  assert np.asarray(t).dtype == np.asarray(jt).dtype  # float0: an integer output's tangent


# ----------------------------------------------------------------------------------------------
# numpy functions

@pytest.mark.parametrize("name", ["bitwise_xor", "logical_xor", "left_shift", "right_shift",
                                  "bitwise_left_shift", "bitwise_right_shift"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_numpy_binary(name, dtype, rng):
  if dtype == np.bool_:
    x, y = rng.random((3, 4)) < 0.5, rng.random((4,)) < 0.5
  else:
    x = _ints(rng, dtype, (3, 4))
    y = rng.integers(0, np.iinfo(dtype).bits, (4,)).astype(dtype)
  for a, b in [(x, y), (x, 2), (3, y)]:
    _check(getattr(jnp, name)(a, b), getattr(jax_np, name)(a, b))


def test_numpy_operators(rng):
  x = _ints(rng, np.int32, (3, 4))
  sx, jx = jnp.asarray(x), jax_np.asarray(x)
  for op in [lambda a: a ^ 5, lambda a: 5 ^ a, lambda a: a << 3, lambda a: a >> 2,
             lambda a: 1 << (a & 7), lambda a: ~a, lambda a: a ^ a[0]]:
    _check(op(sx), op(jx))
    _check(sj.jit(op)(x), op(jx))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_bitwise_count_and_invert(dtype, rng):
  x = rng.random((6,)) < 0.5 if dtype == np.bool_ else _ints(rng, dtype, (6,))
  _check(jnp.bitwise_count(x), jax_np.bitwise_count(x))
  _check(jnp.invert(x), jax_np.invert(x))


def test_numpy_xor_stages_one_xor():
  jaxpr = str(sj.make_jaxpr(jnp.bitwise_xor)(np.int32(1), np.int32(2)))
  assert "xor" in jaxpr and " or " not in jaxpr and " and " not in jaxpr


def test_numpy_weak_types():
  for name in ["bitwise_xor", "left_shift", "right_shift"]:
    out = sj.jit(lambda: getattr(jnp, name)(6, 1))()
    expected = jax.jit(lambda: getattr(jax_np, name)(6, 1))()
    assert out.dtype == expected.dtype and out.aval.weak_type == expected.weak_type
