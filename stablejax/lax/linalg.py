"""Linear algebra primitives, as `jax.lax.linalg`: `cholesky` and `triangular_solve`, with their
rules and numpy references. Their lowerings (LAPACK on the CPU, StableHLO elsewhere) live in
`stablejax.lowering.rules.linalg`.

Matrices are the last two axes of an operand; the leading axes are batch axes, equal for every
operand of a primitive."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching
from stablejax.lax.dot import Precision, batch_matmul
from stablejax.lax.standard import check_dtype, def_reference, float_dtypes, standard_primitive

__all__ = ["cholesky", "triangular_solve"]


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
  def batcher(args, dims, **params):
    size = batching.axis_size_of(args, dims)
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
batching.primitive_batchers[cholesky_p] = _batch_at_front(cholesky_p)


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
batching.primitive_batchers[triangular_solve_p] = _batch_at_front(triangular_solve_p)
