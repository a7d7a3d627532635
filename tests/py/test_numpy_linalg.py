"""jnp.linalg over the lax.linalg factorizations (solve, inv, det, slogdet, qr, eigh, svd, lstsq,
pinv, matrix_rank, norms, ...) against numpy and JAX: values, dtypes, batching, jit, vmap,
gradients, and singular inputs; and random.multivariate_normal / orthogonal and the orthogonal
initializers, bit for bit against JAX."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import test_util

L, JL = jnp.linalg, jjnp.linalg
FLOATS = [np.float32, np.complex64]


def _same(actual, expected, rtol=None, atol=None):
  """Same pytree, dtypes, shapes, and values within tolerance."""
  a_leaves, e_leaves = jax.tree.leaves(actual), jax.tree.leaves(expected)
  assert len(a_leaves) == len(e_leaves)
  for a, e in zip(a_leaves, e_leaves):
    assert np.asarray(a).dtype == np.asarray(e).dtype
    assert np.shape(a) == np.shape(e)
    test_util.check_close(a, np.asarray(e), rtol=rtol, atol=atol)


def _matrix(rng, shape, dtype=np.float32):
  """Well-conditioned (diagonally dominated) square or rectangular matrices."""
  a = test_util.rand(rng, shape, dtype)
  return (a + 2 * np.eye(*shape[-2:])).astype(dtype)


def _hermitian(rng, shape, dtype=np.float32):
  a = test_util.rand(rng, shape, dtype)
  return (a + np.conj(np.swapaxes(a, -1, -2))).astype(dtype)


def _spd(rng, shape, dtype=np.float32):
  m = test_util.rand(rng, shape, dtype)
  return (m @ np.conj(np.swapaxes(m, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


# ----------------------------------------------------------------------------------------------
# solve, inv, det, slogdet

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("a_shape,b_shape", [((4, 4), (4,)), ((4, 4), (4, 2)),
                                             ((2, 3, 3), (2, 3, 1)), ((2, 3, 3), (3,)),
                                             ((3, 3), (2, 3, 2))])
def test_solve_matches_numpy_and_jax(dtype, a_shape, b_shape, rng):
  a, b = _matrix(rng, a_shape, dtype), test_util.rand(rng, b_shape, dtype)
  out = L.solve(a, b)
  _same(out, JL.solve(a, b), rtol=1e-5, atol=1e-5)
  _same(out, np.linalg.solve(a, b), rtol=1e-4, atol=1e-4)
  _same(sj.jit(L.solve)(a, b), out)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3), (5, 5), (2, 4, 4)])
def test_inv_det_slogdet_match_numpy_and_jax(dtype, shape, rng):
  a = _matrix(rng, shape, dtype)
  _same(L.inv(a), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
  _same(L.inv(a), JL.inv(a), rtol=1e-5, atol=1e-6)
  _same(L.det(a), JL.det(a), rtol=1e-5, atol=1e-6)
  _same(L.det(a), np.linalg.det(a).astype(dtype), rtol=1e-4, atol=1e-5)
  _same(L.slogdet(a), JL.slogdet(a), rtol=1e-5, atol=1e-6)
  sign, logdet = np.linalg.slogdet(a)
  _same(L.slogdet(a), [sign, logdet], rtol=1e-4, atol=1e-5)
  assert type(L.slogdet(a)).__name__ == "SlogdetResult"
  _same(sj.jit(L.det)(a), L.det(a))


def test_slogdet_qr_method(rng):
  a = _matrix(rng, (2, 4, 4))
  _same(L.slogdet(a, method="qr"), JL.slogdet(a, method="qr"), rtol=1e-5, atol=1e-6)
  with pytest.raises(ValueError, match="Unknown slogdet method"):
    L.slogdet(a, method="svd")


def test_float64_and_complex128_against_numpy(x64, rng):
  for dtype in (np.float64, np.complex128):
    a, b = _matrix(rng, (2, 5, 5), dtype), test_util.rand(rng, (2, 5, 3), dtype)
    _same(L.solve(a, b), np.linalg.solve(a, b), rtol=1e-12, atol=1e-12)
    _same(L.inv(a), np.linalg.inv(a), rtol=1e-12, atol=1e-12)
    _same(L.det(a), np.linalg.det(a), rtol=1e-12, atol=1e-12)
    _same(L.slogdet(a), list(np.linalg.slogdet(a)), rtol=1e-12, atol=1e-12)
    _same(L.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False), rtol=1e-12,
          atol=1e-12)
    h = _hermitian(rng, (5, 5), dtype)
    _same(L.eigvalsh(h), np.linalg.eigvalsh(h), rtol=1e-12, atol=1e-12)
    _same(L.pinv(a[0, :, :3]), np.linalg.pinv(a[0, :, :3]), rtol=1e-10, atol=1e-12)


def test_singular_matrices_behave_as_jax():
  """NaN/inf in the same places as JAX under jit (no exceptions), det 0 and slogdet (0, -inf)."""
  a = np.array([[1., 2, 3, 4], [2, 4, 6, 8], [1, 0, 1, 0], [0, 1, 0, 1]], np.float32)
  b = np.ones(4, np.float32)
  for fn, jfn, args in [(L.inv, JL.inv, (a,)), (L.solve, JL.solve, (a, b)),
                        (L.det, JL.det, (a,)), (L.slogdet, JL.slogdet, (a,))]:
    for out, expected in zip(jax.tree.leaves(sj.jit(fn)(*args)), jax.tree.leaves(jfn(*args))):
      np.testing.assert_array_equal(np.isnan(out), np.isnan(expected))
      np.testing.assert_array_equal(np.isinf(out), np.isinf(expected))
      finite = np.isfinite(expected)
      np.testing.assert_allclose(np.asarray(out)[finite], np.asarray(expected)[finite])


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_determinants_of_empty_matrices_as_jax(shape, dtype):
  """The determinant of a 0 x 0 matrix is 1 (slogdet (1, 0)), eagerly, under jit and vmap."""
  a = np.zeros(shape, dtype)
  _same(L.det(a), JL.det(a))
  _same(sj.jit(L.det)(a), JL.det(a))
  _same(sj.vmap(L.det)(a[None]), jax.vmap(JL.det)(a[None]))
  for method in (None, "qr") if dtype == np.float32 else (None,):
    for out, expected in zip(L.slogdet(a, method=method), JL.slogdet(a, method=method)):
      _same(out, expected)
  # JAX's det derivative raises an IndexError at 0 x 0; ours is the (empty) adjugate
  _same(sj.grad(lambda x: L.det(x).real.sum())(a), np.zeros(shape, dtype))
  _same(sj.grad(lambda x: L.slogdet(x)[1].sum())(a),
        jax.grad(lambda x: JL.slogdet(x)[1].sum())(a))


def test_det_grad_of_singular_matrix_is_the_adjugate():
  ones = np.ones((4, 4), np.float32)
  _same(sj.grad(L.det)(ones), jax.grad(JL.det)(ones))
  rank3 = np.diag(np.array([1., 2, 3, 0], np.float32))
  _same(sj.grad(L.det)(rank3), jax.grad(JL.det)(rank3), atol=1e-6)


def test_solve_and_det_vmap(rng):
  a, b = _matrix(rng, (3, 4, 4)), test_util.rand(rng, (3, 4))
  _same(sj.vmap(L.solve)(a, b), np.linalg.solve(a, b[..., None])[..., 0], rtol=1e-4, atol=1e-5)
  _same(sj.vmap(L.solve, in_axes=(None, 0))(a[0], b), np.linalg.solve(a[0], b.T).T,
        rtol=1e-4, atol=1e-5)
  _same(sj.vmap(L.det)(a), JL.det(a), rtol=1e-5)
  _same(sj.vmap(L.slogdet)(a), JL.slogdet(a), rtol=1e-5)
  _same(sj.vmap(L.inv, in_axes=2)(np.moveaxis(a, 0, 2)), JL.inv(a), rtol=1e-5, atol=1e-6)


def test_solve_shape_errors():
  with pytest.raises(ValueError, match="at least two dimensional"):
    L.solve(np.ones(3), np.ones(3))
  with pytest.raises(ValueError, match="batched 1-dimensional solve"):
    L.solve(np.ones((2, 3, 3)), np.ones((2, 3)))
  with pytest.raises(ValueError, match=r"\[\.\.\., n, n\]"):
    L.inv(np.ones((2, 3)))
  with pytest.raises(ValueError, match="do not match"):
    L.solve(np.eye(3), np.ones((4, 2)))


# ----------------------------------------------------------------------------------------------
# qr, eigh, svd and what is built on them

@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr_modes_match_jax_and_numpy(shape, mode, rng):
  a = test_util.rand(rng, shape)
  out = L.qr(a, mode=mode)
  _same(out, JL.qr(a, mode=mode), rtol=1e-5, atol=1e-5)
  if mode in ("reduced", "complete"):
    q, r = out
    _same(q @ r, a, rtol=1e-5, atol=1e-5)
    _same(np.abs(r), np.abs(np.linalg.qr(a, mode=mode)[1]), rtol=1e-4, atol=1e-5)
  with pytest.raises(ValueError, match="Unsupported QR"):
    L.qr(a, mode="economic")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("UPLO", [None, "L", "U"])
def test_eigh_and_eigvalsh(dtype, UPLO, rng):  # noqa: N803
  h = _hermitian(rng, (2, 4, 4), dtype)
  skewed = h + np.triu(np.ones((4, 4), dtype), 1)  # eigh symmetrizes unless told not to
  w, v = L.eigh(skewed, UPLO=UPLO)
  _same((w, v), JL.eigh(skewed, UPLO=UPLO), rtol=1e-4, atol=1e-5)
  _same(L.eigvalsh(skewed, UPLO=UPLO or "L", symmetrize_input=False),
        np.linalg.eigvalsh(skewed, UPLO=UPLO or "L"), rtol=1e-4, atol=1e-4)
  sym = (skewed + np.conj(np.swapaxes(skewed, -1, -2))) / 2
  _same(v @ (w[..., None] * np.conj(np.swapaxes(v, -1, -2))), sym.astype(dtype), atol=1e-4)
  with pytest.raises(ValueError, match="UPLO"):
    L.eigh(h, UPLO="X")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 3, 5)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_and_svdvals(dtype, shape, full_matrices, rng):
  a = test_util.rand(rng, shape, dtype)
  u, s, vh = L.svd(a, full_matrices=full_matrices)
  ju, js, jvh = JL.svd(a, full_matrices=full_matrices)
  _same(s, js, rtol=1e-5, atol=1e-5)
  _same(s, np.linalg.svd(a, compute_uv=False), rtol=1e-4, atol=1e-5)
  assert u.shape == ju.shape and vh.shape == jvh.shape
  k = min(shape[-2:])
  _same((u[..., :k] * s[..., None, :].astype(dtype)) @ vh[..., :k, :], a, atol=1e-4)
  _same(L.svdvals(a), js, rtol=1e-5, atol=1e-5)


def test_svd_hermitian_matches_jax(rng):
  h = _hermitian(rng, (2, 4, 4))
  _same(L.svd(h, hermitian=True), JL.svd(h, hermitian=True), rtol=1e-5, atol=1e-5)
  _same(L.svd(h, hermitian=True, compute_uv=False), JL.svd(h, hermitian=True, compute_uv=False),
        rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
def test_pinv_matrix_rank_cond(shape, rng):
  a = test_util.rand(rng, shape)
  _same(L.pinv(a), np.linalg.pinv(a), rtol=1e-4, atol=1e-5)
  _same(L.pinv(a), JL.pinv(a), rtol=1e-5, atol=1e-5)
  _same(L.pinv(a, rtol=0.5), JL.pinv(a, rtol=0.5), rtol=1e-5, atol=1e-5)
  _same(L.matrix_rank(a), JL.matrix_rank(a))
  low_rank = a[..., :, :1] @ a[..., :1, :]
  _same(L.matrix_rank(low_rank), np.linalg.matrix_rank(low_rank).astype(np.int32))
  _same(L.matrix_rank(low_rank, tol=1e-3), JL.matrix_rank(low_rank, tol=1e-3))
  _same(L.cond(a), JL.cond(a), rtol=1e-4)
  if shape[-1] == shape[-2]:
    for p in (1, -1, np.inf, "fro", -2):
      _same(L.cond(a, p), JL.cond(a, p), rtol=1e-4)


def test_pinv_hermitian_and_rcond(rng):
  h = _hermitian(rng, (4, 4))
  _same(L.pinv(h, hermitian=True), JL.pinv(h, hermitian=True), rtol=1e-5, atol=1e-5)
  _same(L.pinv(h, rcond=0.1), JL.pinv(h, rcond=0.1), rtol=1e-5, atol=1e-5)
  with pytest.raises(ValueError, match="only one of"):
    L.pinv(h, rtol=0.1, rcond=0.1)


@pytest.mark.parametrize("a_shape,b_shape", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 6), (3,)),
                                             ((4, 4), (4, 2))])
def test_lstsq_matches_numpy_and_jax(a_shape, b_shape, rng):
  a, b = test_util.rand(rng, a_shape), test_util.rand(rng, b_shape)
  x, resid, rank, s = L.lstsq(a, b)
  _same((x, resid, rank, s), JL.lstsq(a, b), rtol=1e-4, atol=1e-5)
  nx, _, nrank, ns = np.linalg.lstsq(a, b, rcond=None)
  _same(x, nx, rtol=1e-4, atol=1e-4)
  _same(s, ns, rtol=1e-4, atol=1e-5)
  assert int(rank) == nrank
  _same(L.lstsq(a, b, numpy_resid=True)[1], JL.lstsq(a, b, numpy_resid=True)[1], rtol=1e-4,
        atol=1e-5)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_norm_svd_orders(ord_, rng):
  x = test_util.rand(rng, (2, 3, 4))
  for axis, keepdims in [((1, 2), False), ((2, 0), True), ((0, 1), False)]:
    _same(L.norm(x, ord_, axis=axis, keepdims=keepdims),
          np.linalg.norm(x, ord_, axis=axis, keepdims=keepdims), rtol=1e-5, atol=1e-5)
  _same(L.matrix_norm(x, ord=ord_), JL.matrix_norm(x, ord=ord_), rtol=1e-5)
  _same(L.norm(x[0], ord_), np.linalg.norm(x[0], ord_), rtol=1e-5)


# ----------------------------------------------------------------------------------------------
# Products and the array-API names

@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, -1, -3])
def test_matrix_power(n, rng):
  a = _matrix(rng, (2, 3, 3)) / 2
  _same(L.matrix_power(a, n), JL.matrix_power(a, n), rtol=1e-5, atol=1e-5)
  _same(L.matrix_power(a, n), np.linalg.matrix_power(a, n), rtol=1e-4, atol=1e-4)


def test_matrix_power_errors():
  with pytest.raises(TypeError, match="two-dimensional"):
    L.matrix_power(np.ones(3), 2)
  with pytest.raises(TypeError, match="square"):
    L.matrix_power(np.ones((2, 3)), 2)
  with pytest.raises(TypeError, match="integer"):
    L.matrix_power(np.eye(2), 1.5)


@pytest.mark.parametrize("shapes", [[(3, 5), (5, 2)], [(3,), (3, 5), (5, 2), (2, 6), (6,)],
                                    [(10, 2), (2, 8), (8, 3), (3, 1)]])
def test_multi_dot(shapes, rng):
  arrays = [test_util.rand(rng, s) for s in shapes]
  _same(L.multi_dot(arrays), np.linalg.multi_dot(arrays), rtol=1e-5, atol=1e-5)
  _same(L.multi_dot(arrays), JL.multi_dot(arrays), rtol=1e-5, atol=1e-5)
  with pytest.raises(ValueError, match="at least two"):
    L.multi_dot(arrays[:1])


def test_tensorinv_tensorsolve(rng):
  a = _matrix(rng, (6, 6)).reshape(6, 2, 3)
  _same(L.tensorinv(a, ind=1), np.linalg.tensorinv(a, ind=1), rtol=1e-4, atol=1e-5)
  b = test_util.rand(rng, (6,))
  _same(L.tensorsolve(a, b), np.linalg.tensorsolve(a, b), rtol=1e-4, atol=1e-5)
  a4 = _matrix(rng, (6, 6)).reshape(2, 3, 6)
  _same(L.tensorsolve(a4, b.reshape(2, 3)), JL.tensorsolve(a4, b.reshape(2, 3)), rtol=1e-5,
        atol=1e-5)
  with pytest.raises(ValueError, match="tensorinv"):
    L.tensorinv(np.ones((2, 3, 6)), 1)


def test_array_api_names_and_eig(rng):
  x, y = test_util.rand(rng, (2, 3, 3)), test_util.rand(rng, (2, 3, 3))
  _same(L.cross(x, y), JL.cross(x, y))
  _same(L.outer(x[0, 0], y[0, 0]), JL.outer(x[0, 0], y[0, 0]))
  _same(L.matmul(x, y), JL.matmul(x, y), rtol=1e-6)
  _same(L.vecdot(x, y), JL.vecdot(x, y), rtol=1e-6)
  _same(L.diagonal(x, offset=1), JL.diagonal(x, offset=1))
  _same(L.trace(x), JL.trace(x), rtol=1e-6)
  for out, expected in zip(L.eig(x), JL.eig(x)):
    _same(out, expected, rtol=1e-4, atol=1e-5)
  _same(L.eigvals(x), JL.eigvals(x), rtol=1e-4, atol=1e-5)


def test_every_jax_name_is_there():
  missing = {n for n in dir(JL) if not n.startswith("_")} - set(dir(L))
  assert not missing


def test_jit_and_vmap_of_the_decompositions(rng):
  a = test_util.rand(rng, (3, 4, 4))
  h = a + np.swapaxes(a, -1, -2)
  _same(sj.vmap(L.eigvalsh)(h), JL.eigvalsh(h), rtol=1e-5, atol=1e-5)
  _same(sj.vmap(L.svdvals)(a), JL.svdvals(a), rtol=1e-5, atol=1e-5)
  _same(sj.vmap(lambda m: L.qr(m)[1])(a), JL.qr(a)[1], rtol=1e-5, atol=1e-5)
  _same(sj.vmap(L.pinv)(a), JL.pinv(a), rtol=1e-4, atol=1e-5)
  _same(sj.jit(L.lstsq)(a[0], a[1]), JL.lstsq(a[0], a[1]), rtol=1e-4, atol=1e-5)
  _same(sj.jit(L.matrix_rank)(a), JL.matrix_rank(a))


# ----------------------------------------------------------------------------------------------
# Gradients

GRAD_CASES = {
    "solve": (lambda m, a, b: m.solve(a, b).sum(), "square_rhs"),
    "det": (lambda m, a: m.det(a).sum(), "square"),
    "det3": (lambda m, a: m.det(a[..., :3, :3]).sum(), "square"),
    "slogdet": (lambda m, a: m.slogdet(a)[1].sum(), "square"),
    "inv": (lambda m, a: (m.inv(a) ** 2).sum(), "square"),
    "eigh": (lambda m, a: (m.eigh(a)[0] ** 3).sum(), "square"),
    "svd": (lambda m, a: (m.svd(a, compute_uv=False) ** 3).sum(), "rect"),
    "qr": (lambda m, a: (m.qr(a)[0] * m.qr(a)[1].sum()).sum(), "rect"),
    "qr_complete": (lambda m, a: (m.qr(a, mode="complete")[0] ** 3).sum(), "rect"),
    "pinv": (lambda m, a: (m.pinv(a) ** 2).sum(), "rect"),
    "lstsq": (lambda m, a, b: (m.lstsq(a, b[:, 0])[0] ** 2).sum(), "rect_rhs"),
    "norm2": (lambda m, a: m.norm(a, 2), "rect"),
}


def _grad_args(rng, kind, dtype=np.float32):
  if kind.startswith("square"):
    a = _matrix(rng, (4, 4), dtype)
  else:
    a = test_util.rand(rng, (5, 3), dtype)
  return (a, test_util.rand(rng, (a.shape[0], 2), dtype)) if kind.endswith("rhs") else (a,)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grads_match_jax(name, rng):
  fn, kind = GRAD_CASES[name]
  args = _grad_args(rng, kind)
  argnums = tuple(range(len(args)))
  got = sj.grad(lambda *xs: fn(L, *xs), argnums=argnums)(*args)
  expected = jax.grad(lambda *xs: fn(JL, *xs), argnums=argnums)(*args)
  _same(got, expected, rtol=1e-4, atol=1e-5)
  _same(sj.jit(sj.grad(lambda *xs: fn(L, *xs), argnums=argnums))(*args), got, rtol=1e-5,
        atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["solve", "det", "slogdet", "inv", "eigh", "svd", "qr", "pinv"])
def test_grads_against_finite_differences(name, x64, rng):
  fn, kind = GRAD_CASES[name]
  test_util.check_grads(lambda *xs: fn(L, *xs), _grad_args(rng, kind, np.float64), order=1,
                        rtol=1e-5, atol=1e-6)


def test_det_solve_grads_quick(rng):
  """A fast check of the custom rules (the full matrix is in the slow tests)."""
  a, b = _matrix(rng, (4, 4)), test_util.rand(rng, (4,))
  _same(sj.grad(lambda a: L.det(a))(a), jax.grad(lambda a: JL.det(a))(a), rtol=1e-5)
  _same(sj.grad(lambda a, b: L.solve(a, b).sum(), argnums=(0, 1))(a, b),
        jax.grad(lambda a, b: JL.solve(a, b).sum(), argnums=(0, 1))(a, b), rtol=1e-5)
  _same(sj.jvp(L.slogdet, (a,), (b[:, None] * a,)),
        jax.jvp(JL.slogdet, (a,), (b[:, None] * a,)), rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# random and the orthogonal initializers, bit for bit

KEY = np.array([0, 42], np.uint32)


@pytest.mark.parametrize("method", ["cholesky", "svd", "eigh"])
def test_multivariate_normal_methods_are_bit_identical_to_jax(method, rng):
  cov, mean = _spd(rng, (3, 3)), test_util.rand(rng, (3,))
  got = sj.random.multivariate_normal(KEY, mean, cov, (4,), method=method)
  np.testing.assert_array_equal(got, jax.random.multivariate_normal(
      jax.random.PRNGKey(42), mean, cov, (4,), method=method))


@pytest.mark.parametrize("args", [(3,), (3, (2,)), (2, (), None, 4), (4, (), None, 2)])
def test_random_orthogonal_is_bit_identical_to_jax(args):
  got = sj.random.orthogonal(KEY, *args)
  np.testing.assert_array_equal(got, jax.random.orthogonal(jax.random.PRNGKey(42), *args))
  q = np.asarray(got)
  gram = q @ np.swapaxes(q, -1, -2) if q.shape[-2] < q.shape[-1] else np.swapaxes(q, -1, -2) @ q
  np.testing.assert_allclose(gram, np.broadcast_to(np.eye(gram.shape[-1]), gram.shape),
                             atol=1e-5)


@pytest.mark.parametrize("shape,axis", [((3, 4), -1), ((5, 2), -1), ((2, 3, 4), 0)])
def test_orthogonal_initializers_are_bit_identical_to_jax(shape, axis):
  init, jinit = (m.nn.initializers.orthogonal(2.0, column_axis=axis) for m in (sj, jax))
  np.testing.assert_array_equal(init(KEY, shape), jinit(jax.random.PRNGKey(42), shape))
  delta, jdelta = (m.nn.initializers.delta_orthogonal() for m in (sj, jax))
  np.testing.assert_array_equal(delta(KEY, (3, 2, 4)), jdelta(jax.random.PRNGKey(42), (3, 2, 4)))
