"""The scipy.special and nn names added for issue 33 (bernoulli, bessel_jn, fresnel, hyp1f1,
hyp2f1, owens_t, sici, sph_harm_y, wofz; scaled_matmul, scaled_dot_general, get_scaled_dot_general_config) against
JAX 0.10.2 (values, dtypes, gradients, errors) and scipy."""
import jax
import jax.nn as jnn
import jax.scipy.special as jspecial
import numpy as np
import pytest
import scipy.special as sps

import stablejax as sj
import stablejax.scipy.special as special
from stablejax import test_util


def _same(out, expected, rtol=2e-6, atol=1e-7):
  """Same dtypes and shapes as JAX's, values to float32 rounding (nan where JAX has nan)."""
  outs, exps = jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(expected)
  assert len(outs) == len(exps)
  for o, e in zip(outs, exps):
    o, e = np.asarray(o), np.asarray(e)
    assert o.dtype == e.dtype and o.shape == e.shape
    np.testing.assert_allclose(o, e, rtol=rtol, atol=atol, equal_nan=True)


SICI_X = np.array([0., 0.3, -1.5, 3.9, 4.5, -7.9, 9., 30., 2e9, np.inf, -np.inf, np.nan],
                  np.float32)
FRESNEL_X = np.array([0., 0.3, -1.5, 1.6, 2.5, -7.9, 9., 30., 4e4, np.inf, -np.inf, np.nan],
                     np.float32)
OWENS_H = np.array([0., 0.3, -1.5, 2., 0.5, 3., np.nan, 1.], np.float32)
OWENS_A = np.array([0.5, 1., 2., -0.3, 5., 0.2, 1., 0.], np.float32)
HYP_A = np.array([0.5, 1., 2., 0., 3., 1.5, 0.7, 1.2], np.float32)
HYP_B = np.array([1.5, 2., 2., 1., 0., 2.5, 1.2, 3.1], np.float32)
HYP_X = np.array([0.3, -2., 1., 5., 1., 120., 10., -4.], np.float32)
BESSEL_Z = np.array([[0.5, 1.3, 4.0], [7.5, 10., 0.1]], np.float32)
WOFZ_Z = np.array([0.3 + 0.5j, -1.2 - 0.7j, 2.0 + 0.0j, -0.5 + 3j, 4 - 0.1j], np.complex64)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 31])
def test_bernoulli_matches_jax(n):
  _same(special.bernoulli(n), jspecial.bernoulli(n))


