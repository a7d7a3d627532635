"""jax.scipy.linalg: the Cholesky, LU, QR, eigen and singular value decompositions and the solves
over `stablejax.lax.linalg` and `stablejax.numpy.linalg`, and the matrix exponential."""
from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.api import jvp
from stablejax.jit import jit
from stablejax.lax import linalg as lax_linalg
from stablejax.numpy import linalg as jnp_linalg
from stablejax.numpy._promotion import ensure_arraylike, promote_dtypes, promote_dtypes_inexact

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm",
           "expm_frechet", "inv", "lu", "lu_factor", "lu_solve", "polar", "qr", "solve",
           "solve_triangular", "svd", "toeplitz"]

def _toeplitz(c: Any, r: Any) -> Any:
  """T[i, j] = c[i - j] below the diagonal, r[j - i] above: one gather of c reversed then r."""
  rows, cols = c.shape[0], r.shape[0]
  if rows == 0 or cols == 0:
    return jnp.empty((rows, cols), jnp.promote_types(c.dtype, r.dtype))
  elems = jnp.concatenate((c[::-1], r[1:]))
  return elems[(rows - 1) - np.arange(rows)[:, None] + np.arange(cols)[None, :]]


_toeplitz_batched = jnp.vectorize(_toeplitz, signature="(m),(n)->(m,n)")


def toeplitz(c: Any, r: Any = None) -> Any:
  """The Toeplitz matrix of first column `c` and first row `r` (default: conj(c)), batched over
  leading axes (scipy.linalg.toeplitz)."""
  if r is None:
    ensure_arraylike("toeplitz", c)
    r = jnp.conjugate(jnp.asarray(c))
  else:
    ensure_arraylike("toeplitz", c, r)
  return _toeplitz_batched(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))


# scipy's `trans` argument: (transpose_a, conjugate_a)
_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


@jit(static_argnames=("lower",))
def _cholesky(a: Any, lower: bool) -> Any:
  (a,) = promote_dtypes_inexact(a)
  factor = lax_linalg.cholesky(a if lower else jnp.conj(jnp.matrix_transpose(a)),
                               symmetrize_input=False)
  return factor if lower else jnp.conj(jnp.matrix_transpose(factor))


def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Any:
  """The Cholesky factor of each Hermitian positive-definite matrix: upper U with U^H U = a
  (scipy's default), or lower L with L L^H = a. Reads only that triangle of `a`."""
  del overwrite_a, check_finite  # no effect on immutable arrays
  (a,) = ensure_arraylike("jax.scipy.linalg.cholesky", a)
  return _cholesky(a, bool(lower))


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Any, bool]:
  """(c, lower): a Cholesky factor for `cho_solve`."""
  del overwrite_a, check_finite
  return cholesky(a, lower=lower), lower


def _solve_vectorized(a: Any, b: Any, **params: Any) -> Any:
  """Left triangular solves, broadcasting the batch axes of `a` and `b` as scipy does: `b` is a
  vector (or batch of vectors) when it has one axis fewer than `a` and matches its last."""
  vector = jnp.ndim(b) == 1 or (jnp.ndim(a) == jnp.ndim(b) + 1
                                and jnp.shape(a)[-1] == jnp.shape(b)[-1])
  signature = "(n,n),(n)->(n)" if vector else "(n,n),(n,k)->(n,k)"
  def solve(a, b):
    return lax_linalg.triangular_solve(a, b, left_side=True, **params)
  return jnp.vectorize(solve, signature=signature)(a, b)


@jit(static_argnames=("lower",))
def _cho_solve(c: Any, b: Any, lower: bool) -> Any:
  c, b = promote_dtypes_inexact(c, b)
  # c c^H x = b (lower) or c^H c x = b: two triangular solves
  y = _solve_vectorized(c, b, lower=lower, transpose_a=not lower, conjugate_a=not lower)
  return _solve_vectorized(c, y, lower=lower, transpose_a=lower, conjugate_a=lower)


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
  """x with a x = b, for a given by its Cholesky factor `(c, lower)` from `cho_factor`."""
  del overwrite_b, check_finite
  c, lower = c_and_lower
  c, b = ensure_arraylike("jax.scipy.linalg.cho_solve", c, b)
  return _cho_solve(c, b, bool(lower))


