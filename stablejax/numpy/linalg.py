"""jax.numpy.linalg: the factorizations and solves over `stablejax.lax.linalg`, the norms, and
the array-API spellings of the products (over the last axes)."""
from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.custom_derivatives import custom_jvp
from stablejax.jit import jit
from stablejax.lax import linalg as lax_linalg
from stablejax.numpy._promotion import (broadcast_shapes, ensure_arraylike,
                                        promote_dtypes_inexact)
from stablejax.util import canonicalize_axis

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
           "vector_norm"]


class EigResult(NamedTuple):
  eigenvalues: Any
  eigenvectors: Any


class EighResult(NamedTuple):
  eigenvalues: Any
  eigenvectors: Any


class QRResult(NamedTuple):
  Q: Any
  R: Any


class SlogdetResult(NamedTuple):
  sign: Any
  logabsdet: Any


class SVDResult(NamedTuple):
  U: Any
  S: Any
  Vh: Any


def _H(x: Any) -> Any:
  return jnp.conj(jnp.matrix_transpose(x))


def _dot(x: Any, y: Any) -> Any:
  return jnp.matmul(x, y, precision=lax.Precision.HIGHEST)


def _check_square(name: str, a: Any) -> None:
  shape = jnp.shape(a)
  if len(shape) < 2 or shape[-1] != shape[-2]:
    raise ValueError(f"Argument to {name} must have shape [..., n, n], got {shape}")


