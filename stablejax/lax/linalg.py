"""Linear algebra primitives, as `jax.lax.linalg`: `cholesky` and `triangular_solve`, with their
rules and numpy references. Their lowerings (LAPACK on the CPU, StableHLO elsewhere) live in
`stablejax.lowering.rules.linalg`.

Matrices are the last two axes of an operand; the leading axes are batch axes, equal for every
operand of a primitive."""
from __future__ import annotations

import enum
import importlib
import warnings
from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.shape_poly import canonicalize_dim
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.dot import Precision, batch_matmul
from stablejax.lax.primitive_kit import (check_dtype, def_reference, float_dtypes, real_float_dtypes,
                                        standard_primitive)

__all__ = [
    "cholesky", "cholesky_p", "cholesky_update", "cholesky_update_p", "eig", "eig_p",
    "EigImplementation", "eigh", "eigh_p", "EighImplementation", "geqrf_p", "hessenberg",
    "hessenberg_p", "ormqr", "ormqr_p", "schur", "schur_p", "symmetric_product",
    "symmetric_product_p", "tridiagonal", "tridiagonal_p", "tridiagonal_solve",
    "tridiagonal_solve_p",
    "householder_product", "householder_product_p", "lu", "lu_p", "lu_pivots_to_permutation",
    "lu_pivots_to_permutation_p", "qr", "qr_p", "svd", "svd_p", "SvdAlgorithm", "triangular_solve",
    "triangular_solve_p",
]


# ----------------------------------------------------------------------------------------------
# Helpers shared by the rules

def _check_matrices(name: str, *avals: ShapedArray) -> None:
  """Every operand is a batch of matrices with the same batch shape."""
  for a in avals:
    if a.ndim < 2:
      raise TypeError(f"{name}: operands must be batches of matrices (at least 2-D), got "
                      f"shape {a.shape}")
  if any(a.shape[:-2] != avals[0].shape[:-2] for a in avals[1:]):
    raise ValueError(f"{name}: the operands' batch dimensions differ: "
                     f"{', '.join(str(a.shape) for a in avals)}")


def _triangle(x: Any, lower: bool, k: int = 0) -> Any:
  """`x` with the entries outside its lower (on and below diagonal k) or upper (on and above
  diagonal k) triangle zeroed, as JAX's `_tril`/`_triu`."""
  shape = core.get_aval(x).shape
  n, m = shape[-2:]
  rows = lax.add(lax.broadcasted_iota(np.int32, (n, m), 0), np.int32(k if lower else k - 1))
  mask = lax.ge(rows, lax.broadcasted_iota(np.int32, (n, m), 1))
  zero = lax.full((n, m), 0, core.get_aval(x).dtype)
  if len(shape) > 2:
    dims = (len(shape) - 2, len(shape) - 1)
    mask, zero = (lax.broadcast_in_dim(v, shape, dims) for v in (mask, zero))
  return lax.select_n(mask, zero, x) if lower else lax.select_n(mask, x, zero)


def _op_a(x: Any, transpose_a: bool, conjugate_a: bool) -> Any:
  """op(x): x transposed and/or conjugated as the params say."""
  if transpose_a:
    ndim = core.get_aval(x).ndim
    x = lax.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))
  return lax.conj(x) if conjugate_a else x


def _adjoint(x: Any) -> Any:
  """The conjugate transpose of a batch of matrices."""
  return _op_a(x, True, dtypes.is_complex(core.get_aval(x).dtype))


def _matmul(x: Any, y: Any) -> Any:
  return batch_matmul(x, y, precision=Precision.HIGHEST)


def _per_matrix(fn, x: np.ndarray) -> np.ndarray:
  """Apply `fn` (matrix -> matrix) to each matrix of a batch."""
  flat = x.reshape(-1, *x.shape[-2:])
  return np.stack([fn(m) for m in flat]).reshape(*x.shape[:-2], *flat.shape[-2:]) \
      if len(flat) else np.zeros(x.shape, x.dtype)


def _batch_at_front(prim: core.Primitive):
  """A batching rule for primitives batched over leading axes: every operand's batch axis to
  the front (broadcast where unbatched)."""
  def batcher(axis_data, args, dims, **params):
    size = axis_data.size
    out = prim.bind(*(batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)), **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)
  return batcher


# ----------------------------------------------------------------------------------------------
# cholesky

def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
  """The lower Cholesky factor L of each Hermitian positive-definite matrix (L L^H = x); NaNs
  where a matrix is not positive definite. With `symmetrize_input`, x is first replaced by
  (x + x^H) / 2, as JAX does."""
  if not dtypes.is_inexact(core.get_aval(x).dtype):
    x = lax.convert_element_type(x, dtypes.default_float())
  if symmetrize_input:
    x = symmetrize(x)
  return _triangle(cholesky_p.bind(x), lower=True)


def symmetrize(x: Any) -> Any:
  """(x + x^H) / 2: the Hermitian part of each matrix."""
  return lax.div(lax.add(x, _adjoint(x)), np.array(2, core.get_aval(x).dtype))


def _cholesky_abstract_eval(x: ShapedArray) -> ShapedArray:
  check_dtype("cholesky", float_dtypes, x)
  _check_matrices("cholesky", x)
  if x.shape[-1] != x.shape[-2]:
    raise ValueError(f"The input to cholesky must be a square matrix. Got shape {x.shape}.")
  return ShapedArray(x.shape, x.dtype)


def _hermitian_from_lower(x: Any) -> Any:
  """The Hermitian matrices whose lower triangle is x's (the diagonal's real part)."""
  strict = _triangle(x, lower=True, k=-1)
  diagonal = _triangle(_triangle(x, lower=True), lower=False)
  if dtypes.is_complex(core.get_aval(x).dtype):
    diagonal = lax.convert_element_type(lax.real(diagonal), core.get_aval(x).dtype)
  return lax.add(lax.add(strict, _adjoint(strict)), diagonal)


def _cholesky_jvp(primals, tangents):
  """L' = L Phi(L^-1 X' L^-H), Phi taking the lower triangle with the diagonal halved
  (Murray, arXiv:1602.07527). The factorization reads only the lower triangle of x, so X' is
  the Hermitian matrix of the tangent's lower triangle (as JAX since 0.11)."""
  (x,), (t,) = primals, tangents
  factor = _triangle(cholesky_p.bind(x), lower=True)
  if type(t) is ad.Zero:
    return factor, ad.Zero.from_primal_value(factor)
  t = _hermitian_from_lower(t)
  t_l_inv_h = triangular_solve(factor, t, left_side=False, lower=True, transpose_a=True,
                               conjugate_a=True)
  inner = triangular_solve(factor, t_l_inv_h, left_side=True, lower=True)
  aval = core.get_aval(x)
  halve_diagonal = np.broadcast_to(
      np.where(np.eye(aval.shape[-1], dtype=bool), 0.5, 1.0).astype(aval.dtype), aval.shape)
  return factor, _matmul(factor, lax.mul(_triangle(inner, lower=True), halve_diagonal))


def _cholesky_reference(x: np.ndarray) -> np.ndarray:
  """LAPACK's potrf: L in the lower triangle, the strict upper triangle as given; all NaN for a
  matrix that is not positive definite."""
  def one(m):
    try:
      factor = np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
      return np.full_like(m, np.nan)
    return np.tril(factor) + np.triu(m, 1)
  return _per_matrix(one, x)


cholesky_p = standard_primitive("cholesky", _cholesky_abstract_eval)
def_reference(cholesky_p, _cholesky_reference)
ad.primitive_jvps[cholesky_p] = _cholesky_jvp
batching.fancy_primitive_batchers[cholesky_p] = _batch_at_front(cholesky_p)


# ----------------------------------------------------------------------------------------------
# triangular_solve

def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Any:
  """X with op(a) X = b (`left_side`) or X op(a) = b, for triangular `a` (its `lower` or upper
  triangle; the other is ignored), op transposing and/or conjugating `a` as asked. A `b` with
  one axis fewer than `a` is a single vector."""
  conjugate_a = bool(conjugate_a) and dtypes.is_complex(core.get_aval(a).dtype)
  vector = core.get_aval(b).ndim == core.get_aval(a).ndim - 1
  if vector:
    b = lax.expand_dims(b, (core.get_aval(b).ndim if left_side else core.get_aval(b).ndim - 1,))
  out = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                transpose_a=bool(transpose_a), conjugate_a=conjugate_a,
                                unit_diagonal=bool(unit_diagonal))
  if vector:
    out = lax.squeeze(out, (core.get_aval(out).ndim - (1 if left_side else 2),))
  return out


