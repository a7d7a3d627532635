"""Windowed reductions against JAX: values, dtypes, jit, vmap, grad, finite differences,
references and lowering."""
import jax
import numpy as np
import pytest

import stablejax as sj
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

F32 = np.float32
INIT = {"sum": 0., "max": -np.inf, "min": np.inf}
JAX_OP = {"sum": jax.lax.add, "max": jax.lax.max, "min": jax.lax.min}

# (window_dimensions, window_strides, padding, base_dilation, window_dilation)
WINDOWS = {
    "pool_same": ((1, 3, 2), (1, 2, 2), "SAME", None, None),
    "valid": ((1, 3, 3), (1, 1, 1), "VALID", None, None),
    "pairs": ((2, 2, 1), (1, 1, 1), ((1, 0), (0, 1), (0, 0)), None, None),
    "dilated": ((1, 2, 3), (1, 1, 2), ((0, 0), (1, 2), (0, 1)), (1, 2, 1), (1, 1, 2)),
}


def _lax_fn(kind, window):
  return lambda x: getattr(lax, f"reduce_window_{kind}")(x, *window)


def _jax_fn(kind, window):
  return lambda x: jax.lax.reduce_window(x, INIT[kind], JAX_OP[kind], *window)


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("window", WINDOWS)
def test_values(kind, window, rng):
  x = rng.standard_normal((2, 7, 6)).astype(F32)
  f, g = _lax_fn(kind, WINDOWS[window]), _jax_fn(kind, WINDOWS[window])
  expected = np.asarray(g(x))
  test_util.check_close(f(x), expected)
  test_util.check_close(sj.jit(f)(x), expected)
  test_util.check_close(sj.vmap(f)(x[None]), expected[None])
  (eqn,) = sj.make_jaxpr(f)(x).jaxpr.eqns
  test_util.check_close(primitive_kit.evaluate_reference(eqn.primitive, x, **eqn.params), expected)


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("window", ["pool_same", "valid", "pairs"])
def test_grads(kind, window, rng):
  x = rng.standard_normal((2, 5, 4)).astype(F32)
  f, g = _lax_fn(kind, WINDOWS[window]), _jax_fn(kind, WINDOWS[window])
  w = rng.standard_normal(np.shape(g(x))).astype(F32)
  expected = jax.grad(lambda x: (g(x) * w).sum())(x)
  test_util.check_close(sj.grad(lambda x: (f(x) * w).sum())(x), expected)
  test_util.check_close(sj.jit(sj.grad(lambda x: (f(x) * w).sum()))(x), expected)
  test_util.check_close(sj.vmap(sj.grad(lambda x: (f(x) * w).sum()))(x[None]), expected[None])
  with test_util.x64():
    test_util.check_grads(f, (x.astype(np.float64),), order=1)


def test_sum_grad_with_base_dilation(rng):
  x = rng.standard_normal((2, 7, 6)).astype(F32)
  f, g = _lax_fn("sum", WINDOWS["dilated"]), _jax_fn("sum", WINDOWS["dilated"])
  w = rng.standard_normal(np.shape(g(x))).astype(F32)
  test_util.check_close(sj.grad(lambda x: (f(x) * w).sum())(x),
                        jax.grad(lambda x: (g(x) * w).sum())(x))


def _identity(kind, dtype):
  if kind == "sum":
    return np.zeros((), dtype)
  big = np.inf if dtype.kind == "f" else np.iinfo(dtype).max
  return np.asarray(-big if kind == "max" and dtype.kind != "u" else
                    0 if kind == "max" else big, dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.uint8])
def test_dtypes(dtype, rng):
  x = test_util.rand(rng, (4, 6), dtype)
  for kind in ("sum", "max", "min"):
    got = getattr(lax, f"reduce_window_{kind}")(x, (2, 2), (2, 1), "VALID")
    want = np.asarray(jax.lax.reduce_window(x, _identity(kind, np.dtype(dtype)), JAX_OP[kind],
                                            (2, 2), (2, 1), "VALID"))
    assert np.asarray(got).dtype == want.dtype
    test_util.check_close(got, want)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_complex_max_min(kind, rng):
  """Complex operands order by real part, then imaginary (JAX's lax.max/min); the window's
  identity is -inf/+inf (it was an np.iinfo of the complex dtype, a ValueError)."""
  x = (rng.integers(0, 3, (4, 5)) + 1j * rng.integers(0, 3, (4, 5))).astype(np.complex64)
  init = np.complex64(INIT[kind])
  for padding in ("VALID", "SAME"):
    want = np.asarray(jax.lax.reduce_window(x, init, JAX_OP[kind], (2, 2), (1, 1), padding))
    got = lax.reduce_window(x, init, getattr(lax, kind), (2, 2), (1, 1), padding)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        sj.jit(getattr(lax, f"reduce_window_{kind}"), static_argnums=(1, 2, 3))(
            x, (2, 2), (1, 1), padding), want)


def test_reduce_window_and_pads(rng):
  x = rng.standard_normal((5, 6)).astype(F32)
  test_util.check_close(lax.reduce_window(x, 0., lax.add, (2, 3), (1, 2), "SAME"),
                        jax.lax.reduce_window(x, 0., jax.lax.add, (2, 3), (1, 2), "SAME"))
  test_util.check_close(lax.reduce_window(x, 1., lax.max, (2, 3), (1, 2), "VALID"),
                        jax.lax.reduce_window(x, 1., jax.lax.max, (2, 3), (1, 2), "VALID"))
  for pad in ("SAME", "SAME_LOWER", "VALID"):
    assert lax.padtype_to_pads((7, 6), (3, 2), (2, 4), pad) == \
        jax.lax.padtype_to_pads((7, 6), (3, 2), (2, 4), pad)
  test_util.check_close(lax.reduce_window(x, 0., lax.mul, (2, 2), (1, 1), "VALID"),
                        jax.lax.reduce_window(x, 0., jax.lax.mul, (2, 2), (1, 1), "VALID"))
  with pytest.raises(TypeError, match="window_strides"):
    lax.reduce_window_sum(x, (2, 2), (1,), "VALID")


def test_avg_pool_like_stax(rng):
  x = rng.standard_normal((2, 8, 8, 3)).astype(F32)
  pool = lambda L, x: L.reduce_window(x, 0., L.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
  test_util.check_close(sj.jit(lambda x: pool(lax, x))(x), pool(jax.lax, x))


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
def test_lowering(kind):
  text = sj.jit(_lax_fn(kind, WINDOWS["pool_same"])).lower(np.zeros((2, 7, 6), F32)).as_text()
  assert "stablehlo.reduce_window" in text
  assert {"sum": "stablehlo.add", "max": "stablehlo.maximum",
          "min": "stablehlo.minimum"}[kind] in text