@jit(static_argnames=("upper", "symmetrize_input"))
def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
  """The Cholesky factor of each Hermitian positive-definite matrix: lower L with L L^H = a, or
  upper U = L^H with U^H U = a; NaNs where a matrix is not positive definite."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.cholesky", a))
  factor = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
  return jnp.conj(jnp.matrix_transpose(factor)) if upper else factor


# ----------------------------------------------------------------------------------------------
# Solves, inverses and determinants over the LU factorization

def lu_solve(lu: Any, permutation: Any, b: Any, trans: int = 0) -> Any:
  """x with a x = b (`trans` 0), a^T x = b (1) or a^H x = b (2), for P a = L U given as `lu` and
  its row `permutation`; b is a batch of matrices (..., m, k) with the batch axes of `lu`."""
  if trans not in (0, 1, 2):
    raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
  solve_ = functools.partial(lax_linalg.triangular_solve, lu, left_side=True)
  if trans == 0:
    x = jnp.take_along_axis(b, permutation[..., None], axis=-2)
    return solve_(solve_(x, lower=True, unit_diagonal=True), lower=False)
  conj = trans == 2
  x = solve_(b, lower=False, transpose_a=True, conjugate_a=conj)
  x = solve_(x, lower=True, unit_diagonal=True, transpose_a=True, conjugate_a=conj)
  return jnp.take_along_axis(x, jnp.argsort(permutation)[..., None], axis=-2)


def _lu_solver(a: Any) -> Callable[[Any], Any]:
  """b -> a^-1 b, from one LU factorization of `a`."""
  lu, _, permutation = lax_linalg.lu(a)
  return functools.partial(lu_solve, lu, permutation)


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _factored_solve(solver: Callable[[Any], Callable[[Any], Any]], a: Any, b: Any) -> Any:
  return solver(a)(b)


@_factored_solve.defjvp
def _factored_solve_jvp(solver, primals, tangents):
  """x' = a^-1 (b' - a' x), reusing the factorization of the primal solve (as JAX's
  custom_linear_solve does)."""
  (a, b), (a_dot, b_dot) = primals, tangents
  solve_ = solver(a)
  x = solve_(b)
  return x, solve_(b_dot - _dot(a_dot, x))


def solve_with(name: str, a: Any, b: Any, solver: Callable[[Any], Callable[[Any], Any]]) -> Any:
  """x with a x = b, broadcasting as jnp.linalg.solve (b a vector (m,) or a batch of matrices
  (..., m, k)), by `solver(a)`; its derivatives reuse the factorization."""
  a, b = promote_dtypes_inexact(*ensure_arraylike(name, a, b))
  a_shape, b_shape = jnp.shape(a), jnp.shape(b)
  if len(a_shape) < 2:
    raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a_shape}")
  if (len(b_shape) > 1 and len(a_shape) == len(b_shape) + 1 and a_shape[-1] == b_shape[-1]
      and a_shape[-1] != b_shape[-2]):
    raise ValueError(f"Invalid shapes for solve: {a_shape}, {b_shape}. Prior to JAX v0.5.0, this "
                     "would have been treated as a batched 1-dimensional solve. To recover this "
                     "behavior, use solve(a, b[..., None]).squeeze(-1).")
  vector = len(b_shape) == 1
  if vector:
    b = b[:, None]
  _check_square(name, a)
  if jnp.shape(b)[-2] != a_shape[-1]:
    raise ValueError(f"{name}: a of shape {a_shape} and b of shape {b_shape} do not match: b "
                     f"needs {a_shape[-1]} rows")
  batch = broadcast_shapes(name, a_shape[:-2], jnp.shape(b)[:-2])
  x = _factored_solve(solver, jnp.broadcast_to(a, batch + a_shape[-2:]),
                      jnp.broadcast_to(b, batch + jnp.shape(b)[-2:]))
  return x[..., 0] if vector else x


@jit
def solve(a: Any, b: Any) -> Any:
  """x with a x = b for square `a` (..., m, m), b a vector (m,) or matrices (..., m, k)."""
  return solve_with("jnp.linalg.solve", a, b, _lu_solver)


@jit
def inv(a: Any) -> Any:
  """The inverse of each square matrix (..., n, n)."""
  (a,) = ensure_arraylike("jnp.linalg.inv", a)
  _check_square("inv", a)
  shape = jnp.shape(a)
  return solve(a, jnp.broadcast_to(jnp.eye(shape[-1], dtype=jnp.result_type(a)), shape))


def _parity_sign(pivots: Any, dtype: Any) -> Any:
  """+1 or -1: the sign of the row permutation given by LU `pivots`."""
  iota = jnp.arange(jnp.shape(pivots)[-1], dtype=pivots.dtype)
  swaps = jnp.count_nonzero(pivots != iota, axis=-1)
  return jnp.asarray(-2 * (swaps % 2) + 1, dtype=dtype)


# The even and the odd permutations of the Leibniz formula, in JAX's order of terms
_LEIBNIZ = {2: ([(0, 1)], [(1, 0)]),
            3: ([(0, 1, 2), (1, 2, 0), (2, 0, 1)], [(2, 1, 0), (0, 2, 1), (1, 0, 2)])}


def _leibniz_det(a: Any) -> Any:
  """The determinants of 2x2 or 3x3 matrices, in closed form."""
  def term(perm):
    return functools.reduce(operator.mul, [a[..., i, j] for i, j in enumerate(perm)])
  even, odd = _LEIBNIZ[jnp.shape(a)[-1]]
  out = functools.reduce(operator.add, [term(p) for p in even])
  for perm in odd:
    out = out - term(perm)
  return out


def _cofactor_solve(a: Any, b: Any) -> tuple[Any, Any]:
  """det(a) and adj(a) b, i.e. det(a) a^-1 b, defined for singular `a` too: from the LU
  factorization, the last pivot u_nn stands in as 1 / (u_11 ... u_n-1,n-1) so a matrix of rank
  n - 1 gives the rank-one adjugate, and matrices of lower rank (whose solve overflows) give 0."""
  if jnp.shape(a)[-1] == 0:  # JAX raises an IndexError here; the empty determinant is 1
    return jnp.ones(jnp.shape(a)[:-2], a.dtype), b
  if jnp.shape(a)[-1] == 1:
    return a[..., 0, 0], b
  lu, pivots, permutation = lax_linalg.lu(a)
  partial_det = (jnp.cumprod(jnp.diagonal(lu, axis1=-2, axis2=-1), axis=-1)
                 * _parity_sign(pivots, lu.dtype)[..., None])
  lu = lu.at[..., -1, -1].set(1 / partial_det[..., -2])
  upper = functools.partial(lax_linalg.triangular_solve, lu, left_side=True, lower=False)
  probe = upper(jnp.ones(jnp.shape(b)[:-1], b.dtype))
  low_rank = jnp.any(jnp.isnan(probe) | jnp.isinf(probe), axis=-1)[..., None, None]
  x = jnp.where(low_rank, jnp.zeros_like(b), b)
  x = jnp.take_along_axis(x, permutation[..., None], axis=-2)
  x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
  x = jnp.concatenate([x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]],
                      axis=-2)
  return partial_det[..., -1], jnp.where(low_rank, jnp.zeros_like(b), upper(x))


@custom_jvp
def _det(a: Any) -> Any:
  sign, logdet = slogdet(a)
  return sign * jnp.exp(logdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals, tangents):
  """det' = tr(adj(a) a'), well defined at singular matrices."""
  (a,), (a_dot,) = primals, tangents
  y, z = _cofactor_solve(a, a_dot)
  return y, jnp.trace(z, axis1=-1, axis2=-2)


@jit
def det(a: Any) -> Any:
  """The determinant of each square matrix (..., n, n)."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.det", a))
  _check_square("det", a)
  return _leibniz_det(a) if jnp.shape(a)[-1] in _LEIBNIZ else _det(a)


