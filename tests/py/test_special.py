"""Special functions and the elementwise long tail of lax: values against JAX and the numpy
references, under jit and vmap, derivatives against JAX and finite differences, and the ops they
lower to."""
import jax
import jax.scipy.special
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

RNG = np.random.default_rng(0)


def _uniform(lo, hi, shape=(3, 5), dtype=np.float32):
  return RNG.uniform(lo, hi, shape).astype(dtype)


# name -> (operand domains, the op in the lowered module)
UNARY = {
    "erf": ((-3, 3), "chlo.erf "), "erfc": ((-3, 3), "chlo.erfc"),
    "erf_inv": ((-0.95, 0.95), "chlo.erf_inv"), "lgamma": ((0.1, 8), "chlo.lgamma"),
    "digamma": ((0.2, 8), "chlo.digamma"), "bessel_i0e": ((-40, 40), "stablehlo.while"),
    "bessel_i1e": ((-40, 40), "chlo.bessel_i1e"), "asin": ((-0.9, 0.9), "chlo.asin"),
    "acos": ((-0.9, 0.9), "chlo.acos"), "atan": ((-3, 3), "chlo.atan"),
    "sinh": ((-3, 3), "chlo.sinh"), "cosh": ((-3, 3), "chlo.cosh"),
    "asinh": ((-3, 3), "chlo.asinh"), "acosh": ((1.1, 5), "chlo.acosh"),
    "atanh": ((-0.9, 0.9), "chlo.atanh"), "cbrt": ((0.1, 5), "stablehlo.cbrt"),
    "exp2": ((-3, 3), "stablehlo.exponential"), "square": ((-3, 3), "chlo.square"),
}
BINARY = {
    "igamma": (((0.2, 8), (0.01, 15)), "stablehlo.while"),
    "igammac": (((0.2, 8), (0.01, 15)), "stablehlo.while"),
    "igamma_grad_a": (((0.2, 8), (0.01, 15)), "stablehlo.while"),
    "polygamma": (((1, 1), (0.5, 5)), "chlo.polygamma"),
    "zeta": (((1.5, 4), (0.5, 3)), "chlo.zeta"),
    "atan2": (((-3, 3), (-3, 3)), "stablehlo.atan2"),
    "nextafter": (((-3, 3), (-3, 3)), "chlo.next_after"),
}
ALL = {name: (domains if name in BINARY else (domains,), op)
       for name, (domains, op) in {**UNARY, **BINARY}.items()}


def _args(name, dtype=np.float32):
  return [_uniform(lo, hi, dtype=dtype) for lo, hi in ALL[name][0]]


@pytest.mark.parametrize("name", sorted(ALL))
def test_values_match_jax_and_reference(name):
  args = _args(name)
  out = getattr(lax, name)(*args)
  expected = getattr(jax.lax, name)(*args)
  assert out.dtype == expected.dtype and out.shape == expected.shape
  tol = 1e-3 if name == "igamma_grad_a" else 2e-5
  test_util.check_close(out, np.asarray(expected), rtol=tol, atol=tol)
  prim = getattr(lax, f"{name}_p")
  reference = primitive_kit.evaluate_reference(prim, *args)
  test_util.check_close(out, reference, rtol=1e-3 if name == "igamma_grad_a" else 1e-4,
                        atol=1e-4)


@pytest.mark.parametrize("name", sorted(ALL))
def test_jit_vmap_and_lowering(name):
  args = _args(name)
  fn = getattr(lax, name)
  eager = fn(*args)
  test_util.check_close(sj.jit(fn)(*args), eager)
  test_util.check_close(sj.vmap(fn)(*args), eager)
  test_util.check_close(sj.vmap(fn, in_axes=1, out_axes=1)(*args), eager)
  assert ALL[name][1] in sj.jit(fn).lower(*args).as_text()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["igamma", "igammac", "bessel_i0e"])
def test_float64_matches_jax(name):
  with test_util.x64():
    args = _args(name, np.float64)
    out = getattr(lax, name)(*args)
    with jax.enable_x64(True):
      expected = np.asarray(getattr(jax.lax, name)(*args))
  assert out.dtype == np.float64
  test_util.check_close(out, expected, rtol=1e-12, atol=1e-13)