@jit(static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a: Any, b: Any, trans: Any, lower: bool, unit_diagonal: bool) -> Any:
  transpose_a, conjugate_a = _TRANS[trans]
  a, b = promote_dtypes_inexact(a, b)
  return _solve_vectorized(a, b, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                           unit_diagonal=unit_diagonal)


def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False, debug: Any = None,
                     check_finite: bool = True) -> Any:
  """x with op(a) x = b for triangular `a` (its lower or upper triangle), op given by `trans`:
  0/'N' as is, 1/'T' transposed, 2/'C' conjugate-transposed."""
  del overwrite_b, debug, check_finite
  if trans not in _TRANS:
    raise ValueError(f"Invalid 'trans' value {trans}")
  a, b = ensure_arraylike("jax.scipy.linalg.solve_triangular", a, b)
  return _solve_triangular(a, b, trans, bool(lower), bool(unit_diagonal))


# ----------------------------------------------------------------------------------------------
# LU, QR, eigen and singular value decompositions, solves

@jit(static_argnames=("permute_l",))
def _lu(a: Any, permute_l: bool) -> tuple[Any, ...]:
  (a,) = promote_dtypes_inexact(a)
  lu_, _, permutation = lax_linalg.lu(a)
  *_, m, n = jnp.shape(a)
  k = min(m, n)
  p = (permutation[..., None, :] == jnp.arange(m, dtype=permutation.dtype)[:, None]).astype(
      jnp.real(a).dtype)  # real, as JAX's, also for complex a
  lower = jnp.tril(lu_, -1)[..., :, :k] + jnp.eye(m, k, dtype=a.dtype)
  upper = jnp.triu(lu_)[..., :k, :]
  if permute_l:
    return jnp.matmul(p, lower, precision=lax.Precision.HIGHEST), upper
  return p, lower, upper


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Any, ...]:
  """(p, l, u) with a = p l u, l unit lower triangular (m, k) and u upper (k, n), or (p l, u)
  with `permute_l`."""
  del overwrite_a, check_finite
  (a,) = ensure_arraylike("jax.scipy.linalg.lu", a)
  return _lu(a, bool(permute_l))


@jit
def _lu_factor(a: Any) -> tuple[Any, Any]:
  (a,) = promote_dtypes_inexact(a)
  lu_, pivots, _ = lax_linalg.lu(a)
  return lu_, pivots


def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
  """(lu, piv): l and u packed in one matrix and the (int32) row swaps, for `lu_solve`."""
  del overwrite_a, check_finite
  (a,) = ensure_arraylike("jax.scipy.linalg.lu_factor", a)
  return _lu_factor(a)


def _lu_solve_one(lu_: Any, permutation: Any, b: Any, trans: int) -> Any:
  if jnp.ndim(b) == 1:
    return jnp_linalg.lu_solve(lu_, permutation, b[:, None], trans)[:, 0]
  return jnp_linalg.lu_solve(lu_, permutation, b, trans)


@jit(static_argnames=("trans",))
def _lu_solve(lu_: Any, pivots: Any, b: Any, trans: int) -> Any:
  lu_, b = promote_dtypes_inexact(lu_, b)
  permutation = lax_linalg.lu_pivots_to_permutation(pivots, jnp.shape(lu_)[-2])
  vector = jnp.ndim(b) == 1 or (jnp.ndim(lu_) == jnp.ndim(b) + 1
                                and jnp.shape(lu_)[-1] == jnp.shape(b)[-1])
  signature = "(n,n),(n),(n)->(n)" if vector else "(n,n),(n),(n,k)->(n,k)"
  return jnp.vectorize(functools.partial(_lu_solve_one, trans=trans),
                       signature=signature)(lu_, permutation, b)