def test_bernoulli_matches_scipy():
  np.testing.assert_allclose(special.bernoulli(20), sps.bernoulli(20), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bad,err", [(-1, ValueError), (2.5, TypeError)])
def test_bernoulli_bad_n(bad, err):
  for fn in (special.bernoulli, jspecial.bernoulli):
    with pytest.raises(err):
      fn(bad)


@pytest.mark.parametrize("z", [WOFZ_Z, WOFZ_Z.astype(np.complex64).real, np.float32(1.5)])
def test_wofz_matches_jax_and_scipy(z):
  _same(special.wofz(z), jspecial.wofz(z))
  np.testing.assert_allclose(special.wofz(z), sps.wofz(np.asarray(z, np.complex128)),
                             rtol=1e-5, atol=1e-6)


def test_wofz_grad():
  f = lambda m: lambda x: m.wofz(x).real
  _same(sj.grad(f(special))(0.7), jax.grad(f(jspecial))(0.7))


@pytest.mark.parametrize("x", [SICI_X, np.float32(2.5), 3])
def test_sici_matches_jax(x):
  _same(special.sici(x), jspecial.sici(x))


def test_sici_matches_scipy_and_grad():
  ours = special.sici(SICI_X[:9])
  for o, e in zip(ours, sps.sici(SICI_X[:9].astype(np.float64))):
    np.testing.assert_allclose(o, e, rtol=1e-5, atol=1e-6)
  f = lambda m: lambda x: m.sici(x)[0] + 2 * m.sici(x)[1]
  _same(sj.grad(f(special))(1.3), jax.grad(f(jspecial))(1.3))
  with pytest.raises(ValueError):
    special.sici(WOFZ_Z)


@pytest.mark.parametrize("dt", [np.float32, np.float16, "bfloat16"])
def test_fresnel_matches_jax(dt):
  _same(special.fresnel(FRESNEL_X.astype(dt)), jspecial.fresnel(FRESNEL_X.astype(dt)))


def test_fresnel_matches_scipy_and_grad():
  # float32 (Cephes fresnlf) takes S = C = 1/2 beyond x = 36974, as JAX does.
  for o, e in zip(special.fresnel(FRESNEL_X[:8]), sps.fresnel(FRESNEL_X[:8].astype(np.float64))):
    np.testing.assert_allclose(o, e, rtol=2e-6, atol=2e-7)
  f = lambda m: lambda x: m.fresnel(x)[0] - 3 * m.fresnel(x)[1]
  _same(sj.grad(f(special))(1.3), jax.grad(f(jspecial))(1.3))
  with pytest.raises(NotImplementedError):
    special.fresnel(WOFZ_Z)


def test_fresnel_and_sici_float64_match_scipy(x64):
  for ours, ref, x in [(special.fresnel, sps.fresnel, FRESNEL_X[:9]),
                       (special.sici, sps.sici, SICI_X[:9])]:
    x = x.astype(np.float64)
    for o, e in zip(ours(x), ref(x)):
      assert np.asarray(o).dtype == np.float64
      np.testing.assert_allclose(o, e, rtol=1e-13, atol=1e-15)


def test_owens_t_matches_jax_and_scipy():
  _same(special.owens_t(OWENS_H, OWENS_A), jspecial.owens_t(OWENS_H, OWENS_A))
  _same(special.owens_t(1, 2), jspecial.owens_t(1, 2))
  np.testing.assert_allclose(special.owens_t(OWENS_H[:6], OWENS_A[:6]),
                             sps.owens_t(OWENS_H[:6], OWENS_A[:6]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("h,a", [(0.7, 1.4), (-1.2, 0.3), (2.0, -3.0)])
def test_owens_t_grads(h, a):
  _same(sj.grad(special.owens_t, argnums=(0, 1))(h, a),
        jax.grad(jspecial.owens_t, argnums=(0, 1))(h, a))


@pytest.mark.parametrize("v,n_iter", [(0, 50), (4, 50), (3, 20)])
def test_bessel_jn_matches_jax(v, n_iter):
  _same(special.bessel_jn(BESSEL_Z, v=v, n_iter=n_iter),
        jspecial.bessel_jn(BESSEL_Z, v=v, n_iter=n_iter))


def test_bessel_jn_scipy_grad_jit_and_errors():
  # From order 50 the float32 recurrence overflows for small z (nan, as in JAX); 20 suffices.
  np.testing.assert_allclose(special.bessel_jn(BESSEL_Z, v=4, n_iter=20),
                             sps.jv(np.arange(5)[:, None, None], BESSEL_Z), atol=1e-6)
  f = lambda m: lambda x: m.bessel_jn(x, v=2, n_iter=15)[1]
  _same(sj.grad(f(special))(1.7), jax.grad(f(jspecial))(1.7))
  _same(sj.jit(lambda z: special.bessel_jn(z, v=2))(BESSEL_Z), jspecial.bessel_jn(BESSEL_Z, v=2))
  with pytest.raises(TypeError):
    special.bessel_jn(1.0, v=1.5)
  with pytest.raises(ValueError, match="complex"):
    special.bessel_jn(WOFZ_Z, v=1)


def test_hyp1f1_matches_jax_and_scipy():
  _same(special.hyp1f1(HYP_A, HYP_B, HYP_X), jspecial.hyp1f1(HYP_A, HYP_B, HYP_X), rtol=1e-5)
  _same(special.hyp1f1(1, 2, 3), jspecial.hyp1f1(1, 2, 3))
  ok = HYP_B != 0
  np.testing.assert_allclose(special.hyp1f1(HYP_A, HYP_B, HYP_X)[ok],
                             sps.hyp1f1(HYP_A, HYP_B, HYP_X)[ok], rtol=1e-5)
  with pytest.raises(ValueError):
    special.hyp1f1(1., 2., WOFZ_Z)


@pytest.mark.parametrize("argnum", [0, 1, 2])
def test_hyp1f1_grads(argnum):
  _same(sj.grad(special.hyp1f1, argnums=argnum)(0.7, 1.3, 2.1),
        jax.grad(jspecial.hyp1f1, argnums=argnum)(0.7, 1.3, 2.1), rtol=1e-5)


def test_hyp1f1_vmap():
  _same(sj.vmap(special.hyp1f1)(HYP_A, HYP_B, HYP_X), jspecial.hyp1f1(HYP_A, HYP_B, HYP_X),
        rtol=1e-5)


# hyp2f1's branches: Taylor, terminating (a or b a non-positive integer), x = 1, x > 1, the Euler
# transform (c - a - b <= -1) and the digamma transform near x = 1 (c - a - b an integer).
HYP2_A = np.array([0.5, 1., -3., 0., 1.5, 1.2, 0.7, 2., 1., 0.3, 2.5, -2., 0.5, 1.5, 0.3, 1.],
                  np.float32)
HYP2_B = np.array([1.5, 2., 2., 1., 2.5, 0.5, 1.3, 3., 1., 0.4, 1., 0.5, 1., 1.5, 0.7, 2.],
                  np.float32)
HYP2_C = np.array([2.5, 3., 1.5, 1., 4., 3.7, 1., 5., 2., 2.7, 3.2, 1., 3.5, 2., 4., 1.],
                  np.float32)
HYP2_X = np.array([0.3, -2., 0.5, 0.5, 0.95, 0.97, 0.2, 0.99, 1., 1., -0.7, 0.95, 0.95, 0.93,
                   0.92, 0.96], np.float32)


def test_hyp2f1_matches_jax_and_scipy():
  ours = special.hyp2f1(HYP2_A, HYP2_B, HYP2_C, HYP2_X)
  _same(ours, jspecial.hyp2f1(HYP2_A, HYP2_B, HYP2_C, HYP2_X), rtol=1e-5)
  _same(special.hyp2f1(1, 2, 3, 0.5), jspecial.hyp2f1(1, 2, 3, 0.5))
  ok = np.isfinite(np.asarray(ours))
  np.testing.assert_allclose(np.asarray(ours)[ok],
                             sps.hyp2f1(HYP2_A, HYP2_B, HYP2_C, HYP2_X)[ok], rtol=2e-5)


@pytest.mark.parametrize("argnum", [0, 1, 2, 3])
def test_hyp2f1_grads(argnum):
  _same(sj.grad(special.hyp2f1, argnums=argnum)(0.7, 1.3, 2.9, 0.4),
        jax.grad(jspecial.hyp2f1, argnums=argnum)(0.7, 1.3, 2.9, 0.4), rtol=1e-5)


SPH_N = np.array([0, 1, 2, 3, 4, 3, 5])
SPH_M = np.array([0, -1, 2, 0, -3, 1, 5])
SPH_THETA = np.array([0.3, 1.2, 2.0, 0.7, 2.9, 1.5, 0.9], np.float32)
SPH_PHI = np.array([0.1, 1.0, 4.0, 2.2, 5.5, 3.3, 0.4], np.float32)


@pytest.mark.parametrize("n_max", [None, 3, 6])
def test_sph_harm_y_matches_jax(n_max):
  _same(special.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI, n_max=n_max),
        jspecial.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI, n_max=n_max), atol=2e-7)


def test_sph_harm_y_matches_scipy_and_errors():
  np.testing.assert_allclose(special.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI),
                             sps.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI), atol=1e-6)
  _same(special.sph_harm_y(np.array([2]), np.array([1]), 0.5, 0.3),
        jspecial.sph_harm_y(np.array([2]), np.array([1]), 0.5, 0.3), atol=2e-7)
  with pytest.raises(NotImplementedError, match="diff_n"):
    special.sph_harm_y(SPH_N, SPH_M, SPH_THETA, SPH_PHI, diff_n=1)


