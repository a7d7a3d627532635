"""jax.scipy.linalg's special matrices (scipy.linalg's, as JAX 0.10.2 builds them): Toeplitz,
Hankel, circulant, companion, Fiedler, Leslie, convolution, DFT, Hadamard, Helmert, Hilbert and
Pascal matrices. The ones built from vectors are batched over the vectors' leading axes."""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from stablejax import dtypes, lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import ensure_arraylike, promote_dtypes, promote_dtypes_inexact

__all__ = ["circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion",
           "hadamard", "hankel", "helmert", "hilbert", "invhilbert", "invpascal", "leslie",
           "pascal", "toeplitz"]


def _from_diagonals(values: Any, rows: int, cols: int, offset: int) -> Any:
  """The (rows, cols) matrix whose entry [i, j] is values[i - j + offset]."""
  index = np.arange(rows)[:, None] - np.arange(cols)[None, :] + offset
  return values[..., index]


def toeplitz(c: Any, r: Any | None = None) -> Any:
  """The Toeplitz matrix of first column `c` and first row `r` (default conj(c)); r[0] is
  ignored. Batched over the vectors' leading axes."""
  if r is None:
    (c,) = ensure_arraylike("toeplitz", c)
    r = jnp.conjugate(c)
  else:
    c, r = ensure_arraylike("toeplitz", c, r)
  return jnp.vectorize(_toeplitz, signature="(m),(n)->(m,n)")(jnp.atleast_1d(c),
                                                               jnp.atleast_1d(r))


def _toeplitz(c: Any, r: Any) -> Any:
  m, n = c.shape[0], r.shape[0]
  dtype = jnp.promote_types(c.dtype, r.dtype)
  if m == 0 or n == 0:
    return jnp.empty((m, n), dtype)
  values = jnp.concatenate([r[:0:-1], c]).astype(dtype)  # [i, j] -> values[i - j + n - 1]
  return _from_diagonals(values, m, n, n - 1)


def hankel(c: Any, r: Any | None = None) -> Any:
  """The Hankel matrix of first column `c` and last row `r` (default zeros); r[0] is ignored.
  Batched over the vectors' leading axes."""
  if r is None:
    (c,) = ensure_arraylike("hankel", c)
    r = jnp.zeros_like(c)
  else:
    c, r = ensure_arraylike("hankel", c, r)
  for name, x in (("c", c), ("r", r)):
    if jnp.ndim(x) == 0:
      raise ValueError(f"hankel: {name} must be at least 1-dimensional, got a scalar.")
  return jnp.vectorize(_hankel, signature="(m),(n)->(m,n)")(c, r)


def _hankel(c: Any, r: Any) -> Any:
  m, n = c.shape[0], r.shape[0]
  dtype = jnp.result_type(c, r)
  if m == 0 or n == 0:
    return jnp.empty((m, n), dtype)
  values = jnp.concatenate([c, r[1:]]).astype(dtype)  # [i, j] -> values[i + j]
  return values[np.arange(m)[:, None] + np.arange(n)[None, :]]


def circulant(c: Any) -> Any:
  """The circulant matrix of first column `c`: entry [i, j] is c[(i - j) mod n]."""
  (c,) = ensure_arraylike("circulant", c)
  c = jnp.atleast_1d(c)
  n = c.shape[-1]
  return c[..., (np.arange(n)[:, None] - np.arange(n)[None, :]) % max(n, 1)]


