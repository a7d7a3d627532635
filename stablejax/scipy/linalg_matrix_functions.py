"""jax.scipy.linalg's Schur-based routines (scipy.linalg's, with JAX 0.10.2's semantics): the
Schur and Hessenberg forms, rsf2csf, the matrix square root, funm, the Sylvester equation, and
qr_multiply."""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.jit import jit
from stablejax.lax import linalg as lax_linalg
from stablejax.numpy import linalg as jnp_linalg
from stablejax.numpy._promotion import promote_dtypes_inexact

__all__ = ["funm", "hessenberg", "qr_multiply", "rsf2csf", "schur", "solve_sylvester", "sqrtm"]

_HIGHEST = lax.Precision.HIGHEST


def _complex(x: Any) -> Any:
  return x.astype(np.result_type(x.dtype, np.complex64))


def _adjoint(x: Any) -> Any:
  return jnp.conj(jnp.swapaxes(x, -1, -2))


def schur(a: Any, output: str = "real") -> tuple[Any, Any]:
  """(T, Z) with a = Z T Z^H: T quasi-upper triangular (`"real"`) or upper triangular
  (`"complex"`, computed in complex arithmetic)."""
  if output not in ("real", "complex"):
    raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
  return _schur(a, output)


@jit(static_argnames=("output",))
def _schur(a: Any, output: str) -> tuple[Any, Any]:
  a = jnp.asarray(a)
  t, z = lax_linalg.schur(_complex(a) if output == "complex" else a)
  return t, z


@jit(static_argnames=("calc_q", "overwrite_a", "check_finite"))
def hessenberg(a: Any, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Any:
  """The upper Hessenberg form H of each square matrix, and with `calc_q` the unitary Q with
  a = Q H Q^H."""
  a = jnp.asarray(a)
  n = a.shape[-1]
  if n == 0:
    return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
  reduced, taus = lax_linalg.hessenberg(a)
  h = jnp.triu(reduced, -1)
  if not calc_q:
    return h
  q = lax_linalg.householder_product(reduced[..., 1:, :-1], taus)
  q = jnp.pad(q, [(0, 0)] * (a.ndim - 2) + [(1, 0), (1, 0)])
  return h, q.at[..., 0, 0].set(1)


@jit(static_argnames=("check_finite",))
def rsf2csf(T: Any, Z: Any, check_finite: bool = True) -> tuple[Any, Any]:  # noqa: N803
  """The complex Schur form (T, Z) from the real one: each 2 x 2 block of T (a complex pair of
  eigenvalues) is triangularized by a Givens rotation, applied to Z too."""
  t, z = jnp.asarray(T), jnp.asarray(Z)
  if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
    raise ValueError("Input 'T' must be square.")
  if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
    raise ValueError("Input 'Z' must be square.")
  if t.shape[-1] != z.shape[-1]:
    raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
  return jnp.vectorize(_rsf2csf, signature="(n,n),(n,n)->(n,n),(n,n)")(t, z)


def _givens_step(m: Any, t: Any, z: Any) -> tuple[Any, Any]:
  """Zero t[m, m - 1]: rotate rows and columns m - 1, m of t (and columns of z) by the Givens
  rotation taking the block's first eigenvalue shift to the diagonal."""
  n = t.shape[0]
  block = lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))
  mu = jnp_linalg.eigvals(block) - t[m, m]
  r = jnp.sqrt(jnp.abs(mu[0]) ** 2 + jnp.abs(t[m, m - 1]) ** 2).astype(t.dtype)
  c, s = mu[0] / r, t[m, m - 1] / r
  g = jnp.array([[jnp.conj(c), s], [-s, c]], dtype=t.dtype)
  rows = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=0)
  cols_after = np.arange(n) >= m - 1
  rows = jnp.where(cols_after, g @ jnp.where(cols_after, rows, 0), rows)
  t = lax.dynamic_update_slice_in_dim(t, rows, m - 1, axis=0)
  cols = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=1)
  rows_before = (np.arange(n) < m + 1)[:, None]
  cols = jnp.where(rows_before, jnp.where(rows_before, cols, 0) @ _adjoint(g), cols)
  t = lax.dynamic_update_slice_in_dim(t, cols, m - 1, axis=1)
  z_cols = lax.dynamic_slice_in_dim(z, m - 1, 2, axis=1) @ _adjoint(g)
  return t, lax.dynamic_update_slice_in_dim(z, z_cols, m - 1, axis=1)


