"""Linear algebra: lax.linalg's cholesky and triangular_solve (rules, LAPACK lowering on the CPU),
jnp.linalg (cholesky, norms, array-API spellings), jax.scipy.linalg's Cholesky solves and
solve_triangular, and the multivariate normal (scipy.stats and random), against numpy and JAX."""
import itertools

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

check_close = test_util.check_close
FLOATS = [np.float32, np.complex64]


def _spd(rng, shape, dtype=np.float32):
  """Well-conditioned Hermitian positive-definite matrices of `shape` (..., n, n)."""
  m = test_util.rand(rng, shape, dtype)
  n = shape[-1]
  return (m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)).astype(dtype)


def _triangular(rng, shape, dtype, lower):
  """Triangular matrices with a dominant diagonal (well conditioned), junk in the other half."""
  a = test_util.rand(rng, shape, dtype)
  n = shape[-1]
  return (a + 3 * n * np.eye(n)).astype(dtype)


def _same(actual, expected, rtol=None, atol=None):
  assert np.asarray(actual).dtype == np.asarray(expected).dtype
  assert np.shape(actual) == np.shape(expected)
  check_close(actual, expected, rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------------
# lax.linalg.cholesky

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 3)])
def test_cholesky_matches_numpy_and_jax(dtype, shape, rng):
  a = _spd(rng, shape, dtype)
  out = lax.linalg.cholesky(a)
  _same(out, np.linalg.cholesky(a), rtol=1e-4, atol=1e-5)
  _same(out, jax.lax.linalg.cholesky(a), rtol=1e-5, atol=1e-6)
  _same(sj.jit(lax.linalg.cholesky)(a), out)


def test_cholesky_float64(x64, rng):
  a = _spd(rng, (5, 5), np.float64)
  _same(lax.linalg.cholesky(a), np.linalg.cholesky(a), rtol=1e-12, atol=1e-12)


def test_cholesky_symmetrizes_input_unless_told_not_to(rng):
  a = _spd(rng, (3, 3))
  skewed = a + np.triu(np.ones((3, 3), np.float32), 1)  # only the upper half changes
  _same(lax.linalg.cholesky(skewed), jax.lax.linalg.cholesky(skewed), rtol=1e-5, atol=1e-6)
  _same(lax.linalg.cholesky(skewed, symmetrize_input=False), np.linalg.cholesky(a),
        rtol=1e-4, atol=1e-5)


def test_cholesky_not_positive_definite_gives_nans(rng):
  """As JAX: NaNs (not an exception) for the matrices that fail, eagerly and under jit."""
  a = np.stack([_spd(rng, (3, 3)), -np.eye(3, dtype=np.float32)])
  for out in (lax.linalg.cholesky(a), sj.jit(lax.linalg.cholesky)(a)):
    out = np.asarray(out)
    assert np.isfinite(out[0]).all() and np.isnan(out[1][np.tril_indices(3)]).all()
    np.testing.assert_array_equal(np.isnan(out), np.isnan(np.asarray(
        jax.lax.linalg.cholesky(a))))


