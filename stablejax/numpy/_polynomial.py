"""numpy's polynomials (the poly1d-style functions), as coefficient arrays, highest power
first: polyval, polyadd, polysub, polymul, polydiv, polyder, polyint, poly, roots and polyfit."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy import linalg
from stablejax.numpy._creation import arange, array, asarray, ones, vander, zeros
from stablejax.numpy._elementwise import where
from stablejax.numpy._indexing_routines import diag
from stablejax.numpy._linalg_products import dot, outer
from stablejax.numpy._logic import all as all_
from stablejax.numpy._manipulation_elements import atleast_1d, roll, trim_zeros
from stablejax.numpy._manipulation_shape import concatenate
from stablejax.numpy._math_arithmetic import sqrt
from stablejax.numpy._math_miscellaneous import convolve
from stablejax.numpy._promotion import (
    broadcast_shapes, dtype, ensure_arraylike, promote_dtypes, promote_dtypes_inexact, shape)
from stablejax.numpy._sorting_searching import argmin


def _order(name: str, m: Any) -> int:
  if isinstance(m, core.Tracer):
    raise core.ConcretizationTypeError(f"'m' argument of jnp.{name} must be concrete")
  return operator.index(m)


def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
  """The polynomial with coefficients p[0], ..., p[-1] at `x` (Horner's rule, by scan)."""
  p, x = promote_dtypes(*map(asarray, ensure_arraylike("polyval", p, x)))
  out_shape = broadcast_shapes("polyval", shape(p)[1:], shape(x))
  y = lax.full(out_shape, 0, dtype(x))
  y, _ = lax.scan(lambda acc, c: (acc * x + c, None), y, p, unroll=unroll)
  return y


def polyadd(a1: Any, a2: Any) -> Any:
  """The sum of two polynomials."""
  a1, a2 = promote_dtypes(*map(asarray, ensure_arraylike("polyadd", a1, a2)))
  if shape(a2)[0] > shape(a1)[0]:
    a1, a2 = a2, a1
  return a1.at[shape(a1)[0] - shape(a2)[0]:].add(a2)


def polysub(a1: Any, a2: Any) -> Any:
  """The difference of two polynomials."""
  a1, a2 = promote_dtypes(*ensure_arraylike("polysub", a1, a2))
  return polyadd(a1, -a2)


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
  """The product of two polynomials."""
  a1, a2 = promote_dtypes_inexact(*ensure_arraylike("polymul", a1, a2))
  if not shape(a1) or not shape(a2):
    raise TypeError("polymul: the coefficients of both polynomials must be 1-d arrays, got "
                    f"shapes {shape(a1)} and {shape(a2)}")
  if trim_leading_zeros and (shape(a1)[0] > 1 or shape(a2)[0] > 1):
    a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
  if not shape(a1)[0]:
    a1 = zeros(1, dtype(a2))
  if not shape(a2)[0]:
    a2 = zeros(1, dtype(a1))
  return convolve(a1, a2, mode="full")


def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
  """(quotient, remainder) of polynomial division u / v."""
  u, v = promote_dtypes_inexact(*map(asarray, ensure_arraylike("polydiv", u, v)))
  m, n = shape(u)[0] - 1, shape(v)[0] - 1
  scale = 1.0 / v[0]
  q = zeros(max(m - n + 1, 1), dtype(u))
  for k in range(m - n + 1):
    d = scale * u[k]
    q = q.at[k].set(d)
    u = u.at[k:k + n + 1].add(-d * v)
  if trim_leading_zeros:
    tol = np.sqrt(np.finfo(dtype(u)).eps)
    values = np.asarray(u)
    nonzero = np.flatnonzero(np.abs(values) >= tol)
    u = u[nonzero[0] if nonzero.size else values.shape[0]:]
  return q, u


def polyder(p: Any, m: int = 1) -> Any:
  """The m-th derivative of the polynomial `p`."""
  (p,) = promote_dtypes_inexact(asarray(*ensure_arraylike("polyder", p)))
  m = _order("polyder", m)
  if m < 0:
    raise ValueError("Order of derivative must be positive")
  if m == 0:
    return p
  n = shape(p)[0]
  coeff = (np.arange(m, n)[None] - np.arange(m)[:, None]).prod(0)[::-1]
  return p[:n - m] * np.asarray(coeff, dtype(p))


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
  """The m-th antiderivative of `p`, with integration constants `k` (scalar or m values)."""
  m = _order("polyint", m)
  p, k = promote_dtypes_inexact(*map(asarray, ensure_arraylike("polyint", p, 0 if k is None
                                                               else k)))
  if m < 0:
    raise ValueError("Order of integral must be positive (see polyder)")
  k = atleast_1d(k)
  if shape(k)[0] == 1:
    k = lax.broadcast_in_dim(k[0], (m,), ())
  if shape(k) != (m,):
    raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
  if m == 0:
    return p
  grid = np.arange(shape(p)[0] + m)[None] - np.arange(m)[:, None]
  coeff = np.maximum(1, grid).prod(0)[::-1]
  return concatenate((p, k)) / np.asarray(coeff, dtype(p))


def poly(seq_of_zeros: Any) -> Any:
  """The coefficients of the monic polynomial with the given roots."""
  (roots,) = promote_dtypes_inexact(*ensure_arraylike("poly", seq_of_zeros))
  roots = atleast_1d(roots)
  s = shape(roots)
  if len(s) == 2 and s[0] == s[1] and s[0]:  # the characteristic polynomial
    roots = linalg.eigvals(roots)
    s = shape(roots)
  elif len(s) != 1:
    raise ValueError("input must be 1d or non-empty square 2d array.")
  if not s[0]:
    return ones((), dtype(roots))
  a = ones((1,), dtype(roots))
  for i in range(s[0]):
    a = convolve(a, concatenate((ones((1,), dtype(roots)), -roots[i:i + 1])), mode="full")
  return a


def _complex_dtype(dt: np.dtype) -> np.dtype:
  return np.result_type(dt, np.complex64)


def _roots_no_zeros(p: Any) -> Any:
  """The eigenvalues of the companion matrix of `p` (whose leading coefficient is nonzero)."""
  n = shape(p)[0]
  if n < 2:
    return array([], dtype=_complex_dtype(dtype(p)))
  companion = diag(ones((n - 2,), dtype(p)), -1).at[0, :].set(-p[1:] / p[0])
  return linalg.eigvals(companion)


def _roots_with_zeros(p: Any, num_leading_zeros: Any) -> Any:
  """The roots of `p` with its (traced number of) leading zeros: NaN for each of them."""
  n = shape(p)[0]
  p = where(num_leading_zeros == n, 1.0, p)  # (all zero: solve something)
  found = _roots_no_zeros(roll(p, -num_leading_zeros))
  found = lax.sort_key_val(found == 0, found)[1]  # (the zero roots last, as the rolled zeros)
  return where(arange(n - 1) < n - 1 - num_leading_zeros, found, complex(np.nan, np.nan))


def roots(p: Any, *, strip_zeros: bool = True) -> Any:
  """The roots of the polynomial `p`: the eigenvalues of its companion matrix (complex).
  Leading zeros are stripped, which needs a concrete `p`; with `strip_zeros=False` each gives
  a NaN root instead."""
  (p,) = promote_dtypes_inexact(*ensure_arraylike("roots", p))
  p = atleast_1d(p)
  if len(shape(p)) != 1:
    raise ValueError("Input must be a rank-1 array.")
  if shape(p)[0] < 2:
    return array([], dtype=_complex_dtype(dtype(p)))
  num_leading_zeros = where(all_(p == 0), shape(p)[0], argmin(p == 0))
  if not strip_zeros:
    return _roots_with_zeros(p, num_leading_zeros)
  num_leading_zeros = operator.index(core.concrete_or_error(
      num_leading_zeros, "jnp.roots strips leading zeros, which needs a concrete p: under jit "
      "pass strip_zeros=False (each leading zero then gives a NaN root)"))
  return _roots_no_zeros(p[num_leading_zeros:])


def _polyfit_operands(x: Any, y: Any, deg: Any, w: Any) -> tuple[Any, Any, int, Any]:
  """x, y, the order (deg + 1) and the weights, checked as JAX checks them."""
  args = ensure_arraylike("polyfit", x, y, *(() if w is None else (w,)))
  x, y = asarray(args[0]), asarray(args[1])
  deg = operator.index(core.concrete_or_error(deg, "deg must be int"))
  if deg < 0:
    raise ValueError("expected deg >= 0")
  if len(shape(x)) != 1:
    raise TypeError("expected 1D vector for x")
  if not shape(x)[0]:
    raise TypeError("expected non-empty vector for x")
  if not 1 <= len(shape(y)) <= 2:
    raise TypeError("expected 1D or 2D array for y")
  if shape(x)[0] != shape(y)[0]:
    raise TypeError("expected x and y to have same length")
  if w is not None:
    (w,) = promote_dtypes_inexact(args[2])
    if len(shape(w)) != 1:
      raise TypeError("expected a 1-d array for weights")
    if shape(w)[0] != shape(y)[0]:
      raise TypeError("expected w and y to have the same length")
  return x, y, deg + 1, w


def polyfit(x: Any, y: Any, deg: int, rcond: float | None = None, full: bool = False,
            w: Any = None, cov: bool = False) -> Any:
  """The least-squares fit of a polynomial of degree `deg` to the points (x, y) (each column
  of a 2-D y), highest power first; with `full`, also lstsq's residuals, rank, singular values
  and rcond; with `cov`, also the coefficients' covariance ("unscaled": not scaled by the
  residuals)."""
  x, y, order, w = _polyfit_operands(x, y, deg, w)
  if rcond is None:
    rcond = shape(x)[0] * float(dtypes.finfo(dtype(x)).eps)
  rcond = float(core.concrete_or_error(rcond, "rcond must be float"))
  lhs, rhs = vander(x, order), y
  if w is not None:
    lhs = lhs * w[:, None]
    rhs = rhs * (w[:, None] if len(shape(rhs)) == 2 else w)
  scale = sqrt((lhs * lhs).sum(axis=0))  # (scaled columns condition lstsq better)
  lhs = lhs / scale[None, :]
  c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
  c = (c.T / scale[None, :]).T if len(shape(c)) > 1 else c / scale
  if full:
    return c, resids, rank, s, asarray(rcond)
  if not cov:
    return c
  vbase = linalg.inv(dot(lhs.T, lhs)) / outer(scale, scale)
  if cov == "unscaled":
    fac = array(1.0)
  elif shape(x)[0] <= order:
    raise ValueError("the number of data points must exceed order to scale the covariance "
                     "matrix")
  else:
    fac = resids / (shape(x)[0] - order)
  if len(shape(y)) == 1:
    return c, vbase * atleast_1d(fac)[None]
  return c, vbase[:, :, None] * atleast_1d(fac)[None, None, :]
