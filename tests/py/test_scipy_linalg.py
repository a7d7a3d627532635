"""jax.scipy.linalg beyond the Cholesky solves: lu, lu_factor, lu_solve, qr, eigh, svd, det, inv,
solve (assume_a), expm, expm_frechet, block_diag, polar; against scipy and JAX, batched, under
jit and vmap, with gradients."""
import jax
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg

import stablejax as sj
import stablejax.scipy.linalg as sl
from stablejax import test_util
from test_numpy_linalg import _matrix, _same


def _spd(rng, shape, dtype=np.float32):
  m = test_util.rand(rng, shape, dtype)
  return (m @ np.conj(np.swapaxes(m, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


# ----------------------------------------------------------------------------------------------
# LU

@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu_matches_scipy_and_jax(dtype, shape, rng):
  a = test_util.rand(rng, shape, dtype)
  p, l, u = sl.lu(a)
  _same((p, l, u), scipy.linalg.lu(a), rtol=1e-4, atol=1e-5)
  _same((p, l, u), jsl.lu(a), rtol=1e-6, atol=1e-6)
  _same(sl.lu(a, permute_l=True), jsl.lu(a, permute_l=True), rtol=1e-6, atol=1e-6)
  _same(p @ l @ u, a, atol=1e-5)


def test_lu_factor_and_lu_solve(rng):
  a, b = _matrix(rng, (4, 4)), test_util.rand(rng, (4, 3))
  lu, piv = sl.lu_factor(a)
  _same((lu, piv), jsl.lu_factor(a))
  slu, spiv = scipy.linalg.lu_factor(a)
  _same(lu, slu, rtol=1e-5, atol=1e-6)
  np.testing.assert_array_equal(piv, spiv)
  for trans in (0, 1, 2):
    for rhs in (b, b[:, 0]):
      _same(sl.lu_solve((lu, piv), rhs, trans=trans),
            scipy.linalg.lu_solve((slu, spiv), rhs, trans=trans), rtol=1e-4, atol=1e-5)
      _same(sl.lu_solve((lu, piv), rhs, trans=trans),
            jsl.lu_solve(jsl.lu_factor(a), rhs, trans=trans), rtol=1e-6, atol=1e-6)
  with pytest.raises(ValueError, match="trans"):
    sl.lu_solve((lu, piv), b, trans=3)


def test_lu_solve_complex_and_batched(rng):
  a = _matrix(rng, (2, 3, 3), np.complex64)
  b = test_util.rand(rng, (2, 3, 2), np.complex64)
  factors = sl.lu_factor(a)
  for trans in (0, 1, 2):
    op = [lambda m: m, lambda m: np.swapaxes(m, -1, -2),
          lambda m: np.conj(np.swapaxes(m, -1, -2))][trans]
    _same(sl.lu_solve(factors, b, trans=trans), np.linalg.solve(op(a), b), rtol=1e-4,
          atol=1e-5)
  _same(sj.vmap(lambda f, p, r: sl.lu_solve((f, p), r))(*factors, b), np.linalg.solve(a, b),
        rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# qr, eigh, svd, det, inv

@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_qr_modes(shape, mode, rng):
  a = test_util.rand(rng, shape)
  out = sl.qr(a, mode=mode)
  assert isinstance(out, tuple) and len(out) == (1 if mode == "r" else 2)
  _same(out, jsl.qr(a, mode=mode), rtol=1e-5, atol=1e-5)
  expected = scipy.linalg.qr(a, mode=mode)
  _same(np.abs(out[-1]), np.abs(expected[-1]), rtol=1e-4, atol=1e-5)
  with pytest.raises(ValueError, match="Unsupported QR"):
    sl.qr(a, mode="reduced")


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(dtype, lower, rng):
  """As JAX (not scipy), a non-Hermitian input is symmetrized, not read from one triangle."""
  a = test_util.rand(rng, (4, 4), dtype)
  h = (a + np.conj(a.T)) / 2
  w, v = sl.eigh(h, lower=lower)
  sw = scipy.linalg.eigh(h, lower=lower, eigvals_only=True)
  _same(w, sw.astype(w.dtype), rtol=1e-4, atol=1e-4)
  _same((w, v), jsl.eigh(h, lower=lower), rtol=1e-5, atol=1e-5)
  _same(sl.eigh(a, lower=lower), jsl.eigh(a, lower=lower), rtol=1e-5, atol=1e-5)
  _same(sl.eigh(h, lower=lower, eigvals_only=True), w)
  with pytest.raises(NotImplementedError, match="b=None"):
    sl.eigh(a, a)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 3, 4)])
def test_svd_det_inv(shape, rng):
  a = test_util.rand(rng, shape)
  _same(sl.svd(a, compute_uv=False), scipy.linalg.svd(a, compute_uv=False), rtol=1e-4,
        atol=1e-5)
  for full in (True, False):
    _same(sl.svd(a, full_matrices=full), jsl.svd(a, full_matrices=full), rtol=1e-5, atol=1e-5)
  if shape[-1] == shape[-2]:
    _same(sl.det(a), jsl.det(a), rtol=1e-5)
    _same(sl.det(a), scipy.linalg.det(a).astype(np.float32), rtol=1e-4)
    _same(sl.inv(a), scipy.linalg.inv(a), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("assume_a", ["gen", "sym", "her", "pos"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_assume_a(assume_a, lower, rng):
  a, b = _spd(rng, (4, 4)), test_util.rand(rng, (4, 2))
  for rhs in (b, b[:, 0]):
    out = sl.solve(a, rhs, assume_a=assume_a, lower=lower)
    _same(out, scipy.linalg.solve(a, rhs, assume_a=assume_a, lower=lower), rtol=1e-4,
          atol=1e-5)
    _same(out, jsl.solve(a, rhs, assume_a=assume_a, lower=lower), rtol=1e-5, atol=1e-6)
  _same(sj.jit(sl.solve, static_argnames="assume_a")(a, b, assume_a=assume_a),
        jsl.solve(a, b, assume_a=assume_a), rtol=1e-5, atol=1e-6)
  with pytest.raises(ValueError, match="assume_a"):
    sl.solve(a, b, assume_a="diagonal")


def test_solve_pos_grads_match_jax(rng):
  """The derivative flows into the whole of `a` (not only the triangle the factor reads)."""
  a, b = _spd(rng, (4, 4)), test_util.rand(rng, (4, 2))
  def loss(m):
    return lambda a, b: (m.solve(a, b, assume_a="pos") ** 2).sum()
  _same(sj.grad(loss(sl), argnums=(0, 1))(a, b), jax.grad(loss(jsl), argnums=(0, 1))(a, b),
        rtol=1e-4, atol=1e-6)


def test_batched_pos_solve(rng):
  a, b = _spd(rng, (3, 4, 4)), test_util.rand(rng, (3, 4, 2))
  _same(sl.solve(a, b, assume_a="pos"), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
  _same(sj.vmap(lambda a, b: sl.solve(a, b, assume_a="pos"))(a, b[..., 0]),
        np.linalg.solve(a, b[..., :1])[..., 0], rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# expm

@pytest.mark.parametrize("scale", [1e-3, 0.1, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_expm_matches_scipy_and_jax(scale, dtype, rng):
  """Every Pade order and some squarings, float32 and complex64."""
  a = (test_util.rand(rng, (4, 4), dtype) * scale).astype(dtype)
  out = sl.expm(a)
  _same(out, jsl.expm(a), rtol=1e-5, atol=1e-6)
  expected = scipy.linalg.expm(a)
  np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_expm_float64_all_orders_against_scipy(x64, rng):
  for scale in (1e-3, 0.1, 0.5, 1.5, 4.0, 50.0):
    a = rng.standard_normal((5, 5)) * scale
    np.testing.assert_allclose(sl.expm(a), scipy.linalg.expm(a), rtol=1e-10,
                               atol=1e-12 * np.abs(scipy.linalg.expm(a)).max())


@pytest.mark.slow
def test_expm_batched_upper_triangular_and_overflow(rng):
  a = test_util.rand(rng, (2, 3, 3))
  _same(sl.expm(a), jsl.expm(a), rtol=1e-5, atol=1e-6)
  _same(sj.vmap(sl.expm)(a), jsl.expm(a), rtol=1e-5, atol=1e-6)
  upper = np.triu(a[0])
  _same(sl.expm(upper, upper_triangular=True), jsl.expm(upper, upper_triangular=True),
        rtol=1e-5, atol=1e-6)
  big = a[0] * 1e6  # needs more than max_squarings squarings: NaNs, as JAX
  np.testing.assert_array_equal(np.isnan(sl.expm(big, max_squarings=4)),
                                np.isnan(jsl.expm(big, max_squarings=4)))
  with pytest.raises(ValueError, match="square"):
    sl.expm(np.ones((2, 3)))


def test_expm_frechet(rng):
  a, e = test_util.rand(rng, (3, 3)), test_util.rand(rng, (3, 3))
  _same(sl.expm_frechet(a, e), jsl.expm_frechet(a, e), rtol=1e-5, atol=1e-6)
  _same(sl.expm_frechet(a, e, compute_expm=False), scipy.linalg.expm_frechet(
      a, e, compute_expm=False).astype(np.float32), rtol=1e-4, atol=1e-5)
  with pytest.raises(ValueError, match="same shape"):
    sl.expm_frechet(np.eye(2), np.eye(3))


@pytest.mark.slow
def test_expm_grads(rng, x64):
  a = test_util.rand(rng, (3, 3)).astype(np.float32)
  def loss(m):
    return lambda a: (m.expm(a) ** 2).sum()
  _same(sj.grad(loss(sl))(a), jax.grad(loss(jsl))(a), rtol=1e-4, atol=1e-5)
  test_util.check_grads(sl.expm, (rng.standard_normal((3, 3)),), order=1, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# block_diag, polar

def test_block_diag(rng):
  parts = [test_util.rand(rng, (2, 3)), np.ones(2, np.int32), np.float32(5.0),
           test_util.rand(rng, (1, 1))]
  _same(sl.block_diag(*parts), jsl.block_diag(*parts))
  _same(sl.block_diag(*parts), scipy.linalg.block_diag(*parts).astype(np.float32))
  _same(sl.block_diag(), jsl.block_diag())
  with pytest.raises(ValueError, match="at most 2"):
    sl.block_diag(np.ones((2, 2, 2)))


@pytest.mark.parametrize("shape,side,method", [((5, 3), "right", "qdwh"), ((3, 5), "left",
                                                "qdwh"), ((4, 4), "left", "svd"),
                                               ((2, 5, 3), "right", "svd")])
def test_polar(shape, side, method, rng):
  a = test_util.rand(rng, shape)
  u, p = sl.polar(a, side=side, method=method)
  _same((u, p), jsl.polar(a, side=side, method=method), rtol=1e-4, atol=1e-5)
  _same(u @ p if side == "right" else p @ u, a, atol=1e-5)
  with pytest.raises(NotImplementedError, match="qdwh"):
    sl.polar(np.ones((3, 5), np.float32), side="right")


def test_jit_of_the_decompositions(rng):
  a = _matrix(rng, (4, 4))
  _same(sj.jit(sl.lu)(a), jsl.lu(a))
  _same(sj.jit(sl.lu_factor)(a), jsl.lu_factor(a))
  _same(sj.jit(sl.expm)(a), jsl.expm(a), rtol=1e-5)
  _same(sj.jit(sl.eigh)(a), jsl.eigh(a), rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# Special matrices

_V = np.arange(1.0, 5.0, dtype=np.float32)
_W = np.array([7.0, 8.0, 9.0], np.float32)
_BATCH = np.random.default_rng(0).normal(size=(2, 4)).astype(np.float32)
_INT = np.arange(1, 5, dtype=np.int32)
_SPECIAL = {
    "toeplitz": (_V,), "toeplitz_r": (_V, _W), "toeplitz_complex": ((_V + 1j * _V),),
    "toeplitz_batch": (_BATCH, _W), "toeplitz_empty": (np.zeros(0, np.float32), _W),
    "hankel": (_V,), "hankel_r": (_V, _W), "hankel_batch": (_BATCH, _W),
    "circulant": (_V,), "circulant_batch": (_BATCH,), "circulant_int": (_INT,),
    "companion": (_V,), "companion_batch": (_BATCH,), "companion_int": (_INT,),
    "fiedler": (_V,), "fiedler_batch": (_BATCH,),
    "fiedler_companion": (np.arange(1.0, 8.0, dtype=np.float32),),
    "fiedler_companion_even": (np.arange(1.0, 7.0, dtype=np.float32),),
    "fiedler_companion_batch": (_BATCH,), "fiedler_companion_2": (_V[:2],),
    "leslie": (_V, _W), "leslie_batch": (_BATCH, _W), "hilbert": (4,), "invhilbert": (4,),
    "pascal": (5,), "pascal_lower": (5, "lower"), "pascal_upper": (5, "upper"),
    "invpascal": (5,), "invpascal_lower": (5, "lower"), "invpascal_upper": (5, "upper"),
    "helmert": (5,), "helmert_full": (5, True), "hadamard": (8,), "hadamard_float": (4, np.float32),
    "dft": (5,), "dft_sqrtn": (5, "sqrtn"), "dft_n": (5, "n"),
}


@pytest.mark.parametrize("case", sorted(_SPECIAL))
def test_special_matrices_match_jax(case):
  name = next(n for n in sorted(sl._special_matrices.__all__, key=len, reverse=True)
              if case.startswith(n))
  args = _SPECIAL[case]
  out, expected = getattr(sl, name)(*args), getattr(jsl, name)(*args)
  _same(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n", [1, 3, 4, 6])
def test_convolution_matrix_matches_jax_and_numpy(mode, n):
  for a in (_V, _BATCH, _W[:1], _INT):
    _same(sl.convolution_matrix(a, n, mode), jsl.convolution_matrix(a, n, mode))
  v = np.arange(1.0, n + 1, dtype=np.float32)
  np.testing.assert_allclose(sl.convolution_matrix(_V, n, mode) @ v, np.convolve(_V, v, mode),
                             rtol=1e-6)


def test_special_matrices_errors_as_jax():
  for fn, args in [("convolution_matrix", (_V, 0)), ("convolution_matrix", (_V, 2, "x")),
                   ("hadamard", (6,)), ("helmert", (0,)), ("dft", (5, "x")),
                   ("leslie", (_V, _V)), ("companion", (_V[:1],)), ("hankel", (3.0,)),
                   ("fiedler_companion", (_V[:0],))]:
    with pytest.raises(ValueError) as ours:
      getattr(sl, fn)(*args)
    with pytest.raises(ValueError) as theirs:
      getattr(jsl, fn)(*args)
    assert str(ours.value) == str(theirs.value)
  with pytest.raises(ValueError, match="complex floating-point"):
    sl.dft(3, dtype=np.float32)
  with pytest.raises(ValueError, match="Expected kind"):
    sl.pascal(3, "x")
  _same(sj.jit(sl.circulant)(_V), jsl.circulant(_V))


# ----------------------------------------------------------------------------------------------
# Schur-based routines: schur, hessenberg, rsf2csf, sqrtm, funm, solve_sylvester, qr_multiply

def _pair(rng):
  a = rng.normal(size=(4, 4)).astype(np.float32)
  return a, (a @ a.T + np.eye(4)).astype(np.float32)


def test_schur_hessenberg_rsf2csf_match_jax(rng):
  a, _ = _pair(rng)
  batch = rng.normal(size=(2, 4, 4)).astype(np.float32)
  for fn in [lambda m: m.schur(a), lambda m: m.schur(a, "complex"),
             lambda m: m.hessenberg(a), lambda m: m.hessenberg(batch, calc_q=True),
             lambda m: m.rsf2csf(*m.schur(a)),
             lambda m: m.rsf2csf(*np.asarray(jax.vmap(jsl.schur)(batch)))]:
    for out, want in zip(jax.tree.leaves(fn(sl)), jax.tree.leaves(fn(jsl))):
      _same(out, want, rtol=1e-4, atol=1e-4)
  h, q = sl.hessenberg(batch, calc_q=True)
  test_util.check_close(q @ h @ np.conj(np.swapaxes(q, -1, -2)), batch, rtol=1e-4, atol=1e-4)
  t, z = sl.rsf2csf(*sl.schur(a))
  test_util.check_close(np.tril(t, -1), np.zeros((4, 4)), atol=1e-6)
  with pytest.raises(ValueError, match="'real' or 'complex'"):
    sl.schur(a, "x")


def test_sqrtm_funm_match_jax_and_scipy(rng):
  a, spd = _pair(rng)
  _same(sl.sqrtm(spd), jsl.sqrtm(spd), rtol=1e-4, atol=1e-4)
  root = sl.sqrtm(a)
  test_util.check_close(root @ root, a.astype(root.dtype), rtol=1e-3, atol=1e-3)
  _same(root, jsl.sqrtm(a), rtol=1e-3, atol=1e-3)
  _same(sl.funm(a, sj.numpy.exp), jsl.funm(a, jax.numpy.exp), rtol=1e-3, atol=1e-3)
  test_util.check_close(sl.funm(a, sj.numpy.exp), scipy.linalg.expm(a), rtol=1e-3, atol=1e-3)
  for out, want in zip(sl.funm(spd, sj.numpy.sin, disp=False),
                       jsl.funm(spd, jax.numpy.sin, disp=False)):
    _same(out, want, rtol=1e-3, atol=1e-3)
  with pytest.raises(NotImplementedError, match="Blocked"):
    sl.sqrtm(a, 2)


@pytest.mark.parametrize("method", ["schur", "eigen"])
def test_solve_sylvester_matches_jax(method, rng):
  a, b = rng.normal(size=(4, 4)).astype(np.float32), rng.normal(size=(3, 3)).astype(np.float32)
  c = rng.normal(size=(4, 3)).astype(np.float32)
  x = sl.solve_sylvester(a, b, c, method=method)
  _same(x, jsl.solve_sylvester(a, b, c, method=method), rtol=1e-3, atol=1e-3)
  test_util.check_close(a @ x + x @ b, c, rtol=1e-3, atol=1e-3)
  eye = np.eye(2, dtype=np.float32)
  assert np.isnan(sl.solve_sylvester(eye, -eye, np.ones((2, 2), np.float32),
                                     method=method)).all()
  with pytest.raises(ValueError, match="Incompatible shapes"):
    sl.solve_sylvester(a, a, c, method=method)


@pytest.mark.parametrize("mode", ["left", "right"])
@pytest.mark.parametrize("conjugate", [False, True])
@pytest.mark.parametrize("shape,dtype", [((5, 3), np.float32), ((3, 5), np.float32),
                                         ((4, 4), np.complex64)])
def test_qr_multiply_matches_jax(mode, conjugate, shape, dtype, rng):
  a = test_util.rand(rng, shape, dtype)
  k = min(shape)
  c = rng.normal(size=(k, 2) if mode == "left" else (2, shape[0])).astype(np.float32)
  for arg in (c, c[:, 0] if mode == "left" else c[0]):
    for out, want in zip(sl.qr_multiply(a, arg, mode, conjugate=conjugate),
                         jsl.qr_multiply(a, arg, mode, conjugate=conjugate)):
      _same(out, want, rtol=1e-4, atol=1e-4)
  with pytest.raises(ValueError, match="not compatible"):
    sl.qr_multiply(a, np.ones((k + 1, 2), np.float32), "left")


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eigh_tridiagonal_matches_jax(dtype, rng):
  d = rng.normal(size=6).astype(dtype)
  e = test_util.rand(rng, (5,), dtype)
  _same(sl.eigh_tridiagonal(d, e, eigvals_only=True),
        jsl.eigh_tridiagonal(d, e, eigvals_only=True), rtol=1e-4, atol=1e-5)
  _same(sl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 3)),
        jsl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 3)),
        rtol=1e-4, atol=1e-5)
  w, v = sl.eigh_tridiagonal(d, e)
  jw, jv = jsl.eigh_tridiagonal(d, e)
  _same(w, jw, rtol=1e-4, atol=1e-5)
  _same(np.abs(v), np.abs(jv), rtol=1e-3, atol=1e-3)  # eigenvectors up to a phase
  dense = np.diag(d) + np.diag(e, 1) + np.diag(np.conj(e), -1)
  test_util.check_close(dense @ v, v * w.astype(v.dtype), rtol=1e-4, atol=1e-4)
  with pytest.raises(NotImplementedError, match="select='v'"):
    sl.eigh_tridiagonal(d, e, select="v", select_range=(0.0, 1.0))
  with pytest.raises(ValueError, match="select_range must be specified"):
    sl.eigh_tridiagonal(d, e, select="i")
  with pytest.raises(TypeError, match="Only float32 and float64"):
    sl.eigh_tridiagonal(np.ones(3, np.int32), np.ones(2, np.int32))


@pytest.mark.parametrize("args", [(np.arange(3.),), (np.arange(3), np.arange(10, 14)),
                                  (np.array([1 + 2j, 3 - 1j], np.complex64),),
                                  (np.arange(6.).reshape(2, 3), np.arange(4.)),
                                  (np.float32(5),), (np.zeros(0), np.ones(2))])
def test_toeplitz_matches_jax(args):
  got, want = sl.toeplitz(*args), jsl.toeplitz(*args)
  assert got.dtype == want.dtype and got.shape == want.shape
  np.testing.assert_array_equal(got, want)
  if len(args) == 1 and np.ndim(args[0]) == 1:
    np.testing.assert_array_equal(got, scipy.linalg.toeplitz(args[0]))
  with pytest.raises(TypeError, match="toeplitz requires ndarray or scalar"):
    sl.toeplitz([1, 2])