def _slogdet_small(a: Any) -> tuple[Any, Any]:
  det_ = a[..., 0, 0] if jnp.shape(a)[-1] == 1 else _leibniz_det(a)
  return jnp.sign(det_), jnp.real(jnp.log(jnp.abs(det_)))


def _slogdet_lu(a: Any) -> tuple[Any, Any]:
  dtype = a.dtype
  lu, pivots, _ = lax_linalg.lu(a)
  diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
  is_zero = jnp.any(diag == jnp.array(0, dtype), axis=-1)
  sign = _parity_sign(pivots, dtype)
  if jnp.iscomplexobj(a):
    sign = sign * jnp.prod(diag / jnp.abs(diag).astype(dtype), axis=-1)
  else:
    sign = sign * jnp.asarray(-2 * (jnp.count_nonzero(diag < 0, axis=-1) % 2) + 1, dtype)
  sign = jnp.where(is_zero, jnp.array(0, dtype), sign)
  logdet = jnp.where(is_zero, jnp.array(-np.inf, dtype),
                     jnp.sum(jnp.log(jnp.abs(diag)).astype(dtype), axis=-1))
  return sign, jnp.real(logdet)


def _slogdet_qr(a: Any) -> tuple[Any, Any]:
  """From the Householder QR: each reflector actually applied (tau != 0) has determinant -1."""
  if jnp.iscomplexobj(a):
    raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
  r, taus = lax_linalg.geqrf(a)
  diag = jnp.diagonal(r, axis1=-2, axis2=-1)
  reflections = jnp.prod(jnp.where(taus[..., :jnp.shape(a)[-1] - 1] != 0, -1, 1), axis=-1)
  return (jnp.prod(jnp.sign(diag), axis=-1) * reflections.astype(a.dtype),
          jnp.sum(jnp.log(jnp.abs(diag)), axis=-1))


_SLOGDET = {"small": _slogdet_small, "lu": _slogdet_lu, "qr": _slogdet_qr}


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _slogdet(method: str, a: Any) -> tuple[Any, Any]:
  return _SLOGDET[method](a)


@_slogdet.defjvp
def _slogdet_jvp(method, primals, tangents):
  """log|det|' = Re tr(a^-1 a'); the sign's derivative is 0 for real a, i Im(tr(a^-1 a')) sign
  for complex a."""
  (a,), (a_dot,) = primals, tangents
  sign, logdet = _slogdet(method, a)
  ans_dot = jnp.trace(_lu_solver(a)(a_dot), axis1=-1, axis2=-2)  # linear in a_dot: transposable
  if jnp.iscomplexobj(a):
    return (sign, logdet), ((ans_dot - jnp.real(ans_dot).astype(ans_dot.dtype)) * sign,
                            jnp.real(ans_dot))
  return (sign, logdet), (jnp.zeros_like(sign), ans_dot)