def _triangular_solve_abstract_eval(a: ShapedArray, b: ShapedArray, *, left_side, **_
                                    ) -> ShapedArray:
  check_dtype("triangular_solve", float_dtypes, a)
  check_dtype("triangular_solve", float_dtypes, b)
  if a.dtype != b.dtype:
    raise TypeError(f"triangular_solve requires operands of the same dtype, got {a.dtype} and "
                    f"{b.dtype}")
  _check_matrices("triangular_solve", a, b)
  if a.shape[-1] != a.shape[-2]:
    raise ValueError("The first input to triangular_solve must be a square matrix. Got shape "
                     f"{a.shape}.")
  if a.shape[-1] != b.shape[-2 if left_side else -1]:
    raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} and "
                     f"{b.shape}.")
  return ShapedArray(b.shape, b.dtype)


def _triangular_solve_jvp_a(t, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
  """d(op(a)^-1 b) = -op(a)^-1 op(t) X (left; X op(t) op(a)^-1 on the right), t restricted to
  the triangle the solve reads."""
  params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
  x = triangular_solve_p.bind(a, b, **params)
  diagonal = 1 if unit_diagonal else 0
  t = _op_a(lax.neg(_triangle(t, lower, -diagonal if lower else diagonal)), transpose_a,
            conjugate_a)
  return triangular_solve_p.bind(a, _matmul(t, x) if left_side else _matmul(x, t), **params)


def _triangular_solve_transpose(ct, a, b, *, transpose_a, **params):
  """Linear in b: the transpose solves with op(a) transposed."""
  if ad.is_undefined_primal(a):
    raise ValueError("triangular_solve is not linear in its first operand")
  return [None, triangular_solve_p.bind(a, ct, transpose_a=not transpose_a, **params)]


def _triangular_solve_reference(a: np.ndarray, b: np.ndarray, *, left_side, lower, transpose_a,
                                conjugate_a, unit_diagonal) -> np.ndarray:
  tri = np.tril(a) if lower else np.triu(a)
  if unit_diagonal:
    tri = tri - tri * np.eye(a.shape[-1]) + np.eye(a.shape[-1], dtype=a.dtype)
  op = np.swapaxes(tri, -1, -2) if transpose_a else tri
  op = np.conj(op) if conjugate_a else op
  if left_side:
    return np.linalg.solve(op, b).astype(b.dtype)
  # X op = b  <=>  op^T X^T = b^T
  return np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)),
                     -1, -2).astype(b.dtype)


triangular_solve_p = standard_primitive("triangular_solve", _triangular_solve_abstract_eval)
def_reference(triangular_solve_p, _triangular_solve_reference)
ad.defjvp(triangular_solve_p, _triangular_solve_jvp_a,
          lambda t, a, b, **params: triangular_solve_p.bind(a, t, **params))
ad.primitive_transposes[triangular_solve_p] = ad.zero_ct_aware(_triangular_solve_transpose)
batching.fancy_primitive_batchers[triangular_solve_p] = _batch_at_front(triangular_solve_p)


# ----------------------------------------------------------------------------------------------
# eigh

class EighImplementation(enum.Enum):
  """Implementation for symmetric/Hermitian eigendecomposition."""
  QR = "qr"
  JACOBI = "jacobi"
  QDWH = "qdwh"


def _index_range(subset_by_index: Any) -> tuple[int, int] | None:
  """`subset_by_index` as a hashable (start, end) pair of ints, or None."""
  if subset_by_index is None:
    return None
  start, end = subset_by_index
  return int(start), int(end)


def _real_dtype(dtype: np.dtype) -> np.dtype:
  return np.dtype(dtypes.finfo(dtype).dtype)


def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index: tuple[int, int] | None = None,
         implementation: EighImplementation | None = None) -> tuple[Any, Any]:
  """(v, w): the eigenvectors (the columns of v) and the ascending real eigenvalues w of each
  Hermitian matrix, read from its `lower` or upper triangle unless `symmetrize_input` first
  replaces x by (x + x^H) / 2. `subset_by_index` (start, end) keeps eigenvalues start..end-1."""
  if symmetrize_input:
    x = symmetrize(x)
  v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                     subset_by_index=_index_range(subset_by_index), algorithm=implementation)
  return v, w


def _eigh_abstract_eval(x: ShapedArray, *, subset_by_index, algorithm, **_) -> list[ShapedArray]:
  check_dtype("eigh", float_dtypes, x)
  _check_matrices("eigh", x)
  n = x.shape[-1]
  if x.shape[-2] != n:
    raise ValueError("Argument to symmetric eigendecomposition must have shape [..., n, n], got "
                     f"shape {x.shape}")
  if algorithm is not None and not isinstance(algorithm, EighImplementation):
    raise TypeError(f"eigh: implementation must be None or a lax.linalg.EighImplementation, got "
                    f"{algorithm!r}")
  d = n
  if subset_by_index is not None:
    start, end = subset_by_index
    if not 0 <= start <= end <= n:
      raise ValueError(f"eigh: subset_by_index {subset_by_index} is not a range of the {n} "
                       "eigenvalues")
    d = end - start
  batch = x.shape[:-2]
  return [ShapedArray((*batch, n, d), x.dtype), ShapedArray((*batch, d), _real_dtype(x.dtype))]


def _diagonal(x: Any) -> Any:
  """The diagonal of each square matrix of a batch."""
  aval = core.get_aval(x)
  eye = np.broadcast_to(np.eye(aval.shape[-1], dtype=aval.dtype), aval.shape)
  return lax.reduce_sum(lax.mul(x, eye), (aval.ndim - 1,))


def _broadcast_vector(x: Any, shape: tuple[int, ...], axis: int) -> Any:
  """A batch of vectors (..., k) broadcast to the matrices `shape`: x_j at [i, j] for axis -1,
  x_i at [i, j] for axis -2."""
  batch = core.get_aval(x).ndim - 1
  return lax.broadcast_in_dim(x, tuple(shape), (*range(batch), batch + 2 + axis))


def _as_dtype_of(x: Any, like: Any) -> Any:
  return lax.convert_element_type(x, core.get_aval(like).dtype)


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  """First-order perturbation theory for distinct eigenvalues, as JAX: w' = diag(V^H A' V) and
  V' = V (F * V^H A' V) with F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it. As JAX, the
  decomposition is of the symmetrized x."""
  (x,), (t,) = primals, tangents
  aval = core.get_aval(x)
  n = aval.shape[-1]
  if subset_by_index not in (None, (0, n)):
    raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
  v, w = eigh_p.bind(symmetrize(x), lower=lower, sort_eigenvalues=sort_eigenvalues,
                     subset_by_index=subset_by_index, algorithm=algorithm)
  if type(t) is ad.Zero:
    return [v, w], [ad.Zero.from_primal_value(v), ad.Zero.from_primal_value(w)]
  w_full = _as_dtype_of(w, x)
  eye = np.broadcast_to(np.eye(n, dtype=aval.dtype), aval.shape)
  gaps = lax.sub(_broadcast_vector(w_full, aval.shape, -1),
                 _broadcast_vector(w_full, aval.shape, -2))  # w_j - w_i
  inverse_gaps = lax.sub(lax.integer_pow(lax.add(gaps, eye), -1), eye)
  projected = _matmul(_matmul(_adjoint(v), t), v)
  return [v, w], [_matmul(v, lax.mul(inverse_gaps, projected)), _diagonal(lax.real(projected))
                  if dtypes.is_complex(aval.dtype) else _diagonal(projected)]


def _eigh_reference(x: np.ndarray, *, lower, subset_by_index, **_) -> list[np.ndarray]:
  w, v = np.linalg.eigh(x, UPLO="L" if lower else "U")
  start, end = subset_by_index or (0, x.shape[-1])
  return [v[..., start:end], w[..., start:end]]


eigh_p = standard_primitive("eigh", _eigh_abstract_eval, multiple_results=True)
def_reference(eigh_p, _eigh_reference)
ad.primitive_jvps[eigh_p] = _eigh_jvp
batching.fancy_primitive_batchers[eigh_p] = _batch_at_front(eigh_p)


# ----------------------------------------------------------------------------------------------
# svd

class SvdAlgorithm(enum.Enum):
  """Enum for SVD algorithm."""
  DEFAULT = "default"
  QR = "QR"
  JACOBI = "Jacobi"
  POLAR = "polar"
  DIVIDE_AND_CONQUER = "divide_and_conquer"


def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None,
        algorithm: SvdAlgorithm | None = None) -> Any:
  """The singular values s (descending) of each matrix, or (u, s, vh) with x = u diag(s) vh when
  `compute_uv`; u and vh square when `full_matrices`, else min(m, n) columns / rows."""
  result = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                      subset_by_index=_index_range(subset_by_index), algorithm=algorithm)
  if compute_uv:
    s, u, vh = result
    return u, s, vh
  return result[0]