def test_cholesky_vmap(rng):
  a = _spd(rng, (4, 3, 3))
  _same(sj.vmap(lax.linalg.cholesky)(a), np.linalg.cholesky(a), rtol=1e-4, atol=1e-5)
  moved = np.moveaxis(a, 0, 2)
  _same(sj.vmap(lax.linalg.cholesky, in_axes=2)(moved), np.linalg.cholesky(a), rtol=1e-4,
        atol=1e-5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_grad_matches_jax(dtype, rng):
  a = _spd(rng, (3, 3), dtype)
  def loss(lib):
    return lambda x: lib.numpy.sum(lib.numpy.abs(lib.lax.linalg.cholesky(x)) ** 2
                                   * np.arange(9).reshape(3, 3))
  _same(sj.grad(loss(sj))(a), jax.grad(loss(jax))(a), rtol=1e-4, atol=1e-5)


def test_cholesky_derivatives_finite_differences(x64, rng):
  a = _spd(rng, (3, 3), np.float64)
  test_util.check_grads(lax.linalg.cholesky, (a,), order=2)
  c = _spd(rng, (2, 3, 3), np.complex128)
  test_util.check_grads(lax.linalg.cholesky, (c,), order=1)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_cholesky_derivative_reads_the_lower_triangle_only(dtype, x64, rng):
  """Without symmetrization the factor depends on the lower triangle only, and so does its
  derivative (JAX 0.10.2's rule used the whole tangent; JAX fixed it in 0.11)."""
  def factor(x):
    return lax.linalg.cholesky(x, symmetrize_input=False)
  a = _spd(rng, (3, 3), dtype)
  test_util.check_grads(factor, (a,), order=1)
  upper = np.triu(test_util.rand(rng, (3, 3), dtype), 1)
  check_close(sj.jvp(factor, (a,), (upper,))[1], np.zeros((3, 3), dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_cholesky_jvp_matches_jax_at_hermitian_tangents(dtype, x64, rng):
  """Where the tangent is Hermitian (a perturbation the factorization can see whole) the JVP is
  JAX's; at a tangent with an upper triangle of its own it is the finite differences' (see the
  README: a deliberate difference from JAX 0.10.2, and the harnesses' EXCLUSIONS row)."""
  a = _spd(rng, (3, 3), dtype)
  t = test_util.rand(rng, (3, 3), dtype)
  t = t + t.conj().T
  def factor(lib):
    return lambda x: lib.lax.linalg.cholesky(x, symmetrize_input=False)
  check_close(sj.jvp(factor(sj), (a,), (t,))[1], jax.jvp(factor(jax), (a,), (t,))[1],
              rtol=1e-5, atol=1e-6)  # JAX runs these in 32 bits
  check_close(sj.jvp(lambda x: lax.linalg.cholesky_p.bind(x), (a,), (t,))[1],
              jax.jvp(lambda x: jax.lax.linalg.cholesky_p.bind(x), (a,), (t,))[1],
              rtol=1e-5, atol=1e-6)


def test_cholesky_reference_matches_primitive(rng):
  """The numpy reference is LAPACK's potrf: L below the diagonal, the input above it."""
  a = _spd(rng, (2, 4, 4))
  out = lax.linalg.cholesky_p.bind(a)
  check_close(out, primitive_kit.evaluate_reference(lax.linalg.cholesky_p, a), rtol=1e-4, atol=1e-5)


def test_cholesky_prints_like_jax(rng):
  a = _spd(rng, (3, 3))
  assert str(sj.make_jaxpr(lax.linalg.cholesky)(a)) == \
      str(jax.make_jaxpr(jax.lax.linalg.cholesky)(a)).replace(" sharding=None", "")


def test_cholesky_errors():
  with pytest.raises(TypeError, match="at least 2-D"):
    lax.linalg.cholesky_p.bind(np.ones(3, np.float32))
  with pytest.raises(ValueError, match="square"):
    lax.linalg.cholesky(np.ones((2, 3), np.float32), symmetrize_input=False)
  with pytest.raises(TypeError, match="cholesky"):
    lax.linalg.cholesky_p.bind(np.ones((2, 2), np.int32))


# ----------------------------------------------------------------------------------------------
# lax.linalg.triangular_solve

TRI_PARAMS = [dict(left_side=l, lower=lo, transpose_a=t, conjugate_a=c, unit_diagonal=u)
              for l, lo, t, c, u in itertools.product([False, True], repeat=5)]


def _tri_operands(rng, dtype, left_side, batch=()):
  a = _triangular(rng, (*batch, 3, 3), dtype, True)
  b = test_util.rand(rng, (*batch, 3, 2) if left_side else (*batch, 2, 3), dtype)
  return a, b


@pytest.mark.parametrize("params", TRI_PARAMS, ids=lambda p: "-".join(k for k, v in p.items()
                                                                      if v) or "default")
@pytest.mark.parametrize("dtype", FLOATS)
def test_triangular_solve_matches_reference_and_jax(params, dtype, rng):
  a, b = _tri_operands(rng, dtype, params["left_side"], batch=(2,))
  out = lax.linalg.triangular_solve(a, b, **params)
  _same(out, jax.lax.linalg.triangular_solve(a, b, **params), rtol=1e-5, atol=1e-6)
  check_close(out, primitive_kit.evaluate_reference(lax.linalg.triangular_solve_p, a, b, **params),
              rtol=1e-4, atol=1e-5)


def test_triangular_solve_vector_and_default_lowering(rng):
  """A vector b (one axis fewer than a); the StableHLO lowering used off the CPU agrees with
  LAPACK's (checked by compiling the default rule's op on the CPU)."""
  a = _triangular(rng, (3, 3), np.float32, True)
  b = test_util.rand(rng, (3,), np.float32)
  for left_side in (True, False):
    _same(lax.linalg.triangular_solve(a, b, left_side=left_side, lower=True),
          jax.lax.linalg.triangular_solve(a, b, left_side=left_side, lower=True),
          rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (0, None), (1, 2)])
def test_triangular_solve_vmap(in_axes, rng):
  a, b = _tri_operands(rng, np.float32, True, batch=(4,))
  a_in = a[0] if in_axes[0] is None else np.moveaxis(a, 0, in_axes[0])
  b_in = b[0] if in_axes[1] is None else np.moveaxis(b, 0, in_axes[1])
  def solve(lib):
    return lambda x, y: lib.lax.linalg.triangular_solve(x, y, left_side=True, lower=True)
  _same(sj.vmap(solve(sj), in_axes=in_axes)(a_in, b_in),
        jax.vmap(solve(jax), in_axes=in_axes)(a_in, b_in), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("params", TRI_PARAMS[::3], ids=lambda p: "-".join(
    k for k, v in p.items() if v) or "default")
def test_triangular_solve_grads(params, rng, x64):
  a, b = _tri_operands(rng, np.complex128 if params["conjugate_a"] else np.float64,
                       params["left_side"])
  def solve(x, y):
    return lax.linalg.triangular_solve(x, y, **params)
  test_util.check_grads(solve, (a, b), order=1)
  def loss(lib):
    return lambda x, y: lib.numpy.sum(lib.numpy.abs(lib.lax.linalg.triangular_solve(
        x, y, **params)) ** 2)
  for argnum in (0, 1):  # JAX without x64 computes in 32 bits
    check_close(sj.grad(loss(sj), argnum)(a, b), jax.grad(loss(jax), argnum)(a, b), rtol=1e-5,
                atol=1e-6)


def test_triangular_solve_errors():
  f32 = np.float32
  with pytest.raises(ValueError, match="Incompatible shapes"):
    lax.linalg.triangular_solve(np.eye(3, dtype=f32), np.ones((3, 4), f32))
  with pytest.raises(ValueError, match="square"):
    lax.linalg.triangular_solve(np.ones((3, 2), f32), np.ones((3, 3), f32), left_side=True)
  with pytest.raises(ValueError, match="batch dimensions"):
    lax.linalg.triangular_solve(np.ones((2, 3, 3), f32), np.ones((4, 3, 3), f32))
  with pytest.raises(TypeError, match="same dtype"):
    lax.linalg.triangular_solve(np.eye(2, dtype=f32), np.ones((2, 2), np.complex64))


# ----------------------------------------------------------------------------------------------
# Lowering

def test_cpu_lowering_calls_lapack_as_jax(rng):
  a = _spd(rng, (2, 3, 3))
  text = sj.jit(lax.linalg.cholesky).lower(a).as_text()
  assert "stablehlo.custom_call @lapack_spotrf_ffi" in text
  assert "mhlo.backend_config = {uplo = 76 : ui8}" in text
  assert "operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]" in text
  assert 'mhlo.frontend_attributes = {num_batch_dims = "1"}' in text
  text = sj.jit(lambda x, y: lax.linalg.triangular_solve(x, y, left_side=True, lower=True,
                                                         transpose_a=True)).lower(a, a).as_text()
  assert "stablehlo.custom_call @lapack_strsm_ffi" in text
  assert "mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, " \
         "uplo = 76 : ui8}" in text
  with test_util.x64():
    assert "@lapack_zpotrf_ffi" in sj.jit(lax.linalg.cholesky).lower(
        a.astype(np.complex128)).as_text()


def test_other_platforms_lower_to_stablehlo_ops(rng):
  a = _spd(rng, (3, 3))
  text = sj.jit(lax.linalg.cholesky).lower(a, platform="tpu").as_text()
  assert "stablehlo.cholesky" in text and "lapack" not in text
  text = sj.jit(lax.linalg.cholesky).lower(a, platform="cuda").as_text()
  assert "@cusolver_potrf_ffi" in text and "lower = true" in text  # as JAX on GPUs
  text = sj.jit(lambda x, y: lax.linalg.triangular_solve(x, y, conjugate_a=True)).lower(
      a.astype(np.complex64), a.astype(np.complex64), platform="cuda").as_text()
  assert "chlo.conj" in text or "stablehlo.complex" in text
  assert "stablehlo.triangular_solve" in text and "NO_TRANSPOSE" in text


def test_jax_and_stablejax_share_the_lapack_targets(rng):
  """Both register jaxlib's LAPACK targets with XLA in one process: each keeps working."""
  a = _spd(rng, (3, 3))
  _same(jax.jit(jax.lax.linalg.cholesky)(a), sj.jit(lax.linalg.cholesky)(a))


# ----------------------------------------------------------------------------------------------
# jnp.linalg

@pytest.mark.parametrize("upper", [False, True])
def test_jnp_cholesky(upper, rng):
  a = _spd(rng, (2, 4, 4), np.complex64)
  _same(jnp.linalg.cholesky(a, upper=upper), jjnp.linalg.cholesky(a, upper=upper), rtol=1e-5,
        atol=1e-6)
  _same(jnp.linalg.cholesky(np.eye(2, dtype=np.int32)), jjnp.linalg.cholesky(np.eye(2, dtype=int)))


NORMS = [
    ((5,), None, None), ((5,), 0, None), ((5,), 1, None), ((5,), 3, None), ((5,), -2, None),
    ((5,), np.inf, None), ((5,), -np.inf, None), ((5,), 0.5, None),
    ((3, 4), None, None), ((3, 4), "fro", None), ((3, 4), 1, None), ((3, 4), -1, None),
    ((3, 4), np.inf, None), ((3, 4), -np.inf, None), ((2, 3, 4), None, 1),
    ((2, 3, 4), 1, (2, 0)), ((2, 3, 4), np.inf, (0, 2)), ((2, 3, 4), -1, (-1, -2)),
    ((2, 3, 4), None, None),
]


@pytest.mark.parametrize("shape,order,axis", NORMS)
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm(shape, order, axis, keepdims, rng):
  x = test_util.rand(rng, shape, np.float32)
  x.flat[0] = 0
  _same(jnp.linalg.norm(x, order, axis, keepdims),
        jjnp.linalg.norm(x, order, axis, keepdims), rtol=1e-5, atol=1e-6)


def test_norm_dtypes_jit_vmap_grad(rng):
  x = test_util.rand(rng, (3, 4), np.complex64)
  _same(jnp.linalg.norm(x), jjnp.linalg.norm(x), rtol=1e-6)
  _same(jnp.linalg.norm(np.arange(6).reshape(2, 3)), jjnp.linalg.norm(np.arange(6).reshape(2, 3)))
  y = test_util.rand(rng, (3, 4), np.float32)
  _same(sj.jit(jnp.linalg.norm, static_argnames="ord")(y, ord=1),
        jjnp.linalg.norm(y, ord=1))
  _same(sj.vmap(jnp.linalg.norm)(y), jax.vmap(jjnp.linalg.norm)(y), rtol=1e-6)
  _same(sj.grad(jnp.linalg.norm)(y), jax.grad(jjnp.linalg.norm)(y), rtol=1e-6)
  _same(jnp.linalg.vector_norm(y, ord=np.inf, axis=0), jjnp.linalg.vector_norm(y, ord=np.inf,
                                                                              axis=0))
  _same(jnp.linalg.matrix_norm(y[None], ord=1), jjnp.linalg.matrix_norm(y[None], ord=1))


def test_norm_errors(rng):
  x = test_util.rand(rng, (2, 3, 4), np.float32)
  with pytest.raises(ValueError, match="Improper number of axes"):
    jnp.linalg.norm(x, 2)
  with pytest.raises(ValueError, match="Invalid order"):
    jnp.linalg.norm(x[0], "bad")
  with pytest.raises(ValueError, match="Invalid order"):
    jnp.linalg.norm(x[0, 0], "fro")


def test_array_api_spellings(rng):
  x = test_util.rand(rng, (2, 3, 3), np.float32)
  v, w = test_util.rand(rng, (4, 3), np.float32), test_util.rand(rng, (4, 3), np.float32)
  for name, args, kwargs in [("matrix_transpose", (x,), {}), ("diagonal", (x,), {"offset": 1}),
                             ("trace", (x,), {}), ("outer", (v[0], w[1]), {}),
                             ("cross", (v, w), {}), ("matmul", (x, x), {}),
                             ("tensordot", (x, x[0]), {"axes": 1}), ("vecdot", (v, w), {})]:
    _same(getattr(jnp.linalg, name)(*args, **kwargs),
          getattr(jjnp.linalg, name)(*args, **kwargs), rtol=1e-5, atol=1e-6)
  with pytest.raises(ValueError, match="3-dimensional"):
    jnp.linalg.cross(v[:, :2], w[:, :2])
  with pytest.raises(ValueError, match="one-dimensional"):
    jnp.linalg.outer(v, w)


# ----------------------------------------------------------------------------------------------
# jax.scipy.linalg

@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_scipy_cholesky_and_cho_solve(lower, dtype, rng):
  a = _spd(rng, (2, 4, 4), dtype)
  _same(sj.scipy.linalg.cholesky(a, lower=lower), jax.scipy.linalg.cholesky(a, lower=lower),
        rtol=1e-5, atol=1e-6)
  factor = sj.scipy.linalg.cho_factor(a, lower=lower)
  assert factor[1] is lower
  for b in (test_util.rand(rng, (4,), dtype), test_util.rand(rng, (2, 4, 3), dtype)):
    x = sj.scipy.linalg.cho_solve(factor, b)
    _same(x, jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a, lower=lower), b),
          rtol=1e-4, atol=1e-5)
    check_close(np.linalg.solve(a, b[..., None] if b.ndim == 1 else b),
                np.asarray(x)[..., None] if b.ndim == 1 else x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower,unit_diagonal", [(False, False), (True, False), (True, True)])
def test_scipy_solve_triangular(trans, lower, unit_diagonal, rng):
  a = _triangular(rng, (3, 3), np.complex64, lower)
  for b in (test_util.rand(rng, (3,), np.complex64), test_util.rand(rng, (3, 2), np.complex64),
            test_util.rand(rng, (2, 3, 2), np.complex64)):
    _same(sj.scipy.linalg.solve_triangular(a, b, trans, lower, unit_diagonal),
          jax.scipy.linalg.solve_triangular(a, b, trans, lower, unit_diagonal),
          rtol=1e-5, atol=1e-6)
  b = test_util.rand(rng, (3,), np.float32)
  _same(sj.scipy.linalg.solve_triangular(a.real, b, trans, lower=lower),
        jax.scipy.linalg.solve_triangular(a.real, b, trans, lower=lower), rtol=1e-5, atol=1e-6)


def test_scipy_linalg_under_jit_vmap_grad(rng):
  a = _spd(rng, (3, 4, 4))
  b = test_util.rand(rng, (3, 4), np.float32)
  def solve(lib):
    return lambda x, y: lib.scipy.linalg.cho_solve(lib.scipy.linalg.cho_factor(x), y)
  _same(sj.jit(solve(sj))(a[0], b[0]), jax.jit(solve(jax))(a[0], b[0]), rtol=1e-4, atol=1e-5)
  _same(sj.vmap(solve(sj))(a, b), jax.vmap(solve(jax))(a, b), rtol=1e-4, atol=1e-5)
  def loss(lib):  # through a symmetric matrix: JAX before 0.11 differentiates the other triangle
    return lambda x, y: lib.numpy.sum(solve(lib)((x + x.T) / 2, y) ** 2)
  _same(sj.grad(loss(sj))(a[0], b[0]), jax.grad(loss(jax))(a[0], b[0]), rtol=1e-3, atol=1e-5)
  with test_util.x64():
    test_util.check_grads(solve(sj), (a[0].astype(np.float64), b[0].astype(np.float64)), 1)


def test_scipy_solve_triangular_bad_trans():
  with pytest.raises(ValueError, match="trans"):
    sj.scipy.linalg.solve_triangular(np.eye(2), np.ones(2), trans="X")


# ----------------------------------------------------------------------------------------------
# The multivariate normal

@pytest.mark.parametrize("x_shape,mean_shape,cov_shape", [
    ((5, 3), (3,), (3, 3)), ((3,), (3,), (3, 3)), ((2, 5, 3), (2, 1, 3), (3, 3)),
    ((4,), (), ()), ((5, 3), (3,), ())])
def test_multivariate_normal_logpdf(x_shape, mean_shape, cov_shape, rng):
  x = test_util.rand(rng, x_shape, np.float32)
  mean = test_util.rand(rng, mean_shape, np.float32)
  cov = _spd(rng, cov_shape) if cov_shape else np.float32(1.7)
  for fn in ("logpdf", "pdf"):
    _same(getattr(sj.scipy.stats.multivariate_normal, fn)(x, mean, cov),
          getattr(jax.scipy.stats.multivariate_normal, fn)(x, mean, cov), rtol=1e-5, atol=1e-6)


def test_multivariate_normal_logpdf_grad_and_errors(rng):
  x, mean, cov = test_util.rand(rng, (5, 3), np.float32), np.zeros(3, np.float32), \
      _spd(rng, (3, 3))
  def loss(lib):
    return lambda m, c: lib.numpy.sum(lib.scipy.stats.multivariate_normal.logpdf(x, m, c))
  for argnum in (0, 1):
    _same(sj.grad(loss(sj), argnum)(mean, cov), jax.grad(loss(jax), argnum)(mean, cov),
          rtol=1e-4, atol=1e-5)
  with pytest.raises(ValueError, match="incompatible shapes"):
    sj.scipy.stats.multivariate_normal.logpdf(x, mean, np.eye(4, dtype=np.float32))
  with pytest.raises(NotImplementedError, match="allow_singular"):
    sj.scipy.stats.multivariate_normal.logpdf(x, mean, cov, allow_singular=True)


@pytest.mark.parametrize("mean_shape,cov_shape,shape", [
    ((3,), (3, 3), None), ((3,), (3, 3), (4, 2)), ((2, 3), (3, 3), None),
    ((3,), (5, 3, 3), (5,)), ((1, 3), (2, 3, 3), (4, 2))])
def test_random_multivariate_normal_bits_match_jax(mean_shape, cov_shape, shape, rng):
  mean = test_util.rand(rng, mean_shape, np.float32)
  cov = _spd(rng, cov_shape)
  out = sj.random.multivariate_normal(sj.random.key(3), mean, cov, shape)
  _same(out, jax.random.multivariate_normal(jax.random.key(3), mean, cov, shape), rtol=1e-6,
        atol=1e-6)


def test_random_multivariate_normal_vmap_over_keys_and_errors(rng):
  mean, cov = np.zeros(2, np.float32), _spd(rng, (2, 2))
  keys, jkeys = sj.random.split(sj.random.key(0), 3), jax.random.split(jax.random.key(0), 3)
  _same(sj.vmap(lambda k: sj.random.multivariate_normal(k, mean, cov))(keys),
        jax.vmap(lambda k: jax.random.multivariate_normal(k, mean, cov))(jkeys), rtol=1e-6,
        atol=1e-6)
  with pytest.raises(ValueError, match="method"):
    sj.random.multivariate_normal(keys[0], mean, cov, method="lu")
  with pytest.raises(ValueError, match="cov.shape"):
    sj.random.multivariate_normal(keys[0], mean, np.eye(3, dtype=np.float32))
  with pytest.raises(ValueError, match="mean.ndim"):
    sj.random.multivariate_normal(keys[0], np.float32(0), cov)


# ----------------------------------------------------------------------------------------------
# lax.linalg.schur, hessenberg, tridiagonal, tridiagonal_solve (LAPACK on the CPU, as JAX)

def _general(rng, shape, dtype):
  x = rng.normal(size=shape)
  if np.dtype(dtype).kind == "c":
    x = x + 1j * rng.normal(size=shape)
  return x.astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_schur_hessenberg_tridiagonal_match_jax(dtype, rng):
  x = _general(rng, (2, 4, 4), dtype)
  h = (x + np.conj(np.swapaxes(x, -1, -2))).astype(dtype)
  for fn, arg in [(lambda m: m.schur(x), x),
                  (lambda m: m.schur(x, compute_schur_vectors=False), x),
                  (lambda m: m.hessenberg(x), x), (lambda m: m.tridiagonal(h), h),
                  (lambda m: m.tridiagonal(h, lower=False), h)]:
    ours, theirs = fn(lax.linalg), fn(jax.lax.linalg)
    assert len(ours) == len(theirs)
    for out, want in zip(ours, theirs):
      _same(out, want, rtol=1e-4, atol=1e-5)
  t, z = lax.linalg.schur(x)
  check_close(z @ t @ np.conj(np.swapaxes(z, -1, -2)), x, rtol=1e-4, atol=1e-4)
  for out, want in zip(sj.vmap(lax.linalg.schur)(x), jax.vmap(jax.lax.linalg.schur)(x)):
    _same(out, want, rtol=1e-4, atol=1e-5)
  text = sj.jit(lax.linalg.hessenberg).lower(x).as_text()
  assert f"lapack_{'s' if dtype == np.float32 else 'c'}gehrd_ffi" in text


def test_schur_hessenberg_tridiagonal_errors_as_jax():
  with pytest.raises(ValueError, match="must be a square matrix"):
    lax.linalg.schur(np.zeros((2, 3), np.float32))
  with pytest.raises(NotImplementedError, match="sort feature"):
    lax.linalg.schur(np.eye(2, dtype=np.float32), sort_eig_vals=True)
  with pytest.raises(ValueError, match="must be a square matrix"):
    lax.linalg.tridiagonal(np.zeros((0, 0), np.float32))
  with pytest.raises(NotImplementedError, match="schur"):
    sj.grad(lambda x: lax.linalg.schur(x)[0].sum())(np.eye(2, dtype=np.float32))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("perturb_singular", [False, True])
def test_tridiagonal_solve_matches_jax(dtype, perturb_singular, rng):
  dl, du = (_general(rng, (2, 5), dtype) for _ in range(2))
  d = (_general(rng, (2, 5), dtype) + 4).astype(dtype)
  b = _general(rng, (2, 5, 3), dtype)
  kw = dict(perturb_singular=perturb_singular)
  expected = jax.lax.linalg.tridiagonal_solve(dl, d, du, b, **kw)
  _same(lax.linalg.tridiagonal_solve(dl, d, du, b, **kw), expected, rtol=1e-4, atol=1e-5)
  dense = np.array([np.diag(d[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1)
                    for i in range(2)])
  check_close(lax.linalg.tridiagonal_solve(dl, d, du, b), np.linalg.solve(dense, b), rtol=1e-4,
              atol=1e-5)
  in_axes = (None, None, None, 2)
  bs = np.stack([b[0], 2 * b[0]], axis=2)
  _same(sj.vmap(lax.linalg.tridiagonal_solve, in_axes, 2)(dl[0], d[0], du[0], bs),
        jax.vmap(jax.lax.linalg.tridiagonal_solve, in_axes, 2)(dl[0], d[0], du[0], bs),
        rtol=1e-4, atol=1e-5)


def test_tridiagonal_solve_derivatives(rng):
  dl, du = (rng.normal(size=(2, 5)).astype(np.float32) for _ in range(2))
  d = (rng.normal(size=(2, 5)) + 4).astype(np.float32)
  b = rng.normal(size=(2, 5, 3)).astype(np.float32)
  loss = lambda m: lambda *a: (m.tridiagonal_solve(*a) * np.arange(3.0)).sum()
  for out, want in zip(sj.grad(loss(lax.linalg), (0, 1, 2, 3))(dl, d, du, b),
                       jax.grad(loss(jax.lax.linalg), (0, 1, 2, 3))(dl, d, du, b)):
    _same(out, want, rtol=1e-4, atol=1e-5)
  test_util.check_grads(lax.linalg.tridiagonal_solve, (dl, d, du, b), order=1, eps=1e-2,
                        rtol=2e-2, atol=2e-2)
  singular = np.zeros((3,), np.float32)
  assert np.isnan(lax.linalg.tridiagonal_solve(singular, singular, singular,
                                               np.ones((3, 1), np.float32))).all()
  with pytest.raises(TypeError, match="same shape"):
    lax.linalg.tridiagonal_solve(np.zeros(3), np.zeros(2), np.zeros(3), np.ones((3, 1)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4)])
@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False),
                                            (False, True)])