def companion(a: Any) -> Any:
  """The companion matrix of the polynomial with coefficients `a` (highest degree first)."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("companion", a))
  a = jnp.atleast_1d(a)
  if a.shape[-1] < 2:
    raise ValueError("The length of `a` along the last axis must be at least 2; got shape "
                     f"{a.shape}.")
  m = a.shape[-1] - 1
  first_row = -a[..., 1:] / a[..., :1]
  below = jnp.broadcast_to(jnp.eye(m, m, k=-1, dtype=first_row.dtype), (*a.shape[:-1], m, m))
  return jnp.where(np.arange(m)[:, None] == 0, first_row[..., None, :], below)


def fiedler(a: Any) -> Any:
  """The symmetric Fiedler matrix: entry [i, j] is |a[i] - a[j]|."""
  (a,) = ensure_arraylike("fiedler", a)
  a = jnp.atleast_1d(a)
  return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a: Any) -> Any:
  """Fiedler's pentadiagonal companion matrix of the polynomial with coefficients `a`."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("fiedler_companion", a))
  a = jnp.atleast_1d(a)
  if a.shape[-1] == 0:
    raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero length, "
                     f"but got an array of shape {a.shape}.")
  return jnp.vectorize(_fiedler_companion, signature="(n)->(m,m)")(a)


def _fiedler_companion(a: Any) -> Any:
  n = a.shape[0] - 1
  if n == 0:
    return jnp.zeros((0, 0), a.dtype)
  a = a / a[0]
  i, j = np.arange(n)[:, None], np.arange(n)[None, :]
  even, odd = i % 2 == 0, i % 2 == 1
  ones = (i == 1) & (j == 0) | even & (j == i + 2) | odd & (i >= 3) & (j == i - 2)
  # -a[k] at: [0, 0] (k = 1), [i, i + 1] for even i (k = i + 2), [i, i - 1] for even i >= 2
  # (k = i + 1)
  k = np.where((i == 0) & (j == 0), 1, np.where(even & (j == i + 1), i + 2,
                                                np.where(even & (i >= 2) & (j == i - 1), i + 1,
                                                         0)))
  out = jnp.where(k > 0, -a[np.minimum(k, n)], jnp.zeros((), a.dtype))
  return jnp.where(ones, jnp.ones((), a.dtype), out)


def leslie(f: Any, s: Any) -> Any:
  """The Leslie matrix of fecundities `f` (its first row) and survival rates `s` (its
  subdiagonal)."""
  f, s = ensure_arraylike("leslie", f, s)
  f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
  if f.shape[-1] < 2:
    raise ValueError(f"The length of f along the last axis must be at least 2; got shape "
                     f"{f.shape}.")
  if s.shape[-1] != f.shape[-1] - 1:
    raise ValueError("Incorrect lengths for f and s. The length of s along the last axis must "
                     f"be one less than the length of f; got f shape {f.shape} and s shape "
                     f"{s.shape}.")
  f, s = promote_dtypes(f, s)
  n = f.shape[-1]
  batch = jnp.broadcast_shapes(f.shape[:-1], s.shape[:-1])
  padded = jnp.concatenate([jnp.zeros((*s.shape[:-1], 1), s.dtype), s], axis=-1)
  subdiagonal = jnp.where(np.arange(n)[:, None] - 1 == np.arange(n)[None, :],
                          padded[..., :, None], jnp.zeros((), s.dtype))
  return jnp.where(np.arange(n)[:, None] == 0, jnp.broadcast_to(f, (*batch, n))[..., None, :],
                   jnp.broadcast_to(subdiagonal, (*batch, n, n)))