def _svd_abstract_eval(x: ShapedArray, *, full_matrices, compute_uv, subset_by_index, algorithm
                       ) -> list[ShapedArray]:
  check_dtype("svd", float_dtypes, x)
  _check_matrices("svd", x)
  if algorithm is not None and not isinstance(algorithm, SvdAlgorithm):
    raise TypeError(f"svd: algorithm must be None or a lax.linalg.SvdAlgorithm, got "
                    f"{algorithm!r}")
  *batch, m, n = x.shape
  rank = min(m, n)
  if subset_by_index is not None:
    if full_matrices and subset_by_index != (0, rank):
      raise ValueError("full_matrices and subset_by_index cannot both be set")
    start, end = subset_by_index
    if not 0 <= start <= end:
      raise ValueError(f"svd: subset_by_index {subset_by_index} is not a range of indices")
    rank = min(rank, end - start)
  s = ShapedArray((*batch, rank), _real_dtype(x.dtype))
  if not compute_uv:
    return [s]
  return [s, ShapedArray((*batch, m, m if full_matrices else rank), x.dtype),
          ShapedArray((*batch, n if full_matrices else rank, n), x.dtype)]


def _reciprocal_or_zero(x: Any) -> Any:
  """1 / x, and 0 where x is 0."""
  zero = lax.convert_element_type(lax.eq(x, lax.full_like(x, 0)), core.get_aval(x).dtype)
  return lax.sub(lax.div(lax.full_like(x, 1), lax.add(x, zero)), zero)


def _divide_columns(x: Any, s: Any) -> Any:
  """Column j of each matrix x divided by s_j."""
  return lax.div(x, _as_dtype_of(_broadcast_vector(s, core.get_aval(x).shape, -1), x))


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
  """The derivative of the reduced SVD, as JAX (Townsend's and Giles's formulas): s' =
  Re diag(U^H A' V), and U', V' from the skew and symmetric parts of U^H A' V, plus the parts
  of A' outside the range of U (m > n) or V (n > m)."""
  (a,), (t,) = primals, tangents
  *_, m, n = core.get_aval(a).shape
  s, u, vh = svd_p.bind(a, full_matrices=False, compute_uv=True,
                        subset_by_index=subset_by_index, algorithm=algorithm)
  if compute_uv and full_matrices and m != n:
    raise NotImplementedError(
        "Singular value decomposition JVP not implemented for full matrices")
  outs = [s, u, vh] if compute_uv else [s]
  if type(t) is ad.Zero:
    return outs, [ad.Zero.from_primal_value(o) for o in outs]
  v = _adjoint(vh)
  ds_full = _matmul(_matmul(_adjoint(u), t), v)
  ds = _diagonal(lax.real(ds_full) if dtypes.is_complex(core.get_aval(a).dtype) else ds_full)
  if not compute_uv:
    return outs, [ds]
  square = core.get_aval(ds_full).shape
  row, col = (_broadcast_vector(s, square, axis) for axis in (-1, -2))  # s_j, s_i at [i, j]
  eye = np.broadcast_to(np.eye(square[-1], dtype=core.get_aval(s).dtype), square)
  gaps = lax.mul(lax.add(row, col), lax.sub(row, col))  # s_j^2 - s_i^2
  f = _as_dtype_of(lax.sub(lax.integer_pow(lax.add(gaps, eye), -1), eye), a)
  ds_s, s_ds = lax.mul(_as_dtype_of(row, a), ds_full), lax.mul(_as_dtype_of(col, a), ds_full)
  s_inv = _as_dtype_of(lax.mul(_broadcast_vector(_reciprocal_or_zero(s), square, -1), eye), a)
  skew = lax.mul(lax.mul(lax.sub(ds_full, _adjoint(ds_full)), s_inv),
                 np.array(0.5, core.get_aval(a).dtype))
  du = _matmul(u, lax.add(lax.mul(f, lax.add(ds_s, _adjoint(ds_s))), skew))
  dv = _matmul(v, lax.mul(f, lax.add(s_ds, _adjoint(s_ds))))
  if m > n:
    t_v = _matmul(t, v)
    du = lax.add(du, _divide_columns(lax.sub(t_v, _matmul(u, _matmul(_adjoint(u), t_v))), s))
  if n > m:
    th_u = _matmul(_adjoint(t), u)
    dv = lax.add(dv, _divide_columns(lax.sub(th_u, _matmul(v, _matmul(vh, th_u))), s))
  return outs, [ds, du, _adjoint(dv)]


def _svd_reference(x: np.ndarray, *, full_matrices, compute_uv, subset_by_index, **_
                   ) -> list[np.ndarray]:
  start, end = subset_by_index or (0, min(x.shape[-2:]))
  if not compute_uv:
    return [np.linalg.svd(x, compute_uv=False)[..., start:end]]
  u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
  if subset_by_index is not None:
    u, vh = u[..., start:end], vh[..., start:end, :]
  return [s[..., start:end], u, vh]


svd_p = standard_primitive("svd", _svd_abstract_eval, multiple_results=True)
def_reference(svd_p, _svd_reference)
ad.primitive_jvps[svd_p] = _svd_jvp
batching.fancy_primitive_batchers[svd_p] = _batch_at_front(svd_p)


# ----------------------------------------------------------------------------------------------
# Helpers of lu and qr

def _eye(shape: tuple[int, ...], dtype: Any) -> Any:
  """Batches of matrices of `shape` (..., m, n) with ones on the main diagonal, zeros elsewhere."""
  nd = len(shape)
  on_diagonal = lax.eq(lax.broadcasted_iota(np.int32, shape, nd - 2),
                       lax.broadcasted_iota(np.int32, shape, nd - 1))
  return lax.convert_element_type(on_diagonal, dtype)


def _permutation_matrix(permutation: Any, dtype: Any) -> Any:
  """The one-hot matrices P with P[i, permutation[i]] = 1 (so P x = x[permutation])."""
  aval = core.get_aval(permutation)
  shape = (*aval.shape, aval.shape[-1])
  rows = lax.broadcast_in_dim(permutation, shape, tuple(range(aval.ndim)))
  return lax.convert_element_type(lax.eq(rows, lax.broadcasted_iota(np.int32, shape, aval.ndim)),
                                  dtype)


def _block(x: Any, rows: tuple[int, int], cols: tuple[int, int]) -> Any:
  """x[..., rows[0]:rows[1], cols[0]:cols[1]]."""
  ndim = core.get_aval(x).ndim
  return lax.slice_in_dim(lax.slice_in_dim(x, *rows, axis=ndim - 2), *cols, axis=ndim - 1)


def _pad_matrices(x: Any, rows: int, cols: int, before: bool = False) -> Any:
  """x with `rows` zero rows and `cols` zero columns added after (or `before`) its own."""
  aval = core.get_aval(x)
  config = [(0, 0, 0)] * (aval.ndim - 2) + [(rows, 0, 0) if before else (0, rows, 0),
                                             (cols, 0, 0) if before else (0, cols, 0)]
  return lax.pad(x, np.zeros((), aval.dtype), config)


def _not_differentiable(name: str):
  """A JVP rule raising JAX's error for a primitive JAX does not differentiate."""
  def jvp(primals, tangents, **params):
    raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")
  return jvp


# ----------------------------------------------------------------------------------------------
# lu

def lu(x: Any) -> tuple[Any, Any, Any]:
  """LU decomposition with partial pivoting, P x = L U, of each matrix (..., m, n): `(lu,
  pivots, permutation)` with unit-diagonal L below and U on and above the diagonal of `lu`, and
  the row swaps as int32 `pivots` (..., min(m, n)) and as a `permutation` (..., m)."""
  lu_, pivots, permutation = lu_p.bind(x)
  return lu_, pivots, permutation


def _lu_abstract_eval(x: ShapedArray) -> list[ShapedArray]:
  check_dtype("lu", float_dtypes, x)
  _check_matrices("lu", x)
  *batch, m, n = x.shape
  return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, min(m, n)), np.dtype(np.int32)),
          ShapedArray((*batch, m), np.dtype(np.int32))]