# nn: block-scaled products. JAX lowers scaled_matmul only through cuDNN, so on the CPU the
# documented math (operands times their block-repeated scales, contracted in float32) is the
# reference.

def _scaled_reference(a, b, sa, sb):
  rep = lambda x, s: x * np.repeat(s, x.shape[-1] // s.shape[-1], axis=-1)
  return np.einsum("bmk,bnk->bmn", rep(a, sa), rep(b, sb))


def test_scaled_matmul_values_and_dtype():
  rng = np.random.default_rng(0)
  a, b = rng.normal(size=(2, 3, 8)).astype(np.float32), rng.normal(size=(2, 5, 8)).astype(np.float32)
  sa, sb = rng.uniform(0.5, 2, (2, 3, 2)).astype(np.float32), rng.uniform(0.5, 2, (2, 5, 2)).astype(np.float32)
  out = sj.nn.scaled_matmul(a, b, sa, sb)
  assert out.dtype == np.float32 and out.shape == (2, 3, 5)
  np.testing.assert_allclose(out, _scaled_reference(a, b, sa, sb), rtol=1e-5, atol=1e-5)
  assert sj.nn.scaled_matmul(a, b, sa, sb, preferred_element_type=np.float16).dtype == np.float16


@pytest.mark.parametrize("shapes", [
    [(3, 8), (5, 8), (3, 2), (5, 2)],             # not 3-D
    [(1, 3, 8), (1, 5, 4), (1, 3, 2), (1, 5, 2)],  # K differs
    [(1, 3, 8), (1, 5, 8), (1, 3, 2), (1, 5, 4)],  # scales' K differs
    [(1, 3, 8), (1, 5, 8), (1, 2, 2), (1, 5, 2)],  # scales' M differs
])
def test_scaled_matmul_shape_errors(shapes):
  args = [np.ones(s, np.float32) for s in shapes]
  with pytest.raises(ValueError):
    sj.nn.scaled_matmul(*args)
  with pytest.raises(ValueError):
    jnn.scaled_matmul(*args)


@pytest.mark.parametrize("mode", ["mxfp8", "nvfp4"])
def test_get_scaled_dot_general_config(mode):
  ours, theirs = sj.nn.get_scaled_dot_general_config(mode), jnn.get_scaled_dot_general_config(mode)
  for field in ("mode", "block_size", "infer_only"):
    assert getattr(ours, field) == getattr(theirs, field)
  assert np.dtype(ours.data_type) == np.dtype(theirs.data_type)
  assert np.dtype(ours.scale_type) == np.dtype(theirs.scale_type)
  assert (ours.global_scale is None) == (theirs.global_scale is None)
  if theirs.global_scale is not None:
    _same(ours.global_scale, theirs.global_scale)
  scale = np.array([0.5], np.float32)
  assert sj.nn.get_scaled_dot_general_config("nvfp4", scale).global_scale is scale
  with pytest.raises(ValueError, match="Unsupported mode"):
    sj.nn.get_scaled_dot_general_config("int8")


def test_scaled_dot_general_without_configs_is_dot_general():
  rng = np.random.default_rng(1)
  x, y = rng.normal(size=(2, 6, 4)).astype(np.float32), rng.normal(size=(2, 3, 4)).astype(np.float32)
  dn = (((2,), (2,)), ((0,), (0,)))
  _same(sj.nn.scaled_dot_general(x, y, dn), jnn.scaled_dot_general(x, y, dn), rtol=1e-5)
  _same(sj.nn.scaled_dot_general(x, y, dn, preferred_element_type=np.float16),
        jnn.scaled_dot_general(x, y, dn, preferred_element_type=np.float16), rtol=1e-2)
  with pytest.warns(DeprecationWarning):
    sj.nn.scaled_dot_general(x, y, dn, implementation="cudnn")
  with pytest.raises(NotImplementedError):
    sj.nn.scaled_dot_general(x, y, dn, configs=[sj.nn.get_scaled_dot_general_config("mxfp8")] * 3)