def test_ormqr_matches_jax(dtype, shape, left, transpose, rng):
  a, taus = lax.linalg.geqrf(_general(rng, shape, dtype))
  a, taus = np.asarray(a), np.asarray(taus)
  m = shape[-2]
  c = _general(rng, (*shape[:-2], *((m, 2) if left else (2, m))), dtype)
  kw = dict(left=left, transpose=transpose)
  _same(lax.linalg.ormqr(a, taus, c, **kw), jax.lax.linalg.ormqr(a, taus, c, **kw), rtol=1e-4,
        atol=1e-5)
  with pytest.raises(ValueError, match="same number of"):
    lax.linalg.ormqr(a, taus, np.swapaxes(c, -1, -2)[..., :1, :1], **kw)


@pytest.mark.parametrize("symmetrize_output", [False, True])
def test_symmetric_product_matches_jax(symmetrize_output, rng):
  a, c = rng.normal(size=(2, 3, 4)).astype(np.float32), _spd(rng, (2, 3, 3))
  kw = dict(alpha=2.0, beta=0.5, symmetrize_output=symmetrize_output)
  _same(lax.linalg.symmetric_product(a, c, **kw), jax.lax.linalg.symmetric_product(a, c, **kw),
        rtol=1e-5, atol=1e-5)
  _same(sj.jit(lambda a, c: lax.linalg.symmetric_product(a, c, **kw))(a, c),
        jax.lax.linalg.symmetric_product(a, c, **kw), rtol=1e-5, atol=1e-5)
  with pytest.raises(ValueError, match="symmetric_update expects"):
    lax.linalg.symmetric_product(a, a)


def test_cholesky_update_matches_jax(rng):
  a = _spd(rng, (4, 4)).astype(np.float64)
  r = np.linalg.cholesky(a).T.astype(np.float32)
  w = rng.normal(size=4).astype(np.float32)
  out = lax.linalg.cholesky_update(r, w)
  _same(out, jax.lax.linalg.cholesky_update(r, w), rtol=1e-5, atol=1e-5)
  check_close(np.asarray(out).T @ np.asarray(out), a + np.outer(w, w), rtol=1e-4, atol=1e-4)
  _same(sj.jit(lax.linalg.cholesky_update)(r, w), jax.lax.linalg.cholesky_update(r, w),
        rtol=1e-5, atol=1e-5)
  # batched in a loop (JAX has no batching rule for it)
  ws = np.stack([w, 2 * w])
  _same(sj.vmap(lax.linalg.cholesky_update, (None, 0))(r, ws),
        np.stack([jax.lax.linalg.cholesky_update(r, x) for x in ws]), rtol=1e-5, atol=1e-5)
  with pytest.raises(ValueError, match="same size"):
    lax.linalg.cholesky_update(r, w[:3])