def _lu_jvp(primals, tangents):
  """L' = L tril(X, -1), U' = triu(X) U with X = L^-1 P A' U^-1 (de Hoog, Anderssen and Lukas),
  L padded to m x m and U to n x n with identity blocks for rectangular matrices."""
  (a,), (t,) = primals, tangents
  outs = lu_p.bind(a)
  lu_, _, permutation = outs
  if type(t) is ad.Zero:
    return outs, [ad.Zero.from_primal_value(o) for o in outs]
  aval = core.get_aval(a)
  *batch, m, n = aval.shape
  k = min(m, n)
  lower = lax.add(_pad_matrices(_triangle(_block(lu_, (0, m), (0, k)), True, -1), 0, m - k),
                  _eye((*batch, m, m), aval.dtype))
  upper = lax.add(_pad_matrices(_triangle(_block(lu_, (0, k), (0, n)), False), n - k, 0),
                  _pad_matrices(_eye((*batch, n - k, n - k), aval.dtype), k, k, before=True))
  permuted = _matmul(_permutation_matrix(permutation, aval.dtype), t)
  la = triangular_solve(lower, permuted, left_side=True, lower=True, unit_diagonal=True)
  lau = triangular_solve(upper, la, left_side=False, lower=False)
  lu_dot = lax.add(_matmul(lower, _triangle(lau, True, -1)), _matmul(_triangle(lau, False), upper))
  return outs, [lu_dot, ad.Zero.from_primal_value(outs[1]), ad.Zero.from_primal_value(outs[2])]


def _lu_one(a: np.ndarray) -> list[np.ndarray]:
  """LAPACK's getrf on one matrix: the pivot of column j is the first row at or below j with the
  largest |re| + |im|."""
  a = np.array(a)
  m, n = a.shape
  pivots = np.zeros(min(m, n), np.int32)
  for j in range(min(m, n)):
    p = j + int(np.argmax(np.abs(a[j:, j].real) + np.abs(a[j:, j].imag)))
    pivots[j] = p
    a[[j, p]] = a[[p, j]]
    if a[j, j] != 0:
      a[j + 1:, j] /= a[j, j]
    a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
  return [a, pivots, _lu_permutation_one(pivots, m)]


def _lu_permutation_one(pivots: np.ndarray, size: int) -> np.ndarray:
  permutation = np.arange(size, dtype=np.int32)
  for i, p in enumerate(pivots):
    permutation[[i, p]] = permutation[[p, i]]
  return permutation


def _lu_reference(x: np.ndarray) -> list[np.ndarray]:
  *batch, m, n = x.shape
  outs = [np.zeros(x.shape, x.dtype), np.zeros((*batch, min(m, n)), np.int32),
          np.zeros((*batch, m), np.int32)]
  for index in np.ndindex(*batch):
    for out, value in zip(outs, _lu_one(x[index])):
      out[index] = value
  return outs


lu_p = standard_primitive("lu", _lu_abstract_eval, multiple_results=True)
def_reference(lu_p, _lu_reference)
ad.primitive_jvps[lu_p] = _lu_jvp
batching.fancy_primitive_batchers[lu_p] = _batch_at_front(lu_p)


# ----------------------------------------------------------------------------------------------
# lu_pivots_to_permutation

def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
  """The permutation (..., permutation_size) made by applying the row swaps `pivots` (..., k),
  in order, to the identity permutation."""
  return lu_pivots_to_permutation_p.bind(
      pivots, permutation_size=canonicalize_dim(permutation_size, "permutation_size"))


def _lu_pivots_to_permutation_abstract_eval(pivots: ShapedArray, *, permutation_size
                                            ) -> ShapedArray:
  if pivots.dtype != np.int32:
    raise TypeError(f"lu_pivots_to_permutation does not accept dtype {pivots.dtype}. Accepted "
                    "dtypes are subtypes of int32.")
  if pivots.ndim < 1:
    raise TypeError("Input 0 to lu_pivots_to_permutation must have rank at least 1, but got "
                    f"shape={pivots.shape}")
  if permutation_size < pivots.shape[-1]:
    raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing "
                     f"dimension of the pivots. Got pivots size {pivots.shape[-1]}")
  return ShapedArray((*pivots.shape[:-1], permutation_size), pivots.dtype)


def lu_pivots_to_permutation_impl(pivots: Any, *, permutation_size: int) -> Any:
  """lu_pivots_to_permutation as a loop of swaps written with lax ops (JAX's generic lowering):
  swap i exchanges permutation[i] and permutation[pivots[i]], one-hot over the batch."""
  aval = core.get_aval(pivots)
  axis = aval.ndim - 1
  shape = (*aval.shape[:-1], permutation_size)
  index = lax.broadcasted_iota(np.int32, shape, axis)
  if permutation_size == 0 or aval.shape[-1] == 0:
    return index

  def swap(i, permutation):
    j = lax.broadcast_in_dim(lax.dynamic_index_in_dim(pivots, i, axis, keepdims=False), shape,
                             tuple(range(axis)))
    at_i, at_j = lax.eq(index, lax.full(shape, i, np.int32)), lax.eq(index, j)
    zeros = lax.full(shape, 0, np.int32)
    x = lax.reduce_sum(lax.select_n(at_i, zeros, permutation), (axis,))
    y = lax.reduce_sum(lax.select_n(at_j, zeros, permutation), (axis,))
    x, y = (lax.broadcast_in_dim(v, shape, tuple(range(axis))) for v in (x, y))
    return lax.select_n(at_i, lax.select_n(at_j, permutation, x), y)

  return lax.fori_loop(np.int32(0), lax.dimension_as_scalar(aval.shape[-1], np.int32), swap,
                       index)


def _lu_pivots_to_permutation_reference(pivots: np.ndarray, *, permutation_size) -> np.ndarray:
  out = np.zeros((*pivots.shape[:-1], permutation_size), np.int32)
  for index in np.ndindex(*pivots.shape[:-1]):
    out[index] = _lu_permutation_one(pivots[index], permutation_size)
  return out


lu_pivots_to_permutation_p = standard_primitive("lu_pivots_to_permutation",
                                                _lu_pivots_to_permutation_abstract_eval)
def_reference(lu_pivots_to_permutation_p, _lu_pivots_to_permutation_reference)
ad.defjvp_zero(lu_pivots_to_permutation_p)
batching.fancy_primitive_batchers[lu_pivots_to_permutation_p] = _batch_at_front(
    lu_pivots_to_permutation_p)


# ----------------------------------------------------------------------------------------------
# geqrf

def geqrf(a: Any) -> tuple[Any, Any]:
  """LAPACK's geqrf of each matrix (..., m, n): `(a, taus)`, R in the upper triangle of `a`, Q
  as Householder reflectors below the diagonal with their scales `taus` (..., min(m, n))."""
  a_out, taus = geqrf_p.bind(a)
  return a_out, taus


def _geqrf_abstract_eval(a: ShapedArray) -> list[ShapedArray]:
  check_dtype("geqrf", float_dtypes, a)
  _check_matrices("geqrf", a)
  *batch, m, n = a.shape
  return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, min(m, n)), a.dtype)]


def _geqrf_reference(a: np.ndarray) -> list[np.ndarray]:
  *batch, m, n = a.shape
  flat = [np.linalg.qr(x, mode="raw") for x in a.reshape(-1, m, n)]
  return [np.array([h.T for h, _ in flat]).reshape(a.shape),
          np.array([tau for _, tau in flat]).reshape(*batch, min(m, n))]


geqrf_p = standard_primitive("geqrf", _geqrf_abstract_eval, multiple_results=True)
def_reference(geqrf_p, _geqrf_reference)
ad.primitive_jvps[geqrf_p] = _not_differentiable("geqrf")
batching.fancy_primitive_batchers[geqrf_p] = _batch_at_front(geqrf_p)


# ----------------------------------------------------------------------------------------------
# householder_product

def householder_product(a: Any, taus: Any) -> Any:
  """The first n columns of the product H_1 ... H_k of the Householder reflectors stored below
  the diagonal of each matrix `a` (..., m, n), m >= n, with scales `taus` (..., k), k <= n
  (LAPACK's orgqr/ungqr)."""
  return householder_product_p.bind(a, taus)


def _householder_product_abstract_eval(a: ShapedArray, taus: ShapedArray) -> ShapedArray:
  check_dtype("householder_product", float_dtypes, a)
  if a.dtype != taus.dtype:
    raise TypeError(f"householder_product requires operands of the same dtype, got {a.dtype} "
                    f"and {taus.dtype}")
  _check_matrices("householder_product", a)
  if taus.ndim != a.ndim - 1 or taus.shape[:-1] != a.shape[:-2]:
    raise ValueError(f"householder_product: taus of shape {taus.shape} do not match the batch "
                     f"of matrices of shape {a.shape}")
  m, n = a.shape[-2:]
  if m < n:
    raise ValueError("The first argument to householder_product must have at least as many "
                     f"rows as columns, got shape {a.shape}")
  if taus.shape[-1] > min(m, n):
    raise ValueError("The second argument to householder_product must not have more rows than "
                     "the minimum of the first argument's rows and columns.")
  return ShapedArray(a.shape, a.dtype)