def lu_solve(lu_and_piv: tuple[Any, Any], b: Any, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Any:
  """x with a x = b (`trans` 0), a^T x = b (1) or a^H x = b (2), for a given by `lu_factor`."""
  del overwrite_b, check_finite
  if trans not in (0, 1, 2):
    raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
  lu_, pivots = lu_and_piv
  lu_, pivots, b = ensure_arraylike("jax.scipy.linalg.lu_solve", lu_, pivots, b)
  return _lu_solve(lu_, pivots, b, trans)


@jit(static_argnames=("mode", "pivoting"))
def _qr(a: Any, mode: str, pivoting: bool) -> tuple[Any, ...]:
  if mode not in ("full", "r", "economic"):
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  (a,) = promote_dtypes_inexact(a)
  q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")
  return (r, *p) if mode == "r" else (q, r, *p)


def qr(a: Any, overwrite_a: bool = False, lwork: Any = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Any, ...]:
  """(q, r) with a = q r: q square for mode 'full', (m, k) for 'economic'; (r,) for 'r'."""
  del overwrite_a, lwork, check_finite
  (a,) = ensure_arraylike("jax.scipy.linalg.qr", a)
  return _qr(a, mode, bool(pivoting))


@jit(static_argnames=("lower", "eigvals_only"))
def _eigh(a: Any, lower: bool, eigvals_only: bool) -> Any:
  (a,) = promote_dtypes_inexact(a)
  v, w = lax_linalg.eigh(a, lower=lower)
  return w if eigvals_only else (w, v)


def eigh(a: Any, b: Any = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True,
         eigvals: None = None, type: int = 1, check_finite: bool = True) -> Any:  # noqa: A002
  """(w, v): the ascending eigenvalues and the eigenvectors of a Hermitian matrix, from its
  `lower` or upper triangle; w only with `eigvals_only`."""
  del overwrite_a, overwrite_b, turbo, check_finite
  if b is not None:
    raise NotImplementedError("Only the b=None case of eigh is implemented")
  if type != 1:
    raise NotImplementedError("Only the type=1 case of eigh is implemented.")
  if eigvals is not None:
    raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
  (a,) = ensure_arraylike("jax.scipy.linalg.eigh", a)
  return _eigh(a, bool(lower), bool(eigvals_only))


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Any:
  """(u, s, vh) with a = u diag(s) vh, or s alone without `compute_uv`."""
  del overwrite_a, check_finite, lapack_driver
  (a,) = ensure_arraylike("jax.scipy.linalg.svd", a)
  out = jnp_linalg.svd(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
  return tuple(out) if compute_uv else out


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
  """The determinant of each square matrix."""
  del overwrite_a, check_finite
  return jnp_linalg.det(a)


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
  """The inverse of each square matrix."""
  del overwrite_a, check_finite
  return jnp_linalg.inv(a)


def _cho_solver(a: Any, lower: bool) -> Any:
  """b -> a^-1 b, from one Cholesky factorization of the positive-definite `a`."""
  return functools.partial(_cho_solve, _cholesky(a, lower), lower=lower)


@jit(static_argnames=("assume_a", "lower"))
def _solve(a: Any, b: Any, assume_a: str, lower: bool) -> Any:
  if assume_a != "pos":
    return jnp_linalg.solve(a, b)
  return jnp_linalg.solve_with("jax.scipy.linalg.solve", a, b,
                               functools.partial(_cho_solver, lower=lower))


def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, debug: bool = False, check_finite: bool = True,
          assume_a: str = "gen") -> Any:
  """x with a x = b: by LU, or by Cholesky (of the `lower` or upper triangle) for
  assume_a='pos'."""
  del overwrite_a, overwrite_b, debug, check_finite
  valid = ["gen", "sym", "her", "pos"]
  if assume_a not in valid:
    raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
  a, b = ensure_arraylike("jax.scipy.linalg.solve", a, b)
  return _solve(a, b, assume_a, bool(lower))


# ----------------------------------------------------------------------------------------------
# Matrix exponential: Pade approximation with scaling and squaring (Higham 2005), as JAX

def _pade_coefficients(order: int) -> list[float]:
  """b_k = (2m - k)! m! / ((2m)! k! (m - k)!), scaled so that b_m = 1."""
  return [float(math.factorial(2 * order - k) // (math.factorial(k)
                                                  * math.factorial(order - k)))
          for k in range(order + 1)]