@jit(static_argnames=("method",))
def slogdet(a: Any, *, method: str | None = None) -> SlogdetResult:
  """(sign, log|det|) of each square matrix, by the LU (default) or the QR factorization."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.slogdet", a))
  _check_square("slogdet()", a)
  if method not in (None, "lu", "qr"):
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), "
                     "and 'qr'.")
  if method == "qr":
    return SlogdetResult(*_slogdet("qr", a))
  return SlogdetResult(*_slogdet("small" if jnp.shape(a)[-1] in (1, 2) else "lu", a))


@jit(static_argnames=("n",))
def matrix_power(a: Any, n: int) -> Any:
  """a^n for square matrices by repeated squaring; a negative n inverts a first."""
  (a,) = ensure_arraylike("jnp.linalg.matrix_power", a)
  if jnp.ndim(a) < 2:
    raise TypeError(f"{jnp.ndim(a)}-dimensional array given. Array must be at least "
                    "two-dimensional")
  if jnp.shape(a)[-2] != jnp.shape(a)[-1]:
    raise TypeError("Last 2 dimensions of the array must be square")
  try:
    n = operator.index(n)
  except TypeError as err:
    raise TypeError(f"exponent must be an integer, got {n}") from err
  if n == 0:
    return jnp.broadcast_to(jnp.eye(jnp.shape(a)[-1], dtype=a.dtype), jnp.shape(a))
  if n < 0:
    a, n = inv(a), -n
  if n <= 3:
    return functools.reduce(jnp.matmul, [a] * n)
  power, result = a, None
  while True:
    n, bit = divmod(n, 2)
    if bit:
      result = power if result is None else result @ power
    if not n:
      return result
    power = power @ power


# ----------------------------------------------------------------------------------------------
# Eigenvalues, singular values, QR

@jit(static_argnames=("UPLO", "symmetrize_input"))
def eigh(a: Any, UPLO: str | None = None,  # noqa: N803
         symmetrize_input: bool = True) -> EighResult:
  """(eigenvalues, eigenvectors) of each Hermitian matrix, eigenvalues ascending, read from its
  lower (`UPLO` 'L', the default) or upper ('U') triangle."""
  (a,) = ensure_arraylike("jnp.linalg.eigh", a)
  if UPLO not in (None, "L", "U"):
    raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
  (a,) = promote_dtypes_inexact(a)
  v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
  return EighResult(w, v)


@jit(static_argnames=("UPLO", "symmetrize_input"))
def eigvalsh(a: Any, UPLO: str | None = "L", *,  # noqa: N803
             symmetrize_input: bool = True) -> Any:
  """The ascending eigenvalues of each Hermitian matrix."""
  (a,) = ensure_arraylike("jnp.linalg.eigvalsh", a)
  return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


@jit
def eig(a: Any) -> EigResult:
  """(eigenvalues, right eigenvectors) of each square matrix, complex (LAPACK's geev)."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.eig", a))
  w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
  return EigResult(w, v)


@jit
def eigvals(a: Any) -> Any:
  """The complex eigenvalues of each square matrix."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.eigvals", a))
  return lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


def _hermitian_svd(a: Any, compute_uv: bool, subset_by_index: Any) -> Any:
  """The SVD of Hermitian matrices from their eigendecomposition: s = |w| descending, u the
  eigenvectors in that order, vh = (u sign(w))^H."""
  v, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
  s = jnp.abs(w)
  if not compute_uv:
    return lax.rev(lax.sort(s, dimension=-1), (jnp.ndim(s) - 1,))
  order = lax.broadcasted_iota(np.int32, jnp.shape(s), jnp.ndim(s) - 1)
  s, order, sign = (lax.rev(x, (jnp.ndim(s) - 1,))
                    for x in lax.sort((s, order, jnp.sign(w)), dimension=-1, num_keys=1))
  u = jnp.take_along_axis(v, order[..., None, :], axis=-1)
  return SVDResult(u, s, _H(u * sign[..., None, :].astype(u.dtype)))


@jit(static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"))
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: tuple[int, int] | None = None) -> Any:
  """(u, s, vh) with a = u diag(s) vh, s descending, or only s when not `compute_uv`."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.svd", a))
  if hermitian:
    return _hermitian_svd(a, compute_uv, subset_by_index)
  out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                       subset_by_index=subset_by_index)
  return SVDResult(*out) if compute_uv else out


def svdvals(x: Any, /) -> Any:
  """The singular values of each matrix, descending."""
  (x,) = ensure_arraylike("jnp.linalg.svdvals", x)
  return svd(x, compute_uv=False, hermitian=False)


