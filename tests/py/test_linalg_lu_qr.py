"""lax.linalg's LU and QR primitives: lu, lu_pivots_to_permutation, geqrf, householder_product and
qr (with their rules, LAPACK lowering on the CPU and cuSOLVER lowering for cuda), against numpy,
their references and JAX, eagerly, under jit, vmap and grad."""
import jax
import numpy as np
import pytest
from jax._src.lax import linalg as jax_linalg

import stablejax as sj
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

check_close = test_util.check_close
FLOATS = [np.float32, np.complex64]
SHAPES = [(1, 1), (4, 4), (5, 3), (3, 5), (2, 4, 4), (2, 3, 4, 2)]


def _well_conditioned(rng, shape, dtype=np.float32):
  """Random matrices with a dominant diagonal (well conditioned, also for their leading blocks)."""
  a = test_util.rand(rng, shape, dtype)
  m, n = shape[-2:]
  return (a + 2 * max(m, n) * np.eye(m, n)).astype(dtype)


def _same(actual, expected, rtol=None, atol=None):
  assert np.asarray(actual).dtype == np.asarray(expected).dtype
  assert np.shape(actual) == np.shape(expected)
  check_close(actual, expected, rtol=rtol, atol=atol)


def _same_all(actual, expected, rtol=None, atol=None):
  assert len(actual) == len(expected)
  for x, y in zip(actual, expected):
    _same(x, y, rtol, atol)


def _reconstruct_lu(lu, permutation, a):
  """P a and L U from an LU decomposition of (unbatched) a."""
  m, n = a.shape
  k = min(m, n)
  lower = np.tril(lu[:, :k], -1) + np.eye(m, k)
  upper = np.triu(lu[:k, :])
  return a[permutation], lower @ upper


# ----------------------------------------------------------------------------------------------
# lu

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_lu_matches_numpy_reference_and_jax(dtype, shape, rng):
  a = test_util.rand(rng, shape, dtype)
  out = lax.linalg.lu(a)
  assert isinstance(out, tuple) and len(out) == 3
  expected = jax.lax.linalg.lu(a)
  _same_all(out, expected, rtol=1e-5, atol=1e-5)
  _same_all(out, primitive_kit.evaluate_reference(lax.linalg.lu_p, a), rtol=1e-4, atol=1e-4)
  _same_all(sj.jit(lax.linalg.lu)(a), out)
  lu, _, perm = (np.asarray(o).reshape(-1, *np.shape(o)[-2:]) if i == 0 else
                 np.asarray(o).reshape(-1, np.shape(o)[-1]) for i, o in enumerate(out))
  for lu_, p_, a_ in zip(lu, perm, a.reshape(-1, *shape[-2:])):
    check_close(*_reconstruct_lu(lu_, p_, a_), rtol=1e-4, atol=1e-4)


def test_lu_float64_and_complex128(x64, rng):
  for dtype in (np.float64, np.complex128):
    a = test_util.rand(rng, (2, 5, 4), dtype)
    _same_all(lax.linalg.lu(a), primitive_kit.evaluate_reference(lax.linalg.lu_p, a), rtol=1e-12,
              atol=1e-12)


def test_lu_vmap(rng):
  a = test_util.rand(rng, (3, 4, 4))
  expected = jax.lax.linalg.lu(a)
  _same_all(sj.vmap(lax.linalg.lu)(a), expected, rtol=1e-5, atol=1e-5)
  moved = sj.vmap(lax.linalg.lu, in_axes=2)(np.moveaxis(a, 0, 2))
  _same_all(moved, expected, rtol=1e-5, atol=1e-5)
  _same_all(sj.jit(sj.vmap(sj.vmap(lax.linalg.lu)))(a[None]), [e[None] for e in expected],
            rtol=1e-5, atol=1e-5)