def _householder_product_one(a: np.ndarray, taus: np.ndarray) -> np.ndarray:
  m, n = a.shape
  q = np.eye(m, dtype=a.dtype)
  for i, tau in enumerate(taus):
    v = np.concatenate([np.zeros(i, a.dtype), np.ones(1, a.dtype), a[i + 1:, i]])
    q = q @ (np.eye(m, dtype=a.dtype) - tau * np.outer(v, np.conj(v)))
  return q[:, :n]


def _householder_product_reference(a: np.ndarray, taus: np.ndarray) -> np.ndarray:
  m, n = a.shape[-2:]
  flat = zip(a.reshape(-1, m, n), taus.reshape(-1, taus.shape[-1]))
  return np.array([_householder_product_one(x, t) for x, t in flat]).reshape(a.shape)


householder_product_p = standard_primitive("householder_product",
                                           _householder_product_abstract_eval)
def_reference(householder_product_p, _householder_product_reference)
ad.primitive_jvps[householder_product_p] = _not_differentiable("householder_product")
batching.fancy_primitive_batchers[householder_product_p] = _batch_at_front(householder_product_p)


# ----------------------------------------------------------------------------------------------
# qr

def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True,
       use_magma: bool | None = None) -> tuple[Any, ...]:
  """QR decomposition x = Q R of each matrix (..., m, n): `(q, r)`, q unitary (..., m, m) and r
  upper triangular (..., m, n), or with `full_matrices=False` (..., m, k) and (..., k, n), k =
  min(m, n). Column pivoting (`pivoting=True`, returning `(q, r, p)`) is not supported yet."""
  q, r, *p = qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices),
                       use_magma=use_magma)
  return (q, r, p[0]) if pivoting else (q, r)


def _qr_abstract_eval(x: ShapedArray, *, pivoting, full_matrices, use_magma
                      ) -> list[ShapedArray]:
  check_dtype("qr", float_dtypes, x)
  _check_matrices("qr", x)
  if pivoting:
    raise NotImplementedError("lax.linalg.qr: pivoting=True (column-pivoted QR, geqp3) is not "
                              "supported by stablejax yet")
  *batch, m, n = x.shape
  k = m if full_matrices else min(m, n)
  return [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]


def qr_impl(x: Any, *, pivoting: bool, full_matrices: bool, use_magma: bool | None
            ) -> list[Any]:
  """qr as JAX computes it: geqrf, then Q from the reflectors with householder_product (the
  reflectors zero-padded to m columns for the full Q of a tall matrix)."""
  aval = core.get_aval(x)
  *batch, m, n = aval.shape
  if m == 0 or n == 0:
    k = m if full_matrices else min(m, n)
    return [_eye((*batch, m, k), aval.dtype), lax.full((*batch, k, n), 0, aval.dtype)]
  r, taus = geqrf(x)
  if m < n:
    q = householder_product(_block(r, (0, m), (0, m)), taus)
  elif full_matrices:
    q = householder_product(_pad_matrices(r, 0, m - n), taus)
  else:
    q = householder_product(r, taus)
    r = _block(r, (0, n), (0, n))
  return [q, _triangle(r, lower=False)]


def _diagonal_part(x: Any) -> Any:
  """The diagonal matrices of the diagonals of a batch of square matrices."""
  return _triangle(_triangle(x, lower=True), lower=False)


def _thin_qr_jvp(q: Any, r: Any, dx: Any) -> tuple[Any, Any]:
  """Q' and R' of x = Q R for m >= n, Q m x n and R n x n (J. Townsend's derivation, as JAX)."""
  dx_rinv = triangular_solve(r, dx)
  qt_dx_rinv = _matmul(_adjoint(q), dx_rinv)
  strictly_lower = _triangle(qt_dx_rinv, lower=True, k=-1)
  do = lax.sub(strictly_lower, _adjoint(strictly_lower))  # skew-Hermitian
  dtype = core.get_aval(q).dtype
  if dtypes.is_complex(dtype):
    imaginary = lax.sub(qt_dx_rinv, lax.convert_element_type(lax.real(qt_dx_rinv), dtype))
    do = lax.add(do, _diagonal_part(imaginary))
  dq = lax.add(_matmul(q, lax.sub(do, qt_dx_rinv)), dx_rinv)
  dr = _matmul(lax.sub(qt_dx_rinv, do), r)
  return dq, dr


def _lu_solve_adjoint(lu_: Any, permutation: Any, b: Any) -> Any:
  """X with A^H X = b, where P A = L U is `lu_` with `permutation` (A^H = U^H L^H P)."""
  y = triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
  z = triangular_solve(lu_, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True,
                       unit_diagonal=True)
  return _matmul(_adjoint(_permutation_matrix(permutation, core.get_aval(b).dtype)), z)


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
  """As JAX: the thin-QR derivative; for wide matrices the square block's, then R2' = Q'^H X2 +
  Q^H X2'; for the full Q of a tall matrix the extra columns from arXiv:2409.13374 (eqs 32-33)."""
  (x,), (dx,) = primals, tangents
  q, r = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
  if type(dx) is ad.Zero:
    return [q, r], [ad.Zero.from_primal_value(q), ad.Zero.from_primal_value(r)]
  *batch, m, n = core.get_aval(x).shape
  if m < n:
    dq, dr1 = _thin_qr_jvp(q, _block(r, (0, m), (0, m)), _block(dx, (0, m), (0, m)))
    dr2 = lax.add(_matmul(_adjoint(dq), _block(x, (0, m), (m, n))),
                  _matmul(_adjoint(q), _block(dx, (0, m), (m, n))))
    return [q, r], [dq, lax.concatenate([dr1, dr2], len(batch) + 1)]
  q_mn = _block(q, (0, m), (0, n))
  dq_mn, dr_nn = _thin_qr_jvp(q_mn, _block(r, (0, n), (0, n)), dx)
  if not full_matrices or m == n:
    return [q, r], [dq_mn, dr_nn]
  q_nn, q_pn = _block(q_mn, (0, n), (0, n)), _block(q_mn, (n, m), (0, n))
  q_mp = _block(q, (0, m), (n, m))
  dq_nn, dq_pn = _block(dq_mn, (0, n), (0, n)), _block(dq_mn, (n, m), (0, n))
  lu_, _, permutation = lu(lax.sub(q_nn, _eye(core.get_aval(q_nn).shape, core.get_aval(q).dtype)))
  z_pn_h = _lu_solve_adjoint(lu_, permutation, _adjoint(q_pn))
  z_pn = _adjoint(z_pn_h)
  dq_mp = lax.sub(_matmul(dq_mn, z_pn_h),
                  _matmul(lax.add(q_mn, _matmul(q_mp, z_pn)),
                          _adjoint(lax.sub(dq_pn, _matmul(z_pn, dq_nn)))))
  return [q, r], [lax.concatenate([dq_mn, dq_mp], len(batch) + 1), _pad_matrices(dr_nn, m - n, 0)]


def _qr_reference(x: np.ndarray, *, pivoting, full_matrices, use_magma) -> list[np.ndarray]:
  q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
  return [q, r]


qr_p = standard_primitive("qr", _qr_abstract_eval, multiple_results=True)
def_reference(qr_p, _qr_reference)
ad.primitive_jvps[qr_p] = _qr_jvp
batching.fancy_primitive_batchers[qr_p] = _batch_at_front(qr_p)

# ----------------------------------------------------------------------------------------------
# eig

class EigImplementation(enum.Enum):
  """Implementation for nonsymmetric eigendecomposition."""
  CUSOLVER = "cusolver"
  MAGMA = "magma"
  LAPACK = "lapack"


def eig(x: Any, *, compute_left_eigenvectors: bool = True,
        compute_right_eigenvectors: bool = True, enable_eigvec_derivs: bool = False,
        implementation: EigImplementation | None = None, use_magma: bool | None = None
        ) -> list[Any]:
  """[w, vl, vr]: the complex eigenvalues of each square matrix, and (as asked) its left and
  right eigenvectors, each of unit 2-norm with its largest component real (LAPACK's geev).
  Eigenvector derivatives need `enable_eigvec_derivs` (valid for distinct eigenvalues only)."""
  if use_magma is not None:
    warnings.warn("use_magma is deprecated, please use implementation=EigImplementation.MAGMA "
                  "instead.", DeprecationWarning, stacklevel=2)
    implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
  return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                    compute_right_eigenvectors=bool(compute_right_eigenvectors),
                    enable_eigvec_derivs=bool(enable_eigvec_derivs),
                    implementation=implementation)


def _complex_dtype(dtype: np.dtype) -> np.dtype:
  return np.result_type(dtype, np.complex64)