@jit(static_argnames=("hermitian",))
def matrix_rank(M: Any, rtol: Any = None, *, hermitian: bool = False,  # noqa: N803
                tol: Any = None) -> Any:
  """The number of singular values above rtol times the largest (rtol defaults to max(m, n)
  machine epsilons)."""
  (M,) = ensure_arraylike("jnp.linalg.matrix_rank", M)
  if tol is not None:
    if rtol is not None:
      raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
    rtol = tol
  (M,) = promote_dtypes_inexact(M)
  if jnp.ndim(M) < 2:
    return jnp.any(M != 0).astype(np.int32)
  s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
  if rtol is None:
    rtol = (jnp.max(s, axis=-1) * np.max(jnp.shape(M)[-2:]).astype(s.dtype)
            * jnp.finfo(s.dtype).eps)
  rtol = jnp.expand_dims(rtol, np.ndim(rtol))
  return jnp.sum(s > rtol, axis=-1)


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _pinv(hermitian: bool, a: Any, rtol: Any) -> Any:
  """The pseudo-inverse from the SVD of conj(a), singular values at most rtol times the largest
  taken as zero (as numpy)."""
  m, n = jnp.shape(a)[-2:]
  if m == 0 or n == 0:
    return jnp.empty(jnp.shape(a)[:-2] + (n, m), a.dtype)
  u, s, vh = svd(jnp.conj(a), full_matrices=False, hermitian=hermitian)
  rtol = lax.expand_dims(rtol[..., None], range(jnp.ndim(s) - jnp.ndim(rtol) - 1))
  s = jnp.where(s > rtol * s[..., 0:1], s, np.inf).astype(u.dtype)
  out = _dot(jnp.matrix_transpose(vh), jnp.matrix_transpose(u) / s[..., None])
  return out.astype(a.dtype)


@_pinv.defjvp
def _pinv_jvp(hermitian, primals, tangents):
  """Golub and Pereyra's derivative of the pseudo-inverse p of a (1973):
  p' = -p a' p + p p^H a'^H (1 - a p) + (1 - p a) a'^H p^H p."""
  (a, rtol), (a_dot, _) = primals, tangents
  p = _pinv(hermitian, a, rtol)
  if hermitian:  # the Hermitian svd symmetrizes its input, and so must the derivative
    a, a_dot = (a + _H(a)) / 2, (a_dot + _H(a_dot)) / 2
  m, n = jnp.shape(a)[-2:]
  if m >= n:
    s = (p @ _H(p)) @ _H(a_dot)
    t = (_H(a_dot) @ _H(p)) @ p
    return p, -(p @ a_dot) @ p + s - (s @ a) @ p + t - (p @ a) @ t
  s = p @ (_H(p) @ _H(a_dot))
  t = _H(a_dot) @ (_H(p) @ p)
  return p, -p @ (a_dot @ p) + s - s @ (a @ p) + t - p @ (a @ t)


@jit(static_argnames=("hermitian",))
def _pinv_default(a: Any, rtol: Any, hermitian: bool) -> Any:
  (a,) = promote_dtypes_inexact(a)
  if rtol is None:
    rtol = 10. * max(jnp.shape(a)[-2:]) * jnp.array(jnp.finfo(a.dtype).eps)
  return _pinv(hermitian, a, jnp.asarray(rtol))


def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
  """The Moore-Penrose pseudo-inverse of each matrix (..., m, n), by the SVD."""
  if rcond is not None:
    if rtol is not None:
      raise ValueError("pinv: only one of rtol and rcond may be specified.")
    rtol = rcond
  (a,) = ensure_arraylike("jnp.linalg.pinv", a)
  return _pinv_default(a, rtol, bool(hermitian))