def test_lu_singular_matrices_as_jax(rng):
  """A singular U is no failure (LAPACK's info > 0): as JAX, the factors come back and solving
  with them gives inf/NaN downstream, eagerly and under jit."""
  a = np.stack([np.zeros((3, 3), np.float32), np.ones((3, 3), np.float32),
                _well_conditioned(rng, (3, 3))])
  expected = jax.lax.linalg.lu(a)
  for out in (lax.linalg.lu(a), sj.jit(lax.linalg.lu)(a)):
    _same_all(out, expected)

  def solve(x):
    lu, _, _ = lax.linalg.lu(x)
    return lax.linalg.triangular_solve(lu, np.ones((3, 3, 1), np.float32), left_side=True)

  def jax_solve(x):
    lu, _, _ = jax.lax.linalg.lu(x)
    return jax.lax.linalg.triangular_solve(lu, np.ones((3, 3, 1), np.float32), left_side=True)

  ours, theirs = np.asarray(sj.jit(solve)(a)), np.asarray(jax.jit(jax_solve)(a))
  np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
  np.testing.assert_array_equal(np.isinf(ours), np.isinf(theirs))
  assert not np.isfinite(ours[:2]).all() and np.isfinite(ours[2]).all()


@pytest.mark.slow
@pytest.mark.parametrize("dtype,shape", [(np.float32, (5, 3)), (np.float32, (3, 5)),
                                         (np.complex64, (2, 3, 3))])
