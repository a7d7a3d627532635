"""lax.linalg.eigh and lax.linalg.svd: values against numpy and JAX (vectors up to sign/phase),
batching, jit, vmap, derivatives against JAX and finite differences, NaNs for failures, and the
custom calls (LAPACK on the CPU, cuSOLVER for cuda) against what JAX emits."""
import re

import jax
import numpy as np
import pytest

import stablejax as sj
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

check_close = test_util.check_close
FLOATS = [np.float32, np.complex64]
TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.complex64): 1e-4, np.dtype(np.float64): 1e-10,
       np.dtype(np.complex128): 1e-10}


def _hermitian(rng, shape, dtype):
  """Hermitian matrices with well-separated eigenvalues."""
  q, _ = np.linalg.qr(test_util.rand(rng, shape, dtype))
  w = np.arange(shape[-1], dtype=np.float64) * 2 - shape[-1]
  return ((q * w) @ _adj(q)).astype(dtype)


def _adj(x):
  return np.conj(np.swapaxes(x, -1, -2))


def _same_vectors(actual, expected, tol):
  """Unit columns equal up to sign/phase: |<a_i, e_i>| = 1."""
  overlap = np.abs(np.sum(np.conj(np.asarray(actual)) * expected, axis=-2))
  check_close(overlap, np.ones_like(overlap), rtol=tol, atol=tol)


def _check_types(actual, expected):
  for a, e in zip(actual, expected):
    assert np.asarray(a).dtype == np.asarray(e).dtype and np.shape(a) == np.shape(e)


# ----------------------------------------------------------------------------------------------
# eigh

def _check_eigh(x, v, w):
  tol = TOL[np.asarray(x).dtype]
  v, w = np.asarray(v), np.asarray(w)
  w_ref, v_ref = np.linalg.eigh(x)
  check_close(w, w_ref.astype(w.dtype), rtol=tol, atol=tol)
  _same_vectors(v, v_ref, tol)
  check_close((v * w[..., None, :]) @ _adj(v), x, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 3), (2, 1, 5, 5)])
def test_eigh_matches_numpy_and_jax(dtype, shape, rng):
  x = _hermitian(rng, shape, dtype)
  out = lax.linalg.eigh(x)
  _check_eigh(x, *out)
  _check_types(out, jax.lax.linalg.eigh(x))
  assert np.asarray(out[1]).dtype == np.finfo(dtype).dtype
  _check_eigh(x, *sj.jit(lax.linalg.eigh)(x))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_eigh_x64(dtype, x64, rng):
  x = _hermitian(rng, (2, 4, 4), dtype)
  _check_eigh(x, *lax.linalg.eigh(x))


@pytest.mark.parametrize("lower", [True, False])
def test_eigh_reads_one_triangle_without_symmetrize(lower, rng):
  x = _hermitian(rng, (4, 4), np.complex64)
  junk = np.triu(np.ones((4, 4)), 1) if lower else np.tril(np.ones((4, 4)), -1)
  out = lax.linalg.eigh(x + junk.astype(np.complex64), lower=lower, symmetrize_input=False)
  _check_eigh(x, *out)
  ref = jax.lax.linalg.eigh(x + junk.astype(np.complex64), lower=lower, symmetrize_input=False)
  check_close(out[1], ref[1], rtol=1e-5, atol=1e-5)


def test_eigh_vmap(rng):
  x = _hermitian(rng, (3, 4, 4), np.float32)
  v, w = sj.vmap(lax.linalg.eigh)(x)
  _check_eigh(x, v, w)
  v, w = sj.vmap(lax.linalg.eigh, in_axes=2)(np.moveaxis(x, 0, 2))
  _check_eigh(x, v, w)