def _lstsq(a: Any, b: Any, rcond: Any, numpy_resid: bool) -> tuple[Any, Any, Any, Any]:
  a, b = promote_dtypes_inexact(a, b)
  if jnp.shape(a)[0] != jnp.shape(b)[0]:
    raise ValueError("Leading dimensions of input arrays must match")
  vector = jnp.ndim(b) == 1
  if vector:
    b = b[:, None]
  if jnp.ndim(a) != 2:
    raise TypeError(f"{jnp.ndim(a)}-dimensional array given. Array must be two-dimensional")
  if jnp.ndim(b) != 2:
    raise TypeError(f"{jnp.ndim(b)}-dimensional array given. Array must be one or "
                    "two-dimensional")
  m, n = jnp.shape(a)
  if m * n == 0:
    s, rank = jnp.empty(0, dtype=a.dtype), jnp.array(0, dtype=int)
    x = jnp.zeros((n, *jnp.shape(b)[1:]), dtype=a.dtype)
  else:
    eps = jnp.finfo(a.dtype).eps
    rcond = float(eps) * max(n, m) if rcond is None else jnp.where(rcond < 0, eps, rcond)
    u, s, vh = svd(a, full_matrices=False)
    kept = (s > 0) & (s >= jnp.array(rcond, dtype=s.dtype) * s[0])
    rank = kept.sum()
    s_inv = jnp.where(kept, 1 / jnp.where(kept, s, 1).astype(a.dtype), 0)[:, None]
    x = _dot(_H(vh), s_inv * _dot(_H(u), b))
  if numpy_resid and (rank < n or m <= n):
    resid = jnp.asarray([])
  else:
    resid = norm(b - _dot(a, x), axis=0) ** 2
  return (x.ravel() if vector else x), resid, rank, s


_jit_lstsq = jit(functools.partial(_lstsq, numpy_resid=False))


def lstsq(a: Any, b: Any, rcond: float | None = None, *,
          numpy_resid: bool = False) -> tuple[Any, Any, Any, Any]:
  """(x, residuals, rank, s): the least-squares solution of a x = b for a 2-D `a` by the SVD
  (singular values below rcond times the largest dropped)."""
  a, b = ensure_arraylike("jnp.linalg.lstsq", a, b)
  if numpy_resid:
    return _lstsq(a, b, rcond, numpy_resid=True)
  return _jit_lstsq(a, b, rcond)