def _eig_abstract_eval(x: ShapedArray, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       **_) -> list[ShapedArray]:
  check_dtype("eig", float_dtypes, x)
  _check_matrices("eig", x)
  if x.shape[-1] != x.shape[-2]:
    raise ValueError(f"The input to eig must be a square matrix. Got shape {x.shape}.")
  dtype = _complex_dtype(x.dtype)
  count = compute_left_eigenvectors + compute_right_eigenvectors
  return [ShapedArray(x.shape[:-1], dtype)] + [ShapedArray(x.shape, dtype)] * count


def _lu_solve(a: Any, b: Any) -> Any:
  """a^-1 b for batches of square matrices, by LU with partial pivoting."""
  lu_, _, permutation = lu(a)
  b = _matmul(_permutation_matrix(permutation, core.get_aval(b).dtype), b)
  y = triangular_solve(lu_, b, left_side=True, lower=True, unit_diagonal=True)
  return triangular_solve(lu_, y, left_side=True, lower=False)


def _eigenvector_jvp(w: Any, v: Any, t: Any) -> tuple[Any, Any]:
  """(w', v') by nondegenerate perturbation theory, v' under geev's normalization (unit norm,
  largest-magnitude component real), as JAX."""
  aval = core.get_aval(v)
  eye = _eye(aval.shape, aval.dtype)
  gaps = lax.sub(_broadcast_vector(w, aval.shape, -1), _broadcast_vector(w, aval.shape, -2))
  inverse_gaps = lax.sub(lax.div(lax.full_like(eye, 1), lax.add(eye, gaps)), eye)
  p = _matmul(_lu_solve(v, t), v)
  u = _matmul(v, lax.mul(inverse_gaps, p))
  rows = aval.ndim - 2
  k = lax.argmax(lax.abs(v), rows, np.int32)
  mask = lax.convert_element_type(
      lax.eq(lax.broadcasted_iota(np.int32, aval.shape, rows),
             lax.broadcast_in_dim(k, aval.shape, (*range(rows), rows + 1))), aval.dtype)
  column_sum = lambda y: lax.reduce_sum(y, (rows,))
  c = lax.complex(lax.neg(lax.real(column_sum(lax.mul(lax.conj(v), u)))),
                  lax.neg(lax.div(lax.imag(column_sum(lax.mul(mask, u))),
                                  lax.real(column_sum(lax.mul(mask, v))))))
  return _diagonal(p), lax.add(u, lax.mul(v, _broadcast_vector(c, aval.shape, -1)))


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
  """w' = diag(V^-1 A' V); the eigenvectors' derivatives only with `enable_eigvec_derivs`."""
  (a,), (t,) = primals, tangents
  if (compute_left_eigenvectors or compute_right_eigenvectors) and not enable_eigvec_derivs:
    raise NotImplementedError(
        "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
        "input that JAX cannot check (see the enable_eigvec_derivs argument to "
        "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. "
        "See https://github.com/jax-ml/jax/issues/2748 for discussion.")
  outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                    compute_right_eigenvectors=True, enable_eigvec_derivs=enable_eigvec_derivs,
                    implementation=implementation)
  w, vr = outs[0], outs[-1]
  t = lax.convert_element_type(ad.instantiate_zeros(t), core.get_aval(vr).dtype)
  if not (compute_left_eigenvectors or compute_right_eigenvectors):
    return [w], [_diagonal(_matmul(_lu_solve(vr, t), vr))]
  dw, dvr = _eigenvector_jvp(w, vr, t)
  primal_out, tangent_out = [w], [dw]
  if compute_left_eigenvectors:
    primal_out.append(outs[1])
    tangent_out.append(_eigenvector_jvp(lax.conj(w), outs[1], _adjoint(t))[1])
  if compute_right_eigenvectors:
    primal_out.append(vr)
    tangent_out.append(dvr)
  return primal_out, tangent_out


def _eig_reference(x: np.ndarray, *, compute_left_eigenvectors, compute_right_eigenvectors,
                   **_) -> list[np.ndarray]:
  """numpy's eigenvalues and right eigenvectors (left ones: those of x^H, conjugated)."""
  dtype = _complex_dtype(x.dtype)
  w, vr = np.linalg.eig(x)
  outs = [w.astype(dtype)]
  if compute_left_eigenvectors:
    outs.append(np.conj(np.linalg.eig(np.conj(np.swapaxes(x, -1, -2)))[1]).astype(dtype))
  if compute_right_eigenvectors:
    outs.append(vr.astype(dtype))
  return outs


eig_p = standard_primitive("eig", _eig_abstract_eval, multiple_results=True)
def_reference(eig_p, _eig_reference)
ad.primitive_jvps[eig_p] = _eig_jvp
batching.fancy_primitive_batchers[eig_p] = _batch_at_front(eig_p)


# ----------------------------------------------------------------------------------------------
# schur, hessenberg, tridiagonal (CPU only, as in JAX; no derivatives)

def _lapack(routine: str, dtype: np.dtype) -> Callable[..., Any]:
  """scipy's wrapper of LAPACK `routine` for `dtype`, imported when a test first needs it
  (scipy is a test dependency, through jax, not a dependency of stablejax)."""
  lapack_module = importlib.import_module("scipy.linalg.lapack")
  return getattr(lapack_module, {"f": "s", "d": "d", "F": "c", "D": "z"}[np.dtype(dtype).char]
                 + routine)


def _per_batch(fn: Callable[[np.ndarray], list], x: np.ndarray, avals: list) -> list[np.ndarray]:
  """Apply `fn` (one matrix -> a list of arrays) to each matrix of a batch."""
  outs = [np.zeros(a.shape, a.dtype) for a in avals]
  for index in np.ndindex(*x.shape[:-2]):
    for out, value in zip(outs, fn(x[index])):
      out[index] = value
  return outs


def _check_square(name: str, message: str, x: ShapedArray) -> None:
  check_dtype(name, float_dtypes, x)
  _check_matrices(name, x)
  if x.shape[-1] != x.shape[-2]:
    raise ValueError(f"{message} Got shape {x.shape}.")


def schur(x: Any, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable: Callable[..., Any] | None = None) -> tuple[Any, ...]:
  """(T, Z): the Schur form T (quasi-)upper triangular and the unitary Schur vectors Z of each
  square matrix, x = Z T Z^H (LAPACK's gees; only T without `compute_schur_vectors`)."""
  return tuple(schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors),
                            sort_eig_vals=bool(sort_eig_vals), select_callable=select_callable))


def _schur_abstract_eval(x: ShapedArray, *, compute_schur_vectors, **_) -> list[ShapedArray]:
  _check_square("schur", "The input to schur must be a square matrix.", x)
  return [ShapedArray(x.shape, x.dtype)] * (2 if compute_schur_vectors else 1)


def _schur_reference(x: np.ndarray, *, compute_schur_vectors, **_) -> list[np.ndarray]:
  def one(m):
    t, z = importlib.import_module("scipy.linalg").schur(m)
    return [t, z]
  return _per_batch(one, x, [x, x])[:2 if compute_schur_vectors else 1]


schur_p = standard_primitive("schur", _schur_abstract_eval, multiple_results=True)
def_reference(schur_p, _schur_reference)
ad.primitive_jvps[schur_p] = _not_differentiable("schur")
batching.fancy_primitive_batchers[schur_p] = _batch_at_front(schur_p)


def hessenberg(a: Any) -> tuple[Any, Any]:
  """(a, taus): LAPACK's gehrd of each square matrix, the upper Hessenberg form in the upper
  triangle and first subdiagonal of `a`, the reflectors below with their scales `taus`."""
  out, taus = hessenberg_p.bind(a)
  return out, taus


def _hessenberg_abstract_eval(a: ShapedArray) -> list[ShapedArray]:
  _check_square("hessenberg", "Argument to Hessenberg reduction must have shape [..., n, n],", a)
  return [ShapedArray(a.shape, a.dtype), ShapedArray((*a.shape[:-2], a.shape[-1] - 1), a.dtype)]


def _hessenberg_reference(a: np.ndarray) -> list[np.ndarray]:
  def one(m):
    out, tau, _ = _lapack("gehrd", m.dtype)(m)
    return [out, tau[:len(m) - 1]]
  return _per_batch(one, a, _hessenberg_abstract_eval(core.get_aval(a)))


hessenberg_p = standard_primitive("hessenberg", _hessenberg_abstract_eval, multiple_results=True)
def_reference(hessenberg_p, _hessenberg_reference)
ad.primitive_jvps[hessenberg_p] = _not_differentiable("hessenberg")
batching.fancy_primitive_batchers[hessenberg_p] = _batch_at_front(hessenberg_p)