def test_eigh_eigenvalue_grad_matches_jax(rng):
  x = _hermitian(rng, (4, 4), np.float32)
  def loss(lib):
    return lambda a: lib.numpy.sum(lib.lax.linalg.eigh(a)[1] * np.arange(4.0))
  check_close(sj.grad(loss(sj))(x), jax.grad(loss(jax))(x), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eigh_eigenvalue_grad_at_degenerate_eigenvalues_as_jax(dtype):
  """At repeated eigenvalues the eigenvector derivative is NaN (JAX's too), but the eigenvalues'
  gradient stays finite: the eigenvectors' zero cotangent is not multiplied through."""
  def eigenvalues(lib):
    return lambda a: (lib.numpy.linalg.eigh(a)[0] * np.arange(3.0)).sum().real
  for x in (np.eye(3, dtype=dtype), np.diag(np.array([1, 1, 2], dtype))):
    expected = jax.grad(eigenvalues(jax))(x)
    assert np.isfinite(expected).all()
    check_close(sj.grad(eigenvalues(sj))(x), expected, rtol=1e-5, atol=1e-6)
    check_close(sj.jit(sj.grad(eigenvalues(sj)))(x), expected, rtol=1e-5, atol=1e-6)
  vectors = lambda lib: lambda a: (abs(lib.numpy.linalg.eigh(a)[1]) ** 2).sum()
  x = np.eye(2, dtype=dtype)
  np.testing.assert_array_equal(np.isnan(sj.grad(vectors(sj))(x)),
                                np.isnan(jax.grad(vectors(jax))(x)))


def test_grad_of_a_jitted_call_skips_its_unused_outputs():
  """As JAX's pjit transpose: an output with a zero cotangent adds nothing, even where its
  derivative is infinite (no 0 * inf = NaN)."""
  def f(lib):
    g = lib.jit(lambda x: (x * 2.0, x * np.float32(np.inf)))
    return lambda x: g(x)[0]
  assert float(sj.grad(f(sj))(np.float32(1.0))) == float(jax.grad(f(jax))(np.float32(1.0))) == 2


def _vector_weights(v):
  """A sign- and phase-invariant function of eigenvectors / singular vectors."""
  return (np.abs(v) ** 2 * np.arange(v.size).reshape(v.shape)).sum()


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_eigh_derivatives_finite_differences(dtype, x64, rng):
  x = _hermitian(rng, (2, 3, 3), dtype)
  test_util.check_grads(lambda a: lax.linalg.eigh(a)[1], (x,), order=1)
  def vectors(a):
    v = lax.linalg.eigh(a)[0]
    return sj.numpy.sum(sj.numpy.abs(v) ** 2 * np.arange(18).reshape(2, 3, 3))
  test_util.check_grads(vectors, (x,), order=1)
  check_close(sj.grad(vectors)(x), jax.grad(lambda a: jax.numpy.sum(jax.numpy.abs(
      jax.lax.linalg.eigh(a)[0]) ** 2 * np.arange(18).reshape(2, 3, 3)))(x), rtol=1e-4,
      atol=1e-4)  # JAX without x64 computes in 32 bits


def test_eigh_nan_input_under_jit(rng):
  x = np.stack([_hermitian(rng, (3, 3), np.float32), np.full((3, 3), np.nan, np.float32)])
  ours, theirs = sj.jit(lax.linalg.eigh)(x), jax.jit(jax.lax.linalg.eigh)(x)
  for a, b in zip(ours, theirs):
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
  assert np.isfinite(np.asarray(ours[1][0])).all()


def test_eigh_reference_and_jaxpr(rng):
  x = _hermitian(rng, (2, 3, 3), np.float32)
  out = lax.linalg.eigh_p.bind(x, lower=True, sort_eigenvalues=True, subset_by_index=None,
                               algorithm=None)
  ref = primitive_kit.evaluate_reference(lax.linalg.eigh_p, x, lower=True, sort_eigenvalues=True,
                                    subset_by_index=None, algorithm=None)
  check_close(out[1], ref[1], rtol=1e-5, atol=1e-5)
  _same_vectors(out[0], ref[0], 1e-4)
  assert str(sj.make_jaxpr(lax.linalg.eigh)(x)) == \
      str(jax.make_jaxpr(jax.lax.linalg.eigh)(x)).replace(" sharding=None", "")


def test_eigh_subset_and_implementations(rng):
  x = _hermitian(rng, (4, 4), np.float32)
  v, w = sj.eval_shape(lambda a: lax.linalg.eigh(a, subset_by_index=(1, 3)), x)
  assert v.shape == (4, 2) and w.shape == (2,)
  with pytest.raises(NotImplementedError, match="subset_by_index"):
    lax.linalg.eigh(x, subset_by_index=(1, 3))
  lax.linalg.eigh(x, subset_by_index=(0, 4))  # the full range is the default decomposition
  _check_eigh(x, *lax.linalg.eigh(x, implementation=lax.linalg.EighImplementation.QR))
  with pytest.raises(NotImplementedError, match="Jacobi"):
    lax.linalg.eigh(x, implementation=lax.linalg.EighImplementation.JACOBI)
  with pytest.raises(NotImplementedError, match="QDWH"):
    lax.linalg.eigh(x, implementation=lax.linalg.EighImplementation.QDWH)
  with pytest.raises(TypeError, match="EighImplementation"):
    lax.linalg.eigh(x, implementation="qr")
  with pytest.raises(ValueError, match="subset_by_index"):
    lax.linalg.eigh(x, subset_by_index=(2, 5))


def test_eigh_errors():
  with pytest.raises(ValueError, match=r"\[..., n, n\]"):
    lax.linalg.eigh(np.ones((2, 3), np.float32), symmetrize_input=False)
  with pytest.raises(TypeError, match="eigh"):
    lax.linalg.eigh(np.eye(2, dtype=np.int32), symmetrize_input=False)
  with pytest.raises(TypeError, match="at least 2-D"):
    lax.linalg.eigh(np.ones(3, np.float32), symmetrize_input=False)


# ----------------------------------------------------------------------------------------------
# svd

def _well_conditioned(rng, shape, dtype):
  """Matrices with distinct singular values from 1 to 2."""
  *batch, m, n = shape
  k = min(m, n)
  u, _ = np.linalg.qr(test_util.rand(rng, (*batch, m, m), dtype))
  v, _ = np.linalg.qr(test_util.rand(rng, (*batch, n, n), dtype))
  return ((u[..., :k] * np.linspace(2, 1, k)) @ _adj(v[..., :k])).astype(dtype)


def _check_svd(x, u, s, vh, full_matrices=True):
  tol = TOL[np.asarray(x).dtype]
  u, s, vh = np.asarray(u), np.asarray(s), np.asarray(vh)
  k = min(x.shape[-2:])
  check_close(s, np.linalg.svd(x, compute_uv=False).astype(s.dtype), rtol=tol, atol=tol)
  check_close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x, rtol=tol, atol=tol * 10)
  for q in (u, _adj(vh)):
    check_close(_adj(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), _adj(q).shape[:-1]
                                             + q.shape[-1:]), rtol=tol, atol=tol * 10)
  u_ref, _, vh_ref = np.linalg.svd(x, full_matrices=full_matrices)
  _same_vectors(u[..., :k], u_ref[..., :k], tol)
  _same_vectors(_adj(vh)[..., :k], _adj(vh_ref)[..., :k], tol)