def test_lu_grad_matches_jax(dtype, shape, rng):
  a = _well_conditioned(rng, shape, dtype)
  t = test_util.rand(rng, shape, dtype)
  (out, dout), (jout, jdout) = (
      lib.jvp(lambda x: lib.lax.linalg.lu(x)[0], (a,), (t,)) for lib in (sj, jax))
  _same(out, jout, rtol=1e-5, atol=1e-5)
  _same(dout, jdout, rtol=1e-4, atol=1e-4)

  def loss(lib):
    return lambda x: lib.numpy.sum(lib.numpy.abs(lib.lax.linalg.lu(x)[0]) ** 2)
  _same(sj.grad(loss(sj))(a), jax.grad(loss(jax))(a), rtol=1e-4, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu_derivatives_finite_differences(shape, x64, rng):
  a = _well_conditioned(rng, shape, np.float64)
  test_util.check_grads(lambda x: lax.linalg.lu(x)[0], (a,), order=2)
  c = _well_conditioned(rng, shape, np.complex128)
  test_util.check_grads(lambda x: lax.linalg.lu(x)[0], (c,), order=1)


def test_lu_integer_outputs_have_no_tangent(rng):
  a = _well_conditioned(rng, (3, 3))
  _, (_, dpivots, dperm) = sj.jvp(lax.linalg.lu, (a,), (a,))
  assert np.asarray(dpivots).dtype == jax.dtypes.float0 or not np.any(np.asarray(dpivots))
  assert np.asarray(dperm).dtype == jax.dtypes.float0 or not np.any(np.asarray(dperm))


def test_lu_errors():
  with pytest.raises(TypeError, match="lu"):
    lax.linalg.lu(np.ones((3,), np.float32))
  with pytest.raises(TypeError, match="lu does not accept dtype int32"):
    lax.linalg.lu(np.ones((3, 3), np.int32))


# ----------------------------------------------------------------------------------------------
# lu_pivots_to_permutation

def _random_pivots(rng, batch, k, size):
  columns = [rng.integers(i, size, size=batch) for i in range(k)]
  return np.stack(columns, -1).astype(np.int32) if k else np.zeros((*batch, 0), np.int32)


@pytest.mark.parametrize("batch,k,size", [((), 3, 3), ((), 2, 5), ((4,), 3, 4), ((2, 3), 4, 6),
                                          ((), 0, 3)])
def test_lu_pivots_to_permutation_matches_jax(batch, k, size, rng):
  pivots = _random_pivots(rng, batch, k, size)
  out = lax.linalg.lu_pivots_to_permutation(pivots, size)
  expected = jax.lax.linalg.lu_pivots_to_permutation(pivots, size)
  _same(out, expected)
  _same(out, primitive_kit.evaluate_reference(lax.linalg.lu_pivots_to_permutation_p, pivots,
                                         permutation_size=size))
  _same(sj.jit(lax.linalg.lu_pivots_to_permutation, static_argnums=1)(pivots, size), expected)


def test_lu_pivots_to_permutation_vmap(rng):
  pivots = _random_pivots(rng, (5,), 3, 4)
  expected = jax.lax.linalg.lu_pivots_to_permutation(pivots, 4)
  _same(sj.vmap(lambda p: lax.linalg.lu_pivots_to_permutation(p, 4))(pivots), expected)
  _same(sj.vmap(lambda p: lax.linalg.lu_pivots_to_permutation(p, 4), in_axes=1, out_axes=1)(
      pivots.T), expected.T)


def test_lu_pivots_to_permutation_errors():
  with pytest.raises(ValueError, match="Output permutation size 2 has to exceed"):
    lax.linalg.lu_pivots_to_permutation(np.zeros((3,), np.int32), 2)
  with pytest.raises(TypeError, match="does not accept dtype"):
    lax.linalg.lu_pivots_to_permutation(np.zeros((3,), np.float32), 3)


# ----------------------------------------------------------------------------------------------
# geqrf and householder_product

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_geqrf_and_householder_product_match_jax(dtype, shape, rng):
  a = test_util.rand(rng, shape, dtype)
  out = lax.linalg.geqrf(a)
  _same_all(out, jax_linalg.geqrf(a), rtol=1e-5, atol=1e-5)  # not public in jax.lax.linalg
  _same_all(out, primitive_kit.evaluate_reference(lax.linalg.geqrf_p, a), rtol=1e-4, atol=1e-4)
  m, n = shape[-2:]
  reflectors, taus = np.asarray(out[0])[..., :, :min(m, n)], np.asarray(out[1])
  q = lax.linalg.householder_product(reflectors, taus)
  _same(q, jax.lax.linalg.householder_product(reflectors, taus), rtol=1e-5, atol=1e-5)
  _same(q, primitive_kit.evaluate_reference(lax.linalg.householder_product_p, reflectors, taus),
        rtol=1e-4, atol=1e-4)
  _same_all(sj.vmap(lax.linalg.geqrf)(a[None]), [o[None] for o in out])


def test_geqrf_and_householder_product_are_not_differentiable(rng):
  """As JAX: their JVPs are not implemented (qr has its own)."""
  a = test_util.rand(rng, (3, 3))
  with pytest.raises(NotImplementedError, match="Differentiation rule for 'geqrf'"):
    sj.jvp(lax.linalg.geqrf, (a,), (a,))
  taus = np.ones((3,), np.float32)
  with pytest.raises(NotImplementedError, match="householder_product"):
    sj.jvp(lambda x: lax.linalg.householder_product(x, taus), (a,), (a,))


def test_householder_product_errors():
  with pytest.raises(ValueError, match="at least as many rows as columns"):
    lax.linalg.householder_product(np.ones((2, 3), np.float32), np.ones((2,), np.float32))
  with pytest.raises(ValueError, match="must not have more rows"):
    lax.linalg.householder_product(np.ones((3, 2), np.float32), np.ones((3,), np.float32))


# ----------------------------------------------------------------------------------------------
# qr

@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (5, 3), (3, 5), (2, 4, 3), (0, 3), (3, 0)])
def test_qr_matches_numpy_reference_and_jax(full_matrices, dtype, shape, rng):
  a = test_util.rand(rng, shape, dtype)
  out = lax.linalg.qr(a, full_matrices=full_matrices)
  assert isinstance(out, tuple) and len(out) == 2
  _same_all(out, jax.lax.linalg.qr(a, full_matrices=full_matrices), rtol=1e-5, atol=1e-5)
  mode = "complete" if full_matrices else "reduced"
  _same_all(out, np.linalg.qr(a, mode=mode), rtol=1e-4, atol=1e-4)
  _same_all(out, primitive_kit.evaluate_reference(lax.linalg.qr_p, a, pivoting=False,
                                             full_matrices=full_matrices, use_magma=None),
            rtol=1e-4, atol=1e-4)
  _same_all(sj.jit(lambda x: lax.linalg.qr(x, full_matrices=full_matrices))(a), out)


def test_qr_float64(x64, rng):
  a = test_util.rand(rng, (2, 5, 3), np.float64)
  _same_all(lax.linalg.qr(a), np.linalg.qr(a, mode="complete"), rtol=1e-12, atol=1e-12)


