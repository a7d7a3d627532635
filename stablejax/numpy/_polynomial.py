"""numpy's polynomials (the poly1d-style functions), as coefficient arrays, highest power
first: polyval, polyadd, polysub, polymul, polydiv, polyder, polyint and poly."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablejax import core, lax
from stablejax.numpy._creation import asarray, ones, zeros
from stablejax.numpy._manipulation_elements import atleast_1d, trim_zeros
from stablejax.numpy._manipulation_shape import concatenate
from stablejax.numpy._math_miscellaneous import convolve
from stablejax.numpy._promotion import (
    broadcast_shapes, dtype, ensure_arraylike, promote_dtypes, promote_dtypes_inexact, shape)


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
  if len(s) == 2 and s[0] == s[1] and s[0]:
    raise NotImplementedError("jnp.poly of a square matrix needs eigvals, not yet supported")
  if len(s) != 1:
    raise ValueError("input must be 1d or non-empty square 2d array.")
  if not s[0]:
    return ones((), dtype(roots))
  a = ones((1,), dtype(roots))
  for i in range(s[0]):
    a = convolve(a, concatenate((ones((1,), dtype(roots)), -roots[i:i + 1])), mode="full")
  return a