DIFFERENTIABLE_UNARY = sorted(set(UNARY) - {"bessel_i0e", "bessel_i1e"})


@pytest.mark.parametrize("name", DIFFERENTIABLE_UNARY + ["bessel_i0e", "bessel_i1e"])
def test_grad_matches_jax(name):
  (x,) = _args(name)
  fn = lambda v, f=getattr(lax, name): f(v).sum()
  jfn = lambda v, f=getattr(jax.lax, name): f(v).sum()
  test_util.check_close(sj.grad(fn)(x), np.asarray(jax.grad(jfn)(x)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["erf", "erfc", "erf_inv", "lgamma", "digamma", "asin",
                                  "acosh", "atanh", "cbrt", "exp2", "bessel_i1e"])
def test_check_grads_unary(name):
  (x,) = _args(name, np.float64)
  with test_util.x64():
    test_util.check_grads(getattr(lax, name), (x,), order=1, eps=1e-6)


@pytest.mark.parametrize("name", ["igamma", "igammac", "atan2"])
def test_check_grads_binary(name):
  args = _args(name, np.float64)
  with test_util.x64():
    test_util.check_grads(getattr(lax, name), args, order=1, eps=1e-6, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_grad_in_a_matches_jax(name):
  a, x = _args(name)
  out = sj.grad(lambda a: getattr(lax, name)(a, x).sum())(a)
  expected = jax.grad(lambda a: getattr(jax.lax, name)(a, x).sum())(a)
  test_util.check_close(out, np.asarray(expected), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_random_gamma_grad_matches_jax():
  a, x = _uniform(0.2, 8), _uniform(0.01, 15)
  test_util.check_close(lax.random_gamma_grad(a, x), np.asarray(jax.lax.random_gamma_grad(a, x)),
                        rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_igamma_edge_values_match_jax():
  a = np.array([0., 1., 2., -1., np.nan, 1., 3., 0.5], np.float32)
  x = np.array([0., 0., np.inf, 1., 1., -1., 0., 1e-3], np.float32)
  for name in ("igamma", "igammac"):
    test_util.check_close(getattr(lax, name)(a, x), np.asarray(getattr(jax.lax, name)(a, x)))


@pytest.mark.slow
def test_float16_is_computed_in_float32():
  a, x = _uniform(0.5, 4).astype(np.float16), _uniform(0.1, 4).astype(np.float16)
  out = lax.igamma(a, x)
  assert out.dtype == np.float16
  test_util.check_close(out, np.asarray(jax.lax.igamma(a, x)), rtol=2e-3, atol=2e-3)
  test_util.check_close(lax.bessel_i0e(x), np.asarray(jax.lax.bessel_i0e(x)), rtol=2e-3)


def test_polygamma_and_zeta_gradients():
  m, x = np.float32(1), _uniform(0.5, 4)
  test_util.check_close(sj.grad(lambda v: lax.polygamma(m, v).sum())(x),
                        np.asarray(jax.grad(lambda v: jax.lax.polygamma(m, v).sum())(x)),
                        rtol=1e-4)
  with pytest.raises(ValueError, match="polygamma gradient with respect to m"):
    sj.grad(lambda m: lax.polygamma(m, x).sum())(m)
  with pytest.raises(NotImplementedError, match="nextafter"):
    sj.grad(lambda v: lax.nextafter(v, v).sum())(x)


def test_dtype_errors_name_the_function():
  with pytest.raises(TypeError, match="erf does not accept dtype int32"):
    lax.erf(np.arange(3, dtype=np.int32))
  with pytest.raises(TypeError, match="cbrt does not accept dtype complex64"):
    lax.cbrt(np.ones(3, np.complex64))
  with pytest.raises(TypeError, match="complex does not accept dtype int32"):
    lax.complex(np.ones(3, np.int32), np.ones(3, np.int32))


# ----------------------------------------------------------------------------------------------
# Complex numbers

Z = (RNG.normal(size=(4,)) + 1j * RNG.normal(size=(4,))).astype(np.complex64)


@pytest.mark.parametrize("name", ["real", "imag", "conj"])
def test_complex_parts_match_jax(name):
  out = getattr(lax, name)(Z)
  expected = getattr(jax.lax, name)(Z)
  assert out.dtype == expected.dtype
  test_util.check_close(out, np.asarray(expected))
  test_util.check_close(sj.vmap(getattr(lax, name))(Z), np.asarray(expected))


def test_complex_and_conj_of_real():
  x, y = _uniform(-1, 1, (4,)), _uniform(-1, 1, (4,))
  out = lax.complex(x, y)
  assert out.dtype == np.complex64
  test_util.check_close(out, np.asarray(jax.lax.complex(x, y)))
  test_util.check_close(lax.conj(x), np.asarray(jax.lax.conj(x)))
  inf = lax.complex(np.float32(np.inf), np.float32(0))
  assert np.asarray(inf) == np.complex64(np.inf)
  assert "stablehlo.complex" in sj.jit(lax.complex).lower(x, y).as_text()


def test_linear_complex_ops_transpose():
  x, y = _uniform(-1, 1, (4,)), _uniform(-1, 1, (4,))
  f = lambda x, y: jnp.sum(lax.real(lax.conj(lax.complex(x, y)) * lax.complex(y, x)))
  jf = lambda x, y: jjnp.sum(jax.lax.real(jax.lax.conj(jax.lax.complex(x, y))
                                          * jax.lax.complex(y, x)))
  for argnum in (0, 1):
    test_util.check_close(sj.grad(f, argnum)(x, y), np.asarray(jax.grad(jf, argnum)(x, y)))
  g = lambda z: jnp.sum(lax.imag(z) * 2. + lax.real(z))
  _, vjp = sj.vjp(g, Z)
  test_util.check_close(vjp(np.float32(1))[0], np.full(4, 1 - 2j, np.complex64))


def test_abs_of_complex_is_differentiable():
  f = lambda z: jnp.sum(lax.abs(z))
  out = sj.grad(f)(Z)
  expected = jax.grad(lambda z: jjnp.sum(jax.lax.abs(z)))(Z)
  test_util.check_close(out, np.asarray(expected))
  x, y = _uniform(0.5, 1, (4,)), _uniform(0.5, 1, (4,))
  with test_util.x64():
    test_util.check_grads(lambda x, y: lax.abs(lax.complex(x, y)),
                          (x.astype(np.float64), y.astype(np.float64)), order=1, eps=1e-6)


def test_is_finite():
  x = np.array([1., np.inf, -np.inf, np.nan], np.float32)
  np.testing.assert_array_equal(lax.is_finite(x), [True, False, False, False])
  assert sj.grad(lambda v: jnp.sum(jnp.where(lax.is_finite(v), v, 0.)))(x)[0] == 1
  assert "stablehlo.is_finite" in sj.jit(lax.is_finite).lower(x).as_text()


def test_square_of_integers_is_a_multiply():
  x = np.arange(4, dtype=np.int32)
  np.testing.assert_array_equal(lax.square(x), x * x)
  text = sj.jit(lax.square).lower(x).as_text()
  assert "stablehlo.multiply" in text and "chlo.square" not in text
  assert str(sj.make_jaxpr(lax.square)(x)) == str(jax.make_jaxpr(jax.lax.square)(x))


# ----------------------------------------------------------------------------------------------
# regularized_incomplete_beta (lax.betainc) and mulhi

def _betainc_args(dtype=np.float32):
  return [_uniform(0.2, 6, dtype=dtype), _uniform(0.2, 6, dtype=dtype),
          _uniform(0.01, 0.99, dtype=dtype)]


@pytest.mark.slow
def test_betainc_matches_jax_and_reference():
  args = _betainc_args()
  out = lax.betainc(*args)
  expected = jax.lax.betainc(*args)
  assert out.dtype == expected.dtype and out.shape == expected.shape
  test_util.check_close(out, np.asarray(expected), rtol=2e-5, atol=2e-5)
  reference = primitive_kit.evaluate_reference(lax.regularized_incomplete_beta_p, *args)
  test_util.check_close(out, reference, rtol=1e-4, atol=1e-5)
  test_util.check_close(sj.jit(lax.betainc)(*args), out)
  test_util.check_close(sj.vmap(lax.betainc, in_axes=(0, None, 0))(args[0], args[1][0], args[2]),
                        jax.vmap(jax.lax.betainc, in_axes=(0, None, 0))(args[0], args[1][0],
                                                                        args[2]), rtol=2e-5)
  assert "stablehlo.while" in sj.jit(lax.betainc).lower(*args).as_text()


def test_betainc_edge_values_and_dtypes():
  x = np.array([0., 1., -1., 2., np.nan, 0.5], np.float32)
  ones = np.ones_like(x)
  for a, b in [(0 * ones, ones), (ones, 0 * ones), (ones * np.inf, ones), (ones, ones * 2)]:
    test_util.check_close(lax.betainc(a, b, x), np.asarray(jax.lax.betainc(a, b, x)))
  half = [np.float16(2), np.float16(3), np.float16(0.3)]
  assert lax.betainc(*half).dtype == np.float16
  with pytest.raises(TypeError, match="regularized_incomplete_beta"):
    lax.betainc(np.int32(1), np.int32(2), np.int32(0))
  with pytest.raises(TypeError, match="same dtypes"):
    lax.betainc(np.float32(1), np.float32(2), np.float16(0.5))


def test_betainc_gradient_in_x():
  a, b, x = _betainc_args()
  f = lambda x: jnp.sum(lax.betainc(a, b, x))
  jf = lambda x: jjnp.sum(jax.lax.betainc(a, b, x))
  test_util.check_close(sj.grad(f)(x), np.asarray(jax.grad(jf)(x)), rtol=1e-4, atol=1e-5)
  test_util.check_grads(lambda x: lax.betainc(np.float32(2.5), np.float32(1.5), x),
                        (np.float32(0.4),), order=1, eps=1e-3, rtol=2e-2, atol=2e-2)
  with pytest.raises(ValueError, match="gradient with respect to a and b"):
    sj.grad(lambda a: lax.betainc(a, np.float32(2), np.float32(0.5)))(np.float32(1))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64,
                                   np.uint64])
def test_mulhi_matches_jax_and_reference(dtype):
  info = np.iinfo(dtype)
  x, y = (RNG.integers(info.min, info.max, 16, dtype=dtype, endpoint=True) for _ in range(2))
  with test_util.x64(), jax.enable_x64(True):
    out = lax.mulhi(x, y)
    expected = np.asarray(jax.lax.mulhi(x, y))
    reference = primitive_kit.evaluate_reference(lax.mulhi_p, x, y)
  assert out.dtype == expected.dtype
  np.testing.assert_array_equal(np.asarray(out), expected)
  np.testing.assert_array_equal(reference, expected)


def test_mulhi_jit_vmap_lowering_and_errors():
  x = np.array([7, -3, 2**30, -2**31], np.int32)
  y = np.array([2**31 - 1, 2**30, 8, -2**31], np.int32)
  expected = np.asarray(jax.lax.mulhi(x, y))
  np.testing.assert_array_equal(np.asarray(sj.jit(lax.mulhi)(x, y)), expected)
  np.testing.assert_array_equal(np.asarray(sj.vmap(lax.mulhi, in_axes=(0, None))(x, y[1])),
                                np.asarray(jax.vmap(jax.lax.mulhi, in_axes=(0, None))(x, y[1])))
  assert "chlo.mulhi" in sj.jit(lax.mulhi).lower(x, y).as_text()
  with pytest.raises(TypeError, match="mulhi"):
    lax.mulhi(np.float32(1), np.float32(2))
  assert sj.grad(lambda f: lax.convert_element_type(
      lax.mulhi(lax.convert_element_type(f, np.int32), 3), np.float32))(np.float32(2.)) == 0


@pytest.mark.parametrize("name,args", [
    ("xlogy", (0.5, 0.7)), ("xlog1py", (0.5, 0.7)), ("entr", (0.5,)), ("rel_entr", (0.5, 0.7)),
    ("kl_div", (0.5, 0.7)), ("logit", (0.5,)), ("loggamma", (0.5,)), ("factorial", (0.5,)),
    ("comb", (2.0, 0.5)), ("boxcox", (0.5, 0.7)), ("boxcox1p", (0.5, 0.7)), ("poch", (0.5, 0.7))])
def test_python_scalars_give_weakly_typed_results_as_jax(name, args):
  got, want = getattr(sj.scipy.special, name)(*args), getattr(jax.scipy.special, name)(*args)
  assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