def test_qr_vmap(rng):
  a = test_util.rand(rng, (3, 5, 4))
  expected = jax.lax.linalg.qr(a, full_matrices=False)
  f = lambda x: lax.linalg.qr(x, full_matrices=False)  # noqa: E731
  _same_all(sj.vmap(f)(a), expected, rtol=1e-5, atol=1e-5)
  _same_all(sj.vmap(f, in_axes=1, out_axes=1)(np.swapaxes(a, 0, 1)),
            [np.swapaxes(e, 0, 1) for e in expected], rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("dtype,shape", [(np.float32, (4, 4)), (np.float32, (5, 3)),
                                         (np.float32, (3, 5)), (np.complex64, (2, 4, 3))])
def test_qr_jvp_and_grad_match_jax(full_matrices, dtype, shape, rng):
  a = _well_conditioned(rng, shape, dtype)
  t = test_util.rand(rng, shape, dtype)
  ours = sj.jvp(lambda x: lax.linalg.qr(x, full_matrices=full_matrices), (a,), (t,))
  theirs = jax.jvp(lambda x: jax.lax.linalg.qr(x, full_matrices=full_matrices), (a,), (t,))
  _same_all(ours[1], theirs[1], rtol=2e-4, atol=2e-4)

  def loss(lib):
    def f(x):
      q, r = lib.lax.linalg.qr(x, full_matrices=full_matrices)
      return lib.numpy.sum(lib.numpy.real(q) * 2.0) + lib.numpy.sum(lib.numpy.abs(r) ** 2)
    return f
  _same(sj.grad(loss(sj))(a), jax.grad(loss(jax))(a), rtol=2e-4, atol=2e-4)


@pytest.mark.slow
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_qr_derivatives_finite_differences(full_matrices, shape, x64, rng):
  a = _well_conditioned(rng, shape, np.float64)
  f = lambda x: lax.linalg.qr(x, full_matrices=full_matrices)  # noqa: E731
  test_util.check_grads(f, (a,), order=1)
  c = _well_conditioned(rng, shape, np.complex128)
  test_util.check_grads(f, (c,), order=1)


def test_qr_pivoting_is_not_supported(rng):
  with pytest.raises(NotImplementedError, match="pivoting"):
    lax.linalg.qr(test_util.rand(rng, (3, 3)), pivoting=True)


# ----------------------------------------------------------------------------------------------
# Lowerings: LAPACK on the CPU, cuSOLVER for cuda, TPU's own custom calls (as JAX emits them)

def _text(fn, *args, platform="cpu"):
  return sj.jit(fn).lower(*args, platform=platform).as_text()


def test_cpu_lowering_calls_lapack(rng):
  a = test_util.rand(rng, (2, 4, 3))
  text = _text(lax.linalg.lu, a)
  assert "@lapack_sgetrf_ffi" in text and "stablehlo.while" in text
  assert "stablehlo.compare  GE" in text or "compare GE" in text
  text = _text(lax.linalg.qr, a)
  assert "@lapack_sgeqrf_ffi" in text and "@lapack_sorgqr_ffi" in text
  text = _text(lax.linalg.qr, a.astype(np.complex64))
  assert "@lapack_cgeqrf_ffi" in text and "@lapack_cungqr_ffi" in text
  with test_util.x64():
    text = _text(lax.linalg.lu, a.astype(np.complex128))
    assert "@lapack_zgetrf_ffi" in text


def test_cuda_lowering_calls_cusolver(rng):
  a = test_util.rand(rng, (2, 4, 3))
  text = _text(lax.linalg.lu, a, platform="cuda")
  assert "@cusolver_getrf_ffi" in text and "@cu_lu_pivots_to_permutation" in text
  assert "lapack" not in text and "stablehlo.while" not in text
  text = _text(lax.linalg.qr, a.astype(np.complex64), platform="cuda")
  assert "@cusolver_geqrf_ffi" in text and "@cusolver_orgqr_ffi" in text
  pivots = np.zeros((2, 3), np.int32)
  assert "@cu_lu_pivots_to_permutation" in _text(
      lambda p: lax.linalg.lu_pivots_to_permutation(p, 4), pivots, platform="cuda")


def test_tpu_lowering_calls_tpu_custom_calls(rng):
  a = test_util.rand(rng, (4, 3))
  assert "@LuDecomposition" in _text(lax.linalg.lu, a, platform="tpu")
  text = _text(lax.linalg.qr, a, platform="tpu")
  assert "@Qr" in text and "@ProductOfElementaryHouseholderReflectors" in text


def test_lowering_for_cpu_and_cuda_at_once(rng):
  a = test_util.rand(rng, (3, 3))
  text = sj.jit(lax.linalg.lu).lower(a, platforms=("cpu", "cuda")).as_text()
  assert "@lapack_sgetrf_ffi" in text and "@cusolver_getrf_ffi" in text