@jit(static_argnames=("mode",))
def qr(a: Any, mode: str = "reduced") -> Any:
  """(Q, R) with a = Q R: 'reduced' (k = min(m, n) columns of Q), 'complete' (all m), 'r' (R
  only) or 'raw' (the Householder reflectors (transposed) and their taus)."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.qr", a))
  if mode == "raw":
    r, taus = lax_linalg.geqrf(a)
    return QRResult(jnp.matrix_transpose(r), taus)
  if mode not in ("reduced", "r", "full", "complete"):
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  q, r = lax_linalg.qr(a, pivoting=False, full_matrices=mode == "complete")
  return r if mode == "r" else QRResult(q, r)


@jit(static_argnames=("p",))
def cond(x: Any, p: Any = None) -> Any:
  """The condition number of each matrix in the `p`-norm (2 by default, from the singular
  values); inf where it overflows to NaN."""
  (x,) = ensure_arraylike("cond", x)
  if jnp.ndim(x) < 2:
    raise ValueError("jnp.linalg.cond: input array must be at least 2D; got "
                     f"x.shape={jnp.shape(x)}")
  if 0 in jnp.shape(x)[-2:]:
    raise ValueError(f"jnp.linalg.cond: input array must not be empty; got x.shape={jnp.shape(x)}")
  if p is None or p == 2:
    s = svdvals(x)
    return s[..., 0] / s[..., -1]
  if p == -2:
    s = svdvals(x)
    r = s[..., -1] / s[..., 0]
  else:
    if jnp.shape(x)[-2] != jnp.shape(x)[-1]:
      raise ValueError(f"jnp.linalg.cond: for {p=}, array must be square; got "
                       f"x.shape={jnp.shape(x)}")
    r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
  return jnp.where(jnp.isnan(r) & ~jnp.isnan(x).any(axis=(-2, -1)), np.inf, r)


def tensorinv(a: Any, ind: int = 2) -> Any:
  """The inverse of `a` seen as a matrix from its first `ind` axes to the others."""
  (a,) = ensure_arraylike("tensorinv", a)
  ind = operator.index(ind)
  if ind <= 0:
    raise ValueError(f"ind must be a positive integer; got {ind=}")
  rows, cols = jnp.shape(a)[:ind], jnp.shape(a)[ind:]
  if math.prod(rows) != math.prod(cols):
    raise ValueError("tensorinv is only possible when the product of the first `ind` dimensions "
                     "equals that of the remaining dimensions. got "
                     f"a.shape={jnp.shape(a)} with {ind=}.")
  return inv(a.reshape(math.prod(rows), math.prod(cols))).reshape(*cols, *rows)


def tensorsolve(a: Any, b: Any, axes: tuple[int, ...] | None = None) -> Any:
  """x with tensordot(a, x, x.ndim) = b; `axes` of a are moved to the end first, in increasing
  order (as JAX; numpy keeps the order given)."""
  a, b = ensure_arraylike("tensorsolve", a, b)
  if axes is not None:
    ndim = jnp.ndim(a)
    moved = sorted(canonicalize_axis(operator.index(ax), ndim) for ax in axes)
    a = jnp.moveaxis(a, moved, tuple(range(ndim - len(moved), ndim)))
  out_shape = jnp.shape(a)[jnp.ndim(b):]
  if jnp.shape(a)[:jnp.ndim(b)] != jnp.shape(b):
    raise ValueError("After moving axes to end, leading shape of a must match shape of b. got "
                     f"a.shape={jnp.shape(a)}, b.shape={jnp.shape(b)}")
  if jnp.size(b) != math.prod(out_shape):
    raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); "
                     f"got a.shape={jnp.shape(a)}, b.ndim={jnp.ndim(b)}.")
  return solve(a.reshape(jnp.size(b), math.prod(out_shape)), b.ravel()).reshape(out_shape)


def _chain_order(dims: Sequence[int]) -> Any:
  """The cheapest parenthesization of a chain of matrices dims[i] x dims[i+1]: a nested pair of
  indices (the classic dynamic program)."""
  n = len(dims) - 1
  cost = {(i, i): 0 for i in range(n)}
  split = {}
  for length in range(1, n):
    for i in range(n - length):
      j = i + length
      cost[i, j], split[i, j] = min(
          (cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1], k)
          for k in range(i, j))
  def tree(i, j):
    return i if i == j else (tree(i, split[i, j]), tree(split[i, j] + 1, j))
  return tree(0, n - 1)


def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Any:
  """The product of a chain of matrices (the first and last may be vectors), multiplied in the
  cheapest order."""
  arrs = list(ensure_arraylike("jnp.linalg.multi_dot", *arrays))
  if len(arrs) < 2:
    raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
  shapes = [jnp.shape(a) for a in arrs]
  if not (len(shapes[0]) in (1, 2) and len(shapes[-1]) in (1, 2)
          and all(len(s) == 2 for s in shapes[1:-1])):
    raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the first "
                     "and last array which may be 1 or 2 dimensional. Got array shapes "
                     f"{shapes}")
  if any(s[-1] != t[0] for s, t in zip(shapes[:-1], shapes[1:])):
    raise ValueError("multi_dot: last dimension of each array must match first dimension of "
                     f"following array. Got array shapes {shapes}")
  dims = [1 if len(shapes[0]) == 1 else shapes[0][0], *(s[-1] for s in shapes)]
  if len(shapes[-1]) == 1:
    dims[-1] = 1
  def product(node):
    if isinstance(node, int):
      return arrs[node]
    return jnp.matmul(product(node[0]), product(node[1]), precision=precision)
  return product(_chain_order(dims))


# ----------------------------------------------------------------------------------------------
# Norms

def _abs_squared_sum(x: Any, axis: Any, keepdims: bool) -> Any:
  return jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)), axis=axis, keepdims=keepdims))


def vector_norm(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Any:  # noqa: A002
  """The `ord`-norm of the vectors along `axis` (all of `x` when None)."""
  (x,) = ensure_arraylike("jnp.linalg.vector_norm", x)
  if ord is None or ord == 2:
    return _abs_squared_sum(x, axis, keepdims)
  if isinstance(ord, str):
    raise ValueError(f"Invalid order '{ord}' for vector norm.")
  if ord == np.inf:
    return jnp.max(jnp.abs(x), axis=axis, keepdims=keepdims, initial=0)
  if ord == -np.inf:
    return jnp.min(jnp.abs(x), axis=axis, keepdims=keepdims)
  if ord == 0:
    return jnp.sum(x != 0, dtype=jnp.finfo(jnp.result_type(x, float)).dtype, axis=axis,
                   keepdims=keepdims)
  if ord == 1:
    return jnp.sum(jnp.abs(x), axis=axis, keepdims=keepdims)
  abs_x = jnp.abs(x)
  power = np.array(ord, abs_x.dtype)
  return jnp.power(jnp.sum(abs_x ** power, axis=axis, keepdims=keepdims),
                   np.array(1 / power, abs_x.dtype))


def _matrix_norm(x: Any, ord: Any, rows: int, cols: int, keepdims: bool) -> Any:  # noqa: A002
  """The `ord`-norm of the matrices over axes (rows, cols)."""
  if ord is None or ord in ("f", "fro"):
    return _abs_squared_sum(x, (rows, cols), keepdims)
  if ord in (1, -1, np.inf, -np.inf):
    summed, kept = (rows, cols) if ord in (1, -1) else (cols, rows)
    if not keepdims and kept > summed:
      kept -= 1
    sums = jnp.sum(jnp.abs(x), axis=summed, keepdims=keepdims)
    if ord > 0:
      return jnp.max(sums, axis=kept, keepdims=keepdims, initial=0)
    return jnp.min(sums, axis=kept, keepdims=keepdims)
  if ord in ("nuc", 2, -2):
    s = svd(jnp.moveaxis(x, (rows, cols), (-2, -1)), compute_uv=False)
    if ord == 2:
      out = jnp.max(s, axis=-1, initial=0)
    else:
      out = jnp.min(s, axis=-1) if ord == -2 else jnp.sum(s, axis=-1)
    return jnp.expand_dims(out, (rows, cols)) if keepdims else out
  raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def norm(x: Any, ord: Any = None, axis: int | tuple[int, ...] | None = None,  # noqa: A002
         keepdims: bool = False) -> Any:
  """A vector norm (one axis) or a matrix norm (two axes) of `x`, as numpy.linalg.norm."""
  (x,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.norm", x))
  ndim = jnp.ndim(x)
  if axis is None:
    if ord is None:  # numpy's undocumented case: the 2-norm of all of x, any rank
      return _abs_squared_sum(x, None, keepdims)
    axis = tuple(range(ndim))
  axes = tuple(canonicalize_axis(operator.index(a), ndim)
               for a in (axis if isinstance(axis, tuple) else (axis,)))
  if len(axes) == 1:
    return vector_norm(x, ord=2 if ord is None else ord, axis=axes, keepdims=keepdims)
  if len(axes) == 2:
    return _matrix_norm(x, ord, *axes, keepdims)
  raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to compute a "
                   "vector-norm, or two axes to compute a matrix-norm.")


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:  # noqa: A002
  """The `ord`-norm of each matrix over the last two axes."""
  return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# ----------------------------------------------------------------------------------------------
# Array-API spellings over the last axes

def matrix_transpose(x: Any, /) -> Any:
  return jnp.matrix_transpose(x)


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
  """The diagonals of the matrices over the last two axes."""
  return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
  """The traces of the matrices over the last two axes."""
  return jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def outer(x1: Any, x2: Any, /) -> Any:
  """The outer product of two vectors."""
  x1, x2 = ensure_arraylike("jnp.linalg.outer", x1, x2)
  if jnp.ndim(x1) != 1 or jnp.ndim(x2) != 1:
    raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim="
                     f"{jnp.ndim(x1)} and x2.ndim={jnp.ndim(x2)}")
  return jnp.outer(x1, x2)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
  """The cross product of 3-vectors along `axis`."""
  x1, x2 = ensure_arraylike("jnp.linalg.cross", x1, x2)
  if jnp.shape(x1)[axis] != 3 or jnp.shape(x2)[axis] != 3:
    raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                     f"have x1.shape[axis]={jnp.shape(x1)[axis]} and x2.shape[axis]="
                     f"{jnp.shape(x2)[axis]}")
  return jnp.cross(x1, x2, axis=axis)


def matmul(x1: Any, x2: Any, /, *, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
  return jnp.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
  return jnp.tensordot(x1, x2, axes=axes, precision=precision,
                       preferred_element_type=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
  return jnp.vecdot(x1, x2, axis=axis, precision=precision,
                    preferred_element_type=preferred_element_type)