def convolution_matrix(a: Any, n: int, mode: str = "full") -> Any:
  """The Toeplitz matrix A with A @ v = convolve(a, v, mode) for every v of length n."""
  n = operator.index(n)
  if n <= 0:
    raise ValueError(f"n must be a positive integer; got {n}.")
  (a,) = ensure_arraylike("convolution_matrix", a)
  if jnp.ndim(a) == 0:
    raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
  m = a.shape[-1]
  if m < 1:
    raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
  if mode not in ("full", "valid", "same"):
    raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
  trim = min(n, m) - 1
  first = {"full": 0, "same": trim // 2, "valid": trim}[mode]
  rows = {"full": m + n - 1, "same": max(m, n), "valid": max(m, n) - trim}[mode]
  # row i of the full matrix is (a[i - j])_j; `mode` keeps rows first .. first + rows - 1
  zeros = jnp.zeros((*a.shape[:-1], n - 1), a.dtype)
  return _from_diagonals(jnp.concatenate([zeros, a, zeros], axis=-1), rows, n, first + n - 1)


def dft(n: int, scale: str | None = None, *, dtype: Any = None) -> Any:
  """The n x n discrete Fourier transform matrix, exp(-2 pi i j k / n), scaled by 1 / sqrt(n)
  (`scale="sqrtn"`) or 1 / n (`"n"`)."""
  if scale is not None and scale not in ("sqrtn", "n"):
    raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
  dtype = dtypes.default_complex() if dtype is None else np.dtype(dtype)
  if not np.issubdtype(dtype, np.complexfloating):
    raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
  k = jnp.arange(n, dtype=dtype)
  out = jnp.exp(-2j * np.pi * k[:, None] * k[None, :] / n)
  return out / {None: 1, "sqrtn": jnp.sqrt(n), "n": n}[scale]


def hadamard(n: int, dtype: Any = int) -> Any:
  """The n x n Hadamard matrix (Sylvester's construction), n a power of 2."""
  if n < 1 or not math.log2(n).is_integer():
    raise ValueError(f"n must be a positive power of 2; got {n}.")
  out = jnp.ones((1, 1), dtype=dtype)
  for _ in range(int(math.log2(n))):
    out = jnp.block([[out, out], [out, -out]])
  return out


def helmert(n: int, full: bool = False) -> Any:
  """The Helmert matrix: its last n - 1 rows (all n with `full`) are orthonormal."""
  if n < 1:
    raise ValueError(f"n must be a positive integer; got {n}.")
  i, j = np.arange(n - 1)[:, None], np.arange(n)[None, :]
  k = jnp.asarray(i + 1, dtypes.default_float())
  scale = jnp.sqrt(k * (k + 1))
  out = jnp.where(j <= i, 1.0 / scale, jnp.where(j == i + 1, -k / scale, jnp.zeros_like(scale)))
  if full:
    out = jnp.concatenate([jnp.full((1, n), 1.0 / np.sqrt(n), out.dtype), out], axis=0)
  return out


def hilbert(n: int) -> Any:
  """The Hilbert matrix, 1 / (i + j + 1)."""
  a = lax.broadcasted_iota(dtypes.default_float(), (n, 1), 0)
  return 1 / (a + a.T + 1)


def _binomial(n: Any, k: Any) -> Any:
  """C(n, k) as exp of log-gamma functions (as JAX: not rounded to integers)."""
  return jnp.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def invhilbert(n: int) -> Any:
  """The inverse of the n x n Hilbert matrix."""
  a = jnp.arange(n, dtype=dtypes.default_float())
  i, j = a[:, None], a[None, :]
  s = i + j
  return ((-1.0) ** s * (s + 1.0) * _binomial(n + i, n - j - 1) * _binomial(n + j, n - i - 1)
          * _binomial(s, i) ** 2)


def _pascal_kind(kind: str | None) -> str:
  kind = "symmetric" if kind is None else kind
  if kind not in ("symmetric", "lower", "upper"):
    raise ValueError(f"Expected kind to be one of: ['symmetric', 'lower', 'upper']; got {kind}")
  return kind


def pascal(n: int, kind: str | None = None) -> Any:
  """The n x n Pascal matrix: binomial coefficients, `symmetric`, `lower` or `upper`."""
  kind = _pascal_kind(kind)
  a = jnp.arange(n, dtype=np.float32)
  lower = _binomial(a[:, None], a[None, :])
  return {"lower": lower, "upper": lower.T, "symmetric": jnp.dot(lower, lower.T)}[kind]


def invpascal(n: int, kind: str | None = None) -> Any:
  """The inverse of the n x n Pascal matrix of that `kind`."""
  kind = _pascal_kind(kind)
  a = jnp.arange(n, dtype=dtypes.default_float())
  i, j = a[:, None], a[None, :]
  lower = (-1.0) ** (i - j) * _binomial(i, j)
  return {"lower": lower, "upper": lower.T, "symmetric": jnp.dot(lower.T, lower)}[kind]