def _precise_dot(x: Any, y: Any) -> Any:
  return jnp.dot(x, y, precision=lax.Precision.HIGHEST)


def _pade(order: int) -> Callable[[Any], tuple[Any, Any]]:
  """A -> (U, V), the odd and even parts of the order-`order` Pade numerator."""
  b = _pade_coefficients(order)

  def uv(a):
    ident = jnp.eye(*jnp.shape(a), dtype=a.dtype)
    powers = [ident, _precise_dot(a, a)]  # A^0, A^2, A^4, ...
    while len(powers) < (4 if order == 13 else (order + 1) // 2):
      powers.append(_precise_dot(powers[-1], powers[1]))
    odd = [b[2 * i + 1] * x for i, x in enumerate(powers)]
    even = [b[2 * i] * x for i, x in enumerate(powers)]
    if order == 13:  # the terms above A^6 are folded into one product with A^6
      a6 = powers[3]
      odd[3] = odd[3] + _precise_dot(a6, b[13] * a6 + b[11] * powers[2] + b[9] * powers[1])
      even[3] = even[3] + _precise_dot(a6, b[12] * a6 + b[10] * powers[2] + b[8] * powers[1])
    return (_precise_dot(a, functools.reduce(operator.add, odd[::-1])),
            functools.reduce(operator.add, even[::-1]))
  return uv


# dtype size -> (largest 1-norm for no scaling, 1-norm bounds between the Pade orders, orders)
_EXPM = {4: (3.925724783138660, (4.258730016922831e-001, 1.880152677804762e+000), (3, 5, 7)),
         8: (5.371920351148152, (1.495585217958292e-002, 2.539398330063230e-001,
                                 9.504178996162932e-001, 2.097847961257068e+000),
             (3, 5, 7, 9, 13))}


def _expm_2d(a: Any, upper_triangular: bool, max_squarings: int) -> Any:
  norm1 = jnp_linalg.norm(a, 1)
  max_norm, bounds, orders = _EXPM[np.dtype(jnp.real(a).dtype).itemsize]
  n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm1 / max_norm)))
  a_scaled = a / 2 ** n_squarings.astype(a.dtype)
  index = jnp.digitize(norm1, jnp.array(bounds, dtype=norm1.dtype))
  u, v = lax.switch(index, [_pade(order) for order in orders], a_scaled)
  p, q = u + v, -u + v

  def compute(args):
    p, q = args
    r = _solve_triangular(q, p, 0, False, False) if upper_triangular else jnp_linalg.solve(q, p)
    def square(r, i):
      return lax.cond(i < n_squarings, lambda x: _precise_dot(x, x), lambda x: x, r), None
    return lax.scan(square, r, jnp.arange(max_squarings, dtype=n_squarings.dtype))[0]

  return lax.cond(n_squarings > max_squarings, lambda args: jnp.full_like(args[0], np.nan),
                  compute, (p, q))


@jit(static_argnames=("upper_triangular", "max_squarings"))
def _expm(a: Any, upper_triangular: bool, max_squarings: int) -> Any:
  (a,) = promote_dtypes_inexact(a)
  if jnp.ndim(a) < 2 or jnp.shape(a)[-1] != jnp.shape(a)[-2]:
    raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={jnp.shape(a)}.")
  if jnp.real(a).dtype not in (np.float32, np.float64):
    raise TypeError(f"A.dtype={a.dtype} is not supported.")
  return jnp.vectorize(functools.partial(_expm_2d, upper_triangular=upper_triangular,
                                         max_squarings=max_squarings),
                       signature="(n,n)->(n,n)")(a)