def tridiagonal(a: Any, *, lower: bool = True) -> tuple[Any, Any, Any, Any]:
  """(a, d, e, taus): LAPACK's sytrd/hetrd of each Hermitian matrix (its `lower` or upper
  triangle): the diagonal d and off-diagonal e of the tridiagonal form, the reflectors in `a`
  with their scales `taus`."""
  out, d, e, taus = tridiagonal_p.bind(a, lower=bool(lower))
  return out, d, e, taus


def _tridiagonal_abstract_eval(a: ShapedArray, *, lower) -> list[ShapedArray]:
  _check_square("tridiagonal", "The input to tridiagonal must be a square matrix.", a)
  *batch, n, _ = a.shape
  if n == 0:
    raise ValueError(f"The input to tridiagonal must be a square matrix. Got shape {a.shape}.")
  real = _real_dtype(a.dtype)
  return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, n), real),
          ShapedArray((*batch, n - 1), real), ShapedArray((*batch, n - 1), a.dtype)]


def _tridiagonal_reference(a: np.ndarray, *, lower) -> list[np.ndarray]:
  routine = "hetrd" if np.iscomplexobj(a) else "sytrd"
  def one(m):
    return _lapack(routine, m.dtype)(m, lower=int(lower))[:4]
  return _per_batch(one, a, _tridiagonal_abstract_eval(core.get_aval(a), lower=lower))


tridiagonal_p = standard_primitive("tridiagonal", _tridiagonal_abstract_eval,
                                   multiple_results=True)
def_reference(tridiagonal_p, _tridiagonal_reference)
ad.primitive_jvps[tridiagonal_p] = _not_differentiable("tridiagonal")
batching.fancy_primitive_batchers[tridiagonal_p] = _batch_at_front(tridiagonal_p)


# ----------------------------------------------------------------------------------------------
# tridiagonal_solve

def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any, *, perturb_singular: bool = False
                      ) -> Any:
  """X with A X = b for each tridiagonal A of sub-, main and super-diagonals `dl`, `d`, `du`
  (..., m; dl[0] and du[-1] unused) and right-hand sides b (..., m, n) (LAPACK's gtsv; with
  `perturb_singular`, near-zero pivots are perturbed instead of failing)."""
  return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))


def _tridiagonal_solve_abstract_eval(dl, d, du, b, **_) -> ShapedArray:
  for x in (dl, d, du, b):
    check_dtype("tridiagonal_solve", float_dtypes, x)
  if len({x.dtype for x in (dl, d, du, b)}) > 1:
    raise TypeError("tridiagonal_solve requires arguments of one dtype, got "
                    f"{[str(x.dtype) for x in (dl, d, du, b)]}")
  if dl.shape != d.shape or dl.shape != du.shape:
    raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                    "shape.")
  if b.ndim < 2 or dl.shape != b.shape[:-1]:
    raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b equal "
                    "the dimensions of the diagonal arguments.")
  return ShapedArray(b.shape, b.dtype)


def _tridiagonal_product(dl: Any, d: Any, du: Any, x: Any) -> Any:
  """A x for the tridiagonal A of dl, d, du."""
  aval = core.get_aval(x)
  rows = aval.ndim - 2
  diag = lambda v: _broadcast_vector(v, aval.shape, -2)
  shifted_down = _pad_rows(lax.slice_in_dim(x, 0, aval.shape[-2] - 1, axis=rows), 1, 0)
  shifted_up = _pad_rows(lax.slice_in_dim(x, 1, aval.shape[-2], axis=rows), 0, 1)
  return lax.add(lax.mul(diag(d), x), lax.add(lax.mul(diag(dl), shifted_down),
                                              lax.mul(diag(du), shifted_up)))


def _pad_rows(x: Any, before: int, after: int) -> Any:
  aval = core.get_aval(x)
  config = [(0, 0, 0)] * (aval.ndim - 2) + [(before, after, 0), (0, 0, 0)]
  return lax.pad(x, np.zeros((), aval.dtype), config)


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
  """x' = A^-1 (b' - A' x)."""
  *diagonals, _ = primals
  *diagonals_dot, b_dot = tangents
  x = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
  rhs = b_dot
  if any(type(t) is not ad.Zero for t in diagonals_dot):
    a_dot_x = _tridiagonal_product(*map(ad.instantiate_zeros, diagonals_dot), x)
    rhs = ad.add_tangents(b_dot, lax.neg(a_dot_x))
  if type(rhs) is ad.Zero:
    return x, ad.Zero.from_primal_value(x)
  return x, tridiagonal_solve_p.bind(*diagonals, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
  """Linear in b: A^T has sub-diagonal du shifted down and super-diagonal dl shifted up."""
  if any(ad.is_undefined_primal(x) for x in (dl, d, du)):
    raise ValueError("tridiagonal_solve is linear only in its right-hand side")
  last = core.get_aval(dl).ndim - 1
  m = core.get_aval(dl).shape[-1]
  zero = lambda v: lax.full_like(lax.slice_in_dim(v, 0, min(m, 1), axis=last), 0)
  dl_t = lax.concatenate([zero(du), lax.slice_in_dim(du, 0, max(m - 1, 0), axis=last)], last)
  du_t = lax.concatenate([lax.slice_in_dim(dl, min(m, 1), m, axis=last), zero(dl)], last)
  return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct,
                                                     perturb_singular=perturb_singular)]


def _tridiagonal_solve_reference(dl, d, du, b, *, perturb_singular) -> np.ndarray:
  def one(l, m, u, rhs):
    a = np.diag(m) + np.diag(l[1:], -1) + np.diag(u[:-1], 1)
    return np.linalg.solve(a, rhs)
  out = np.zeros(b.shape, b.dtype)
  for index in np.ndindex(*b.shape[:-2]):
    out[index] = one(dl[index], d[index], du[index], b[index])
  return out


tridiagonal_solve_p = standard_primitive("tridiagonal_solve", _tridiagonal_solve_abstract_eval)
def_reference(tridiagonal_solve_p, _tridiagonal_solve_reference)
ad.primitive_jvps[tridiagonal_solve_p] = _tridiagonal_solve_jvp
ad.primitive_transposes[tridiagonal_solve_p] = ad.zero_ct_aware(_tridiagonal_solve_transpose)
batching.fancy_primitive_batchers[tridiagonal_solve_p] = _batch_at_front(tridiagonal_solve_p)


# ----------------------------------------------------------------------------------------------
# ormqr, symmetric_product

def ormqr(a: Any, taus: Any, c: Any, *, left: bool = True, transpose: bool = False) -> Any:
  """Q c (`left`) or c Q, Q (Q^H with `transpose`) the product of the Householder reflectors
  below the diagonal of `a` with scales `taus` (LAPACK's ormqr/unmqr), without forming Q."""
  return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


def _ormqr_abstract_eval(a: ShapedArray, taus: ShapedArray, c: ShapedArray, *, left, transpose
                         ) -> ShapedArray:
  for x in (a, taus, c):
    check_dtype("ormqr", float_dtypes, x)
  if len({a.dtype, taus.dtype, c.dtype}) > 1:
    raise TypeError(f"ormqr requires operands of one dtype, got {a.dtype}, {taus.dtype} and "
                    f"{c.dtype}")
  _check_matrices("ormqr", a, c)
  m = a.shape[-2]
  if left and c.shape[-2] != m:
    raise ValueError("ormqr with left=True expects c to have the same number of rows as the "
                     f"Householder matrix a. Got a shape {a.shape} and c shape {c.shape}.")
  if not left and c.shape[-1] != m:
    raise ValueError("ormqr with left=False expects c to have the same number of columns as "
                     f"the Householder matrix a has rows. Got a shape {a.shape} and c shape "
                     f"{c.shape}.")
  return ShapedArray(c.shape, c.dtype)


def _ormqr_reference(a: np.ndarray, taus: np.ndarray, c: np.ndarray, *, left, transpose
                     ) -> np.ndarray:
  out = np.zeros(c.shape, c.dtype)
  for index in np.ndindex(*c.shape[:-2]):
    m, n = a.shape[-2:]
    square = np.concatenate([a[index], np.zeros((m, max(m - n, 0)), a.dtype)], axis=1)[:, :m]
    q = _householder_product_one(square, taus[index])
    q = np.conj(q.T) if transpose else q
    out[index] = q @ c[index] if left else c[index] @ q
  return out


ormqr_p = standard_primitive("ormqr", _ormqr_abstract_eval)
def_reference(ormqr_p, _ormqr_reference)
ad.primitive_jvps[ormqr_p] = _not_differentiable("ormqr")
batching.fancy_primitive_batchers[ormqr_p] = _batch_at_front(ormqr_p)