SVD_SHAPES = [(1, 1), (3, 3), (5, 3), (3, 5), (2, 4, 3), (2, 1, 2, 6)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SVD_SHAPES)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_matches_numpy_and_jax(dtype, shape, full_matrices, rng):
  x = _well_conditioned(rng, shape, dtype)
  out = lax.linalg.svd(x, full_matrices=full_matrices)
  _check_svd(x, *out, full_matrices=full_matrices)
  _check_types(out, jax.lax.linalg.svd(x, full_matrices=full_matrices))
  s = lax.linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
  _check_types([s], [jax.lax.linalg.svd(x, compute_uv=False)])
  check_close(s, out[1])
  _check_svd(x, *sj.jit(lambda a: lax.linalg.svd(a, full_matrices=full_matrices))(x),
             full_matrices=full_matrices)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_svd_x64(dtype, x64, rng):
  x = _well_conditioned(rng, (2, 5, 3), dtype)
  _check_svd(x, *lax.linalg.svd(x))


def test_svd_vmap_and_qr_algorithm(rng):
  x = _well_conditioned(rng, (3, 4, 2), np.float32)
  _check_svd(x, *sj.vmap(lax.linalg.svd)(x))
  _check_svd(x, *sj.vmap(lax.linalg.svd, in_axes=1, out_axes=(0, 0, 0))(np.moveaxis(x, 0, 1)))
  s = sj.vmap(lambda a: lax.linalg.svd(a, compute_uv=False))(x)
  check_close(s, np.linalg.svd(x, compute_uv=False), rtol=1e-5, atol=1e-5)
  _check_svd(x, *lax.linalg.svd(x, algorithm=lax.linalg.SvdAlgorithm.QR))
  _check_svd(x, *lax.linalg.svd(x, algorithm=lax.linalg.SvdAlgorithm.DIVIDE_AND_CONQUER))


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_svd_singular_value_grad_matches_jax(shape, rng):
  x = _well_conditioned(rng, shape, np.float32)
  def loss(lib):
    return lambda a: lib.numpy.sum(lib.lax.linalg.svd(a, compute_uv=False) ** 2
                                   * np.arange(min(shape)))
  check_close(sj.grad(loss(sj))(x), jax.grad(loss(jax))(x), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_svd_derivatives_finite_differences(shape, dtype, x64, rng):
  x = _well_conditioned(rng, shape, dtype)
  test_util.check_grads(lambda a: lax.linalg.svd(a, compute_uv=False), (x,), order=1)
  *batch, m, n = shape
  k = min(m, n)
  weights = [np.arange(np.prod(s)).reshape(s) for s in ((*batch, m, k), (*batch, k, n))]
  def vectors(lib):
    def f(a):
      u, s, vh = lib.lax.linalg.svd(a, full_matrices=False)
      return lib.numpy.sum(lib.numpy.abs(u) ** 2 * weights[0]) + lib.numpy.sum(
          lib.numpy.abs(vh) ** 2 * weights[1]) + lib.numpy.sum(s)
    return f
  test_util.check_grads(vectors(sj), (x,), order=1)
  # JAX without x64 computes in 32 bits
  check_close(sj.grad(vectors(sj))(x), jax.grad(vectors(jax))(x), rtol=1e-4, atol=1e-4)


def test_svd_full_matrices_jvp_needs_square_matrices_as_jax(rng):
  x = _well_conditioned(rng, (4, 3), np.float32)
  with pytest.raises(NotImplementedError, match="full matrices"):
    sj.jvp(lax.linalg.svd, (x,), (x,))
  square = _well_conditioned(rng, (3, 3), np.float32)
  ours, theirs = sj.jvp(lax.linalg.svd, (square,), (square,)), jax.jvp(
      jax.lax.linalg.svd, (square,), (square,))
  check_close(ours[1][1], theirs[1][1], rtol=1e-4, atol=1e-4)


def test_svd_nan_input_under_jit(rng):
  x = np.stack([_well_conditioned(rng, (3, 2), np.float32), np.full((3, 2), np.nan, np.float32)])
  ours, theirs = sj.jit(lax.linalg.svd)(x), jax.jit(jax.lax.linalg.svd)(x)
  for a, b in zip(ours, theirs):
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
  assert np.isfinite(np.asarray(ours[1][0])).all()


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_of_empty_matrices_as_jax(shape, full_matrices):
  x = np.zeros(shape, np.float32)
  ours = lax.linalg.svd(x, full_matrices=full_matrices)
  theirs = jax.lax.linalg.svd(x, full_matrices=full_matrices)
  for a, b in zip(ours, theirs):
    np.testing.assert_array_equal(a, b)
    assert np.asarray(a).dtype == np.asarray(b).dtype


def test_svd_reference_and_jaxpr(rng):
  x = _well_conditioned(rng, (2, 4, 3), np.float32)
  params = dict(full_matrices=False, compute_uv=True, subset_by_index=None, algorithm=None)
  s, u, vh = lax.linalg.svd_p.bind(x, **params)
  s_ref, u_ref, vh_ref = primitive_kit.evaluate_reference(lax.linalg.svd_p, x, **params)
  check_close(s, s_ref, rtol=1e-5, atol=1e-5)
  _same_vectors(u, u_ref, 1e-4)
  _same_vectors(_adj(np.asarray(vh)), _adj(vh_ref), 1e-4)
  assert str(sj.make_jaxpr(lax.linalg.svd)(x)) == \
      str(jax.make_jaxpr(jax.lax.linalg.svd)(x)).replace(" sharding=None", "")


def test_svd_subset_and_algorithm_errors(rng):
  x = _well_conditioned(rng, (4, 3), np.float32)
  with pytest.raises(ValueError, match="full_matrices and subset_by_index"):
    lax.linalg.svd(x, subset_by_index=(0, 2))
  shapes = sj.eval_shape(lambda a: lax.linalg.svd(a, full_matrices=False,
                                                  subset_by_index=(0, 2)), x)
  assert [a.shape for a in shapes] == [(4, 2), (2,), (2, 3)]
  with pytest.raises(NotImplementedError, match="subset_by_index"):
    lax.linalg.svd(x, full_matrices=False, subset_by_index=(0, 2))
  with pytest.raises(NotImplementedError, match="Jacobi and Polar"):
    lax.linalg.svd(x, algorithm=lax.linalg.SvdAlgorithm.JACOBI)
  with pytest.raises(TypeError, match="SvdAlgorithm"):
    lax.linalg.svd(x, algorithm="QR")
  with pytest.raises(TypeError, match="svd"):
    lax.linalg.svd(np.eye(2, dtype=np.int32))


# ----------------------------------------------------------------------------------------------
# Lowering: the custom calls and NaN selects as JAX emits them

def _custom_calls(text):
  """The custom_call ops of a module, without the attributes only one side writes."""
  calls = re.findall(r"stablehlo\.custom_call @.*", text)
  dropped = r', sdy\.sharding_rule = #sdy\.op_sharding_rule<.*?}(, custom)?>| loc\(.*\)$|' \
      r'backend_config = "", '
  return [re.sub(dropped, "", c) for c in calls]


def _ops(text, op):
  return len(re.findall(rf"= stablehlo\.{op} ", text))


CASES = [
    ("eigh", lambda lib: lambda a: lib.lax.linalg.eigh(a, symmetrize_input=False),
     (2, 3, 3), np.float32),
    ("eigh", lambda lib: lambda a: lib.lax.linalg.eigh(a, lower=False, symmetrize_input=False),
     (3, 3), np.complex64),
    ("svd", lambda lib: lib.lax.linalg.svd, (2, 4, 3), np.complex64),
    ("svd", lambda lib: lambda a: lib.lax.linalg.svd(a, full_matrices=False), (3, 5), np.float32),
    ("svd", lambda lib: lambda a: lib.lax.linalg.svd(a, full_matrices=False), (40, 34),
     np.float32),
    ("svd", lambda lib: lambda a: lib.lax.linalg.svd(a, compute_uv=False), (4, 3), np.float32),
    ("svd", lambda lib: lambda a: lib.lax.linalg.svd(a, algorithm=lib.lax.linalg.SvdAlgorithm.QR),
     (3, 5), np.float32),
    ("svd", lambda lib: lambda a: lib.lax.linalg.svd(a, compute_uv=False), (1100, 3), np.float32),
    ("svd", lambda lib: lambda a: lib.lax.linalg.svd(a, full_matrices=False), (3, 1100),
     np.complex64),
    ("svd-gpu", lambda lib: lambda a: lib.lax.linalg.svd(
        a, full_matrices=False, algorithm=lib.lax.linalg.SvdAlgorithm.POLAR), (3, 4), np.float32),
]


@pytest.mark.parametrize("platform", ["cpu", "cuda"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_custom_calls_as_jax_emits(platform, case):
  name, fn, shape, dtype = CASES[case]
  x = np.zeros(shape, dtype)
  if platform == "cpu" and name == "svd-gpu":  # polar is GPU only, in JAX as here
    with pytest.raises(NotImplementedError):
      sj.jit(fn(sj)).lower(x, platform=platform)
    with pytest.raises(NotImplementedError):
      jax.export.export(jax.jit(fn(jax)), platforms=[platform])(x)
    return
  ours = sj.jit(fn(sj)).lower(x, platform=platform).as_text()
  unchecked = [jax.export.DisabledSafetyCheck.custom_call(target)
               for target in re.findall(r"custom_call @(\w+)", ours)]
  theirs = jax.export.export(jax.jit(fn(jax)), platforms=[platform], disabled_checks=unchecked)(
      x).mlir_module()
  assert _custom_calls(ours) == _custom_calls(theirs)
  for op in ("select", "compare", "transpose", "slice", "complex"):
    assert _ops(ours, op) == _ops(theirs, op), op


def test_cpu_lowering_names_the_lapack_routines(rng):
  x = np.zeros((3, 3), np.complex64)
  assert "@lapack_cheevd_ffi" in sj.jit(lax.linalg.eigh).lower(x).as_text()
  assert "@lapack_cgesdd_ffi" in sj.jit(lax.linalg.svd).lower(x).as_text()
  with test_util.x64():
    assert "@lapack_dsyevd_ffi" in sj.jit(lax.linalg.eigh).lower(x.real.astype(np.float64)
                                                                  ).as_text()


# ----------------------------------------------------------------------------------------------
# eig (LAPACK's geev on the CPU)

def _general(rng, shape, dtype):
  x = rng.normal(size=shape)
  if np.dtype(dtype).kind == "c":
    x = x + 1j * rng.normal(size=shape)
  return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("left,right", [(True, True), (False, True), (True, False),
                                        (False, False)])
def test_eig_matches_jax(dtype, left, right, rng):
  x = _general(rng, (2, 4, 4), dtype)
  kw = dict(compute_left_eigenvectors=left, compute_right_eigenvectors=right)
  outs, expected = lax.linalg.eig(x, **kw), jax.lax.linalg.eig(x, **kw)
  assert len(outs) == len(expected) == 1 + left + right
  for out, want in zip(outs, expected):
    assert out.dtype == want.dtype == np.result_type(dtype, np.complex64)
    check_close(out, want, rtol=1e-4, atol=1e-5)
  w, *_, vr = lax.linalg.eig(x)
  check_close(x.astype(w.dtype) @ vr, vr * w[:, None, :], rtol=1e-4, atol=1e-4)
  for out, want in zip(sj.vmap(lambda a: lax.linalg.eig(a, **kw))(x), expected):
    check_close(out, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig_derivatives_match_jax(dtype, rng):
  x = _general(rng, (2, 4, 4), dtype)
  def values(lib):
    return lambda a: abs(lib.lax.linalg.eig(a, compute_left_eigenvectors=False,
                                            compute_right_eigenvectors=False)[0]).sum()
  def vectors(lib, which):
    return lambda a: (abs(lib.lax.linalg.eig(a, enable_eigvec_derivs=True)[which])
                      * np.arange(4.0)).sum()
  check_close(sj.grad(values(sj))(x), jax.grad(values(jax))(x), rtol=1e-3, atol=1e-4)
  for which in (1, 2):
    check_close(sj.grad(vectors(sj, which))(x), jax.grad(vectors(jax, which))(x), rtol=1e-3,
                atol=1e-4)
  with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
    sj.grad(lambda a: abs(lax.linalg.eig(a)[0]).sum())(x)


def test_eig_derivatives_finite_differences(x64, rng):
  x = _general(rng, (3, 3), np.float64)
  test_util.check_grads(lambda a: abs(lax.linalg.eig(a, compute_left_eigenvectors=False,
                                                     compute_right_eigenvectors=False)[0]),
                        (x,), order=1)


def test_jnp_eig_eigvals_match_jax(rng):
  x = _general(rng, (3, 3), np.float32)
  for out, want in zip(sj.numpy.linalg.eig(x), jax.numpy.linalg.eig(x)):
    check_close(out, want, rtol=1e-4, atol=1e-5)
  check_close(sj.numpy.linalg.eigvals(np.eye(3, dtype=np.int32)),
              jax.numpy.linalg.eigvals(np.eye(3, dtype=np.int32)))
  assert sj.numpy.linalg.eigvals(np.eye(3, dtype=np.int32)).dtype == np.complex64
  nan = np.full((2, 2), np.nan, np.float32)
  assert np.isnan(sj.jit(lax.linalg.eig)(nan)[0]).all()
  assert sj.numpy.linalg.eigvals(np.zeros((0, 0), np.float32)).shape == (0,)
  with pytest.raises(ValueError, match="must be a square matrix"):
    lax.linalg.eig(np.zeros((2, 3), np.float32))
  text = sj.jit(lax.linalg.eig).lower(x).as_text()
  assert "lapack_sgeev_ffi" in text and "compute_left = 86 : ui8" in text