def _rsf2csf(t: Any, z: Any) -> tuple[Any, Any]:
  dtype = np.result_type(t.dtype, z.dtype, np.complex64)
  t, z = t.astype(dtype), z.astype(dtype)
  n = t.shape[0]
  if n == 1:
    return t, z
  eps = dtypes.finfo(dtype).eps

  def step(i, tz):
    t, z = tz
    m = n - i
    coupled = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
    t, z = lax.cond(coupled, _givens_step, lambda m, t, z: (t, z), m, t, z)
    return t.at[m, m - 1].set(0), z
  return lax.fori_loop(1, n, step, (t, z))


def sqrtm(A: Any, blocksize: int = 1) -> Any:  # noqa: N803
  """The principal square root of a square matrix, from its complex Schur form (complex)."""
  if blocksize > 1:
    raise NotImplementedError("Blocked version is not implemented yet.")
  return _sqrtm(A)


@jit
def _sqrtm(a: Any) -> Any:
  t, z = schur(a, output="complex")
  root = _triangular_sqrt(t)
  return jnp.matmul(jnp.matmul(z, root, precision=_HIGHEST), _adjoint(z), precision=_HIGHEST)


def _triangular_sqrt(t: Any) -> Any:
  """U upper triangular with U U = t (upper triangular), column by column, each column from
  the diagonal up."""
  diagonal = jnp.sqrt(jnp.diag(t))
  n = diagonal.shape[0]
  index = np.arange(n)

  def entry(l, ju):
    j, u = ju
    i = j - 1 - l
    between = (index > i) & (index < j)
    s = jnp.sum(jnp.where(between, u[i, :] * u[:, j], 0))
    value = jnp.where(t[i, j] == s, 0, (t[i, j] - s) / (diagonal[i] + diagonal[j]))
    return j, u.at[i, j].set(value)

  def column(j, u):
    return lax.fori_loop(0, j, entry, (j, u))[1]
  return lax.fori_loop(0, n, column, jnp.diag(diagonal))


def funm(A: Any, func: Callable[[Any], Any], disp: bool = True) -> Any:  # noqa: N803
  """f(A) for a scalar function `func` (applied to the eigenvalues), by Parlett's recurrence on
  the complex Schur form; with `disp=False` also an estimate of the relative error."""
  a = jnp.asarray(A)
  if a.ndim != 2 or a.shape[0] != a.shape[1]:
    raise ValueError("expected square array_like input")
  t, z = rsf2csf(*schur(a))
  f = jnp.diag(func(jnp.diag(t))).astype(t.dtype)
  f, smallest_gap = _parlett(f, t)
  f = z @ f @ _adjoint(z)
  if disp:
    return f
  tol = dtypes.finfo(np.float32 if f.dtype == np.complex64 else np.float64).eps
  smallest_gap = jnp.where(smallest_gap == 0.0, tol, smallest_gap)
  error = jnp.where(jnp.any(jnp.isinf(f)), np.inf, jnp.minimum(1, jnp.maximum(
      tol, tol / smallest_gap * jnp_linalg.norm(jnp.triu(t, 1), 1))))
  return f, error


@jit
def _parlett(f: Any, t: Any) -> tuple[Any, Any]:
  """Parlett's recurrence (Golub and Van Loan, algorithm 11.1.1): the off-diagonal of F =
  f(T) superdiagonal by superdiagonal, and the smallest |T_jj - T_ii| it divided by."""
  n = t.shape[0]
  index = np.arange(n)

  def entry(i, state):
    p, f, smallest = state
    j = i + p
    between = (index >= i) & (index < j - 1)
    s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
    s = s + (jnp.where(between, t[i - 1], 0) @ jnp.where(between, f[:, j - 1], 0)
             - jnp.where(between, f[i - 1], 0) @ jnp.where(between, t[:, j - 1], 0))
    gap = t[j - 1, j - 1] - t[i - 1, i - 1]
    f = f.at[i - 1, j - 1].set(jnp.where(gap != 0, s / gap, s))
    return p, f, jnp.minimum(smallest, jnp.abs(gap))

  def superdiagonal(p, state):
    _, f, smallest = lax.fori_loop(1, n - p + 1, entry, (p, *state))
    return f, smallest
  return lax.fori_loop(1, n, superdiagonal, (f, jnp.abs(t[0, 0])))