def expm(A: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:  # noqa: N803
  """The matrix exponential of each square matrix, by a Pade approximant of the matrix scaled
  by 2^-s, squared s times; NaNs where more than `max_squarings` squarings would be needed."""
  (A,) = ensure_arraylike("jax.scipy.linalg.expm", A)
  return _expm(A, bool(upper_triangular), int(max_squarings))


def expm_frechet(A: Any, E: Any, *, method: str | None = None,  # noqa: N803
                 compute_expm: bool = True) -> Any:
  """(expm(A), the derivative of expm at A in the direction E), or the derivative alone."""
  del method
  A, E = ensure_arraylike("jax.scipy.linalg.expm_frechet", A, E)
  if jnp.ndim(A) < 2 or jnp.shape(A)[-2] != jnp.shape(A)[-1]:
    raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={jnp.shape(A)}")
  if jnp.ndim(E) < 2 or jnp.shape(E)[-2] != jnp.shape(E)[-1]:
    raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={jnp.shape(E)}")
  if jnp.shape(A) != jnp.shape(E):
    raise ValueError(f"expected A and E to be the same shape, got A.shape={jnp.shape(A)} "
                     f"E.shape={jnp.shape(E)}")
  expm_a, frechet = jvp(expm, (A,), (E,))
  return (expm_a, frechet) if compute_expm else frechet


# ----------------------------------------------------------------------------------------------
# Constructions over the decompositions

@jit
def block_diag(*arrs: Any) -> Any:
  """The block-diagonal matrix of the given (at most 2-D) arrays."""
  if not arrs:
    arrs = (jnp.zeros((1, 0)),)
  arrs = tuple(promote_dtypes(*ensure_arraylike("jax.scipy.linalg.block_diag", *arrs)))
  for i, a in enumerate(arrs):
    if jnp.ndim(a) > 2:
      raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                       f"dimensions, got {a} at argument {i}.")
  blocks = [jnp.atleast_2d(a) for a in arrs]
  total = sum(jnp.shape(b)[1] for b in blocks)
  rows, start = [], 0
  for b in blocks:
    cols = jnp.shape(b)[1]
    rows.append(jnp.pad(b, ((0, 0), (start, total - start - cols))))
    start += cols
  return jnp.concatenate(rows, axis=0)


def _polar_2d(a: Any, side: str, method: str) -> tuple[Any, Any]:
  m, n = jnp.shape(a)
  if method == "qdwh" and not ((m >= n and side == "right") or (m < n and side == "left")):
    raise NotImplementedError("method='qdwh' only supports mxn matrices where m < n where "
                              f"side='right' and m >= n side='left', got {jnp.shape(a)} with "
                              f"{side=}")
  if method not in ("qdwh", "svd"):
    raise ValueError(f"Unknown polar decomposition method {method}.")
  u, s, vh = lax_linalg.svd(a, full_matrices=False)
  s = s.astype(u.dtype)
  if side == "right":
    return u @ vh, (jnp.conj(vh.T) * s[None, :]) @ vh
  return u @ vh, (u * s[None, :]) @ jnp.conj(u.T)


@jit(static_argnames=("side", "method"))
def _polar(a: Any, side: str, method: str) -> tuple[Any, Any]:
  (a,) = promote_dtypes_inexact(a)
  signature = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
  return jnp.vectorize(functools.partial(_polar_2d, side=side, method=method),
                       signature=signature)(a)


def polar(a: Any, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None) -> tuple[Any, Any]:
  """(u, p): a = u p (side 'right') or p u ('left'), u with orthonormal columns or rows and p
  Hermitian positive semi-definite. Both methods compute it from the SVD here (stablejax has no
  QDWH iteration), so `eps` and `max_iterations` have no effect."""
  del eps, max_iterations
  (a,) = ensure_arraylike("jax.scipy.linalg.polar", a)
  if jnp.ndim(a) < 2:
    raise ValueError("The input `a` must be at least a 2-D array.")
  if side not in ("right", "left"):
    raise ValueError("The argument `side` must be either 'right' or 'left'.")
  return _polar(a, side, method)