def symmetric_product(a_matrix: Any, c_matrix: Any, *, alpha: float = 1., beta: float = 0.,
                      symmetrize_output: bool = False) -> Any:
  """alpha A A^T + beta C, C symmetric; with `symmetrize_output` the result's lower triangle
  mirrored into its upper one."""
  result = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
  if symmetrize_output:
    ndim = core.get_aval(result).ndim
    strict = _triangle(result, lower=True, k=-1)
    result = lax.add(_triangle(result, lower=True),
                     lax.transpose(strict, (*range(ndim - 2), ndim - 1, ndim - 2)))
  return result


def _symmetric_product_abstract_eval(a: ShapedArray, c: ShapedArray, **_) -> ShapedArray:
  for x in (a, c):
    check_dtype("symmetric_product", float_dtypes, x)
  _check_matrices("symmetric_product", a, c)
  if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
    raise ValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a "
                     f"square matrix of shape (n, n). Got shapes {a.shape} and {c.shape}.")
  return ShapedArray(c.shape, c.dtype)


def symmetric_product_impl(a: Any, c: Any, *, alpha: float, beta: float) -> Any:
  """alpha A A^T + beta C in lax ops (JAX's lowering everywhere but on CUDA)."""
  ndim = core.get_aval(a).ndim
  product = _matmul(a, lax.transpose(a, (*range(ndim - 2), ndim - 1, ndim - 2)))
  dtype = core.get_aval(c).dtype
  return lax.add(lax.mul(np.array(alpha, dtype), product), lax.mul(np.array(beta, dtype), c))


symmetric_product_p = standard_primitive("symmetric_product", _symmetric_product_abstract_eval)
def_reference(symmetric_product_p, lambda a, c, *, alpha, beta:
              (alpha * a @ np.swapaxes(a, -1, -2) + beta * c).astype(c.dtype))
ad.primitive_jvps[symmetric_product_p] = _not_differentiable("symmetric_product")
batching.fancy_primitive_batchers[symmetric_product_p] = _batch_at_front(symmetric_product_p)


# ----------------------------------------------------------------------------------------------
# cholesky_update

def cholesky_update(r_matrix: Any, w_vector: Any) -> Any:
  """The upper Cholesky factor of R^T R + w w^T, from the factor R (rank-one update by Givens
  rotations, one row of R per step); for one matrix, not batched (as JAX)."""
  return cholesky_update_p.bind(r_matrix, w_vector)


def _cholesky_update_abstract_eval(r: ShapedArray, w: ShapedArray) -> ShapedArray:
  for x in (r, w):
    check_dtype("cholesky_update", real_float_dtypes, x)
  if r.ndim != 2 or w.ndim != 1:
    raise TypeError("cholesky_update takes a matrix and a vector (no batch dimensions), got "
                    f"shapes {r.shape} and {w.shape}")
  if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
    raise ValueError("Rank-1 update to Cholesky decomposition takes a square matrix and a "
                     f"vector of the same size as input. Got shapes {r.shape} and {w.shape} "
                     "instead")
  return ShapedArray(r.shape, r.dtype)


def _givens(x: Any, y: Any) -> tuple[Any, Any]:
  """(c, s) of the rotation taking (x, y) to (r, 0) (BLAS's rotg, with (1, 0) for y = 0)."""
  scale = lax.max(lax.abs(x), lax.abs(y))
  zero = lax.eq(y, lax.full_like(y, 0))
  safe = lax.select(zero, lax.full_like(scale, 1), scale)
  x, y = lax.div(x, safe), lax.div(y, safe)
  inverse_norm = lax.rsqrt(lax.add(lax.mul(x, x), lax.mul(y, y)))
  one, nothing = lax.full_like(x, 1), lax.full_like(x, 0)
  return (lax.select(zero, one, lax.mul(x, inverse_norm)),
          lax.select(zero, nothing, lax.neg(lax.mul(y, inverse_norm))))


def cholesky_update_impl(r: Any, w: Any) -> Any:
  """The rotations in lax ops: step k rotates row k of R against the remaining w."""
  n = core.get_aval(w).shape[0]
  for k in range(n):
    row = lax.squeeze(lax.slice_in_dim(r, k, k + 1, axis=0), (0,))
    c, s = _givens(lax.index_in_dim(row, k, keepdims=False), lax.index_in_dim(w, k,
                                                                              keepdims=False))
    c, s = (lax.broadcast_in_dim(v, (n,), ()) for v in (c, s))
    row, w = lax.sub(lax.mul(c, row), lax.mul(s, w)), lax.add(lax.mul(c, w), lax.mul(s, row))
    r = lax.dynamic_update_slice(r, lax.expand_dims(row, (0,)), (np.int32(k), np.int32(0)))
  return r


def _cholesky_update_reference(r: np.ndarray, w: np.ndarray) -> np.ndarray:
  r, w = np.array(r), np.array(w)
  for k in range(len(w)):
    x, y = r[k, k], w[k]
    if y == 0:
      c, s = 1.0, 0.0
    else:
      scale = max(abs(x), abs(y))
      norm = np.hypot(x / scale, y / scale)
      c, s = x / scale / norm, -y / scale / norm
    r[k], w = c * r[k] - s * w, c * w + s * r[k]
  return r


def _cholesky_update_batch(axis_data, args, dims):
  """One update per example, in a loop (JAX has no batching rule: the primitive takes one
  matrix)."""
  r, w = (batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims))
  return lax.map(lambda rw: cholesky_update_p.bind(*rw), (r, w)), 0


cholesky_update_p = standard_primitive("cholesky_update", _cholesky_update_abstract_eval)
def_reference(cholesky_update_p, _cholesky_update_reference)
ad.primitive_jvps[cholesky_update_p] = _not_differentiable("cholesky_update")
batching.fancy_primitive_batchers[cholesky_update_p] = _cholesky_update_batch


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _cholesky_flops(avals_in, avals_out, **_) -> float:
  return avals_in[0].size * avals_in[0].shape[-1] / 3


def _triangular_solve_flops(avals_in, avals_out, **_) -> float:
  return avals_in[0].shape[-1] * avals_in[1].size


def _matrices(aval: core.ShapedArray) -> tuple[float, int, int, int]:
  """(number of matrices, m, n, min(m, n)) of a batch of m x n matrices."""
  m, n = aval.shape[-2:]
  return aval.size / max(m * n, 1), m, n, min(m, n)


def _lu_flops(avals_in, avals_out, **_) -> float:
  b, m, n, k = _matrices(avals_in[0])
  return b * (m * n * k - k ** 3 / 3)


def _householder_flops(avals_in, avals_out, **_) -> float:
  b, m, n, k = _matrices(avals_in[0])
  return b * (2 * m * n * k - 2 * k ** 3 / 3)


def _qr_flops(avals_in, avals_out, **_) -> float:
  return 2 * _householder_flops(avals_in, avals_out)


def _eigh_flops(avals_in, avals_out, **_) -> float:
  b, _, n, _ = _matrices(avals_in[0])
  return b * 9 * n ** 3


def _eig_flops(avals_in, avals_out, **_) -> float:
  b, _, n, _ = _matrices(avals_in[0])
  return b * 25 * n ** 3


def _hessenberg_flops(avals_in, avals_out, **_) -> float:
  b, _, n, _ = _matrices(avals_in[0])
  return b * 10 * n ** 3 / 3


def _tridiagonal_solve_flops(avals_in, avals_out, **_) -> float:
  return 8 * avals_in[3].size


def _ormqr_flops(avals_in, avals_out, **_) -> float:
  return 4 * avals_in[2].size * avals_in[1].shape[-1]


def _symmetric_product_flops(avals_in, avals_out, **_) -> float:
  b, m, n, _ = _matrices(avals_in[0])
  return b * 2 * m * m * n


def _svd_flops(avals_in, avals_out, *, compute_uv, **_) -> float:
  b, m, n, k = _matrices(avals_in[0])
  return b * (4 * m * n * k + (8 * k ** 3 if compute_uv else -4 * k ** 3 / 3))


flops.flops_rules.update({
    cholesky_p: _cholesky_flops, triangular_solve_p: _triangular_solve_flops, lu_p: _lu_flops,
    lu_pivots_to_permutation_p: flops.free, geqrf_p: _householder_flops,
    householder_product_p: _householder_flops, qr_p: _qr_flops, eigh_p: _eigh_flops,
    eig_p: _eig_flops, schur_p: _eig_flops, hessenberg_p: _hessenberg_flops,
    tridiagonal_p: _hessenberg_flops, tridiagonal_solve_p: _tridiagonal_solve_flops,
    ormqr_p: _ormqr_flops, symmetric_product_p: _symmetric_product_flops,
    cholesky_update_p: _triangular_solve_flops,
    svd_p: _svd_flops,
})