def solve_sylvester(A: Any, B: Any, C: Any, *, method: str = "schur",  # noqa: N803
                    tol: float = 1e-8) -> Any:
  """X with A X + X B = C (Bartels-Stewart on the complex Schur forms, or `method="eigen"` by
  the eigendecompositions); NaNs where some eigenvalues of A and -B are within `tol`."""
  if method not in ("schur", "eigen"):
    raise ValueError(f"Unrecognized method {method}. The two valid methods are either "
                     "\"schur\" or \"eigen\".")
  a, b, c = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
  m, n = c.shape[-2:]
  if a.shape[-2:] != (m, m) or b.shape[-2:] != (n, n):
    raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {a.shape}\nB: {b.shape}"
                     f"\nC: {c.shape}")
  solve = functools.partial(_sylvester, method=method, tol=tol)
  return jnp.vectorize(solve, signature="(m,m),(n,n),(m,n)->(m,n)")(a, b, c)


@jit(static_argnames=("method",))
def _sylvester(a: Any, b: Any, c: Any, *, method: str, tol: float) -> Any:
  if method == "schur":
    r, u = schur(a, output="complex")
    s, v = schur(_adjoint(b), output="complex")
    y = _triangular_sylvester(r, _adjoint(s), _adjoint(u) @ c.astype(r.dtype) @ v)
    x = u @ y @ _adjoint(v)
  else:
    wa, ua = jnp_linalg.eig(a)
    wb, ub = jnp_linalg.eig(b)
    y = jnp_linalg.solve(ua, c.astype(wa.dtype) @ ub) / (wa[:, None] + wb[None, :])
    x = ua @ y @ jnp_linalg.inv(ub)
  if not jnp.iscomplexobj(c):
    x = x.real
  near_singular = jnp.any(jnp.abs(jnp_linalg.eigvals(a)[:, None]
                                  + jnp_linalg.eigvals(b)[None, :]) < tol)
  return jnp.where(near_singular, jnp.full_like(x, np.nan), x)


def _triangular_sylvester(r: Any, s: Any, f: Any) -> Any:
  """Y with R Y + Y S^T = F for upper triangular R and S, entry by entry from the bottom-right
  corner (each entry needs those below it and right of it)."""
  m, n = f.shape
  rows, cols = np.arange(m), np.arange(n)

  def entry(step, y):
    flat = m * n - 1 - step
    i, j = flat // n, flat % n
    below = jnp.sum(jnp.where(rows > i, r[i, :] * y[:, j], 0))
    right = jnp.sum(jnp.where(cols > j, y[i, :] * s[:, j], 0))
    return y.at[i, j].set((f[i, j] - below - right) / (r[i, i] + s[j, j]))
  return lax.fori_loop(0, m * n, entry, jnp.zeros_like(f))


def qr_multiply(a: Any, c: Any, mode: str = "right", pivoting: bool = False,
                conjugate: bool = False, overwrite_a: bool = False, overwrite_c: bool = False
                ) -> tuple[Any, Any]:
  """(Q c, R) (`mode="left"`) or (c Q, R) (`"right"`) for the economic QR factorization a = Q R,
  Q conjugated with `conjugate`, without forming Q for the caller."""
  if pivoting:
    raise NotImplementedError("qr_multiply: pivoting=True (column-pivoted QR) is not supported "
                              "by stablejax yet")
  a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
  if mode not in ("right", "left"):
    raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
  vector = c.ndim == 1
  if vector:
    c = c[:, None] if mode == "left" else c[None, :]
  m, n = a.shape[-2:]
  k = min(m, n)
  if mode == "left" and c.shape[-2] != k:
    raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                     f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} rows "
                     f"(expected {k}).")
  if mode == "right" and c.shape[-1] != m:
    raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                     f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} columns "
                     f"(expected {m}).")
  q, r = lax_linalg.qr(a, full_matrices=False)
  q = jnp.conj(q) if conjugate else q
  out = jnp.matmul(q, c, precision=_HIGHEST) if mode == "left" else \
      jnp.matmul(c, q, precision=_HIGHEST)
  return (out.ravel() if vector else out), r
