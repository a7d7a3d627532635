"""Covariance and correlation (cov, corrcoef), multidimensional histograms (histogramdd,
histogram2d) and numerical calculus on samples: trapezoid, interp, gradient and unwrap."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._contractions import dot
from stablejax.numpy._creation import asarray, full, zeros
from stablejax.numpy._indexing_functions import diag, ix_, ravel_multi_index
from stablejax.numpy._manipulation_elements import atleast_2d, diff
from stablejax.numpy._manipulation_shape import concatenate, moveaxis, reshape, squeeze, stack
from stablejax.numpy._promotion import (
    convert, ensure_arraylike, promote_args_inexact, promote_dtypes, promote_dtypes_inexact,
    scalar_like, shape)
from stablejax.numpy._reductions import average, cumsum, sum as sum_
from stablejax.numpy._sorting import bincount, histogram_bin_edges, searchsorted
from stablejax.numpy._ufuncs import BINARY, clip, imag, real, remainder, UNARY, where
from stablejax.util import canonicalize_axis


def _check_weights(kind: str, w: Any, n: int) -> Any:
  (w,) = ensure_arraylike("cov", w)
  if len(shape(w)) > 1:
    raise RuntimeError(f"cannot handle multidimensional {kind}")
  if shape(w)[0] != n:
    raise RuntimeError(f"incompatible numbers of samples and {kind}")
  return UNARY["abs"](w)


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:  # noqa: A002
  """The covariance matrix of the variables (rows, or columns if not rowvar) of m and y."""
  args = [asarray(a) for a in promote_args_inexact("cov", *([m] if y is None else [m, y]))]
  m = args[0]
  if len(shape(m)) > 2:
    raise ValueError("m has more than 2 dimensions")
  if y is not None and len(shape(args[1])) > 2:
    raise ValueError("y has more than 2 dimensions")
  if dtype is not None and not dtypes.is_inexact(np.dtype(dtype)):
    raise ValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype!r}")
  x = atleast_2d(m)
  if not rowvar and len(shape(m)) != 1:
    x = x.T
  if shape(x)[0] == 0:
    return zeros((0, 0), dtypes.default_float())
  if y is not None:
    y2 = atleast_2d(args[1])
    x = concatenate((x, y2.T if not rowvar and shape(y2)[0] != 1 else y2), axis=0)
  nvar, nobs = shape(x)
  if nobs == 0:
    return full(() if nvar == 1 else (nvar, nvar), np.nan, _dt(x))
  ddof = (1 if bias == 0 else 0) if ddof is None else ddof
  w = None
  if fweights is not None:
    w = _check_weights("fweights", fweights, nobs)
    if not dtypes.is_integer(_dt(w)):
      raise TypeError("fweights must be integer.")
  if aweights is not None:
    aweights = _check_weights("aweights", aweights, nobs)
    w = aweights if w is None else w * aweights
  if dtype is not None:
    x = convert(x, dtypes.canonicalize(np.dtype(dtype)))
    w = None if w is None else convert(w, dtypes.canonicalize(np.dtype(dtype)))
  avg, w_sum = average(x, axis=1, weights=w, returned=True)
  w_sum = w_sum[0]
  if w is None:
    fact = nobs - ddof
  elif ddof == 0:
    fact = w_sum
  elif aweights is None:
    fact = w_sum - ddof
  else:
    fact = w_sum - ddof * sum_(w * aweights) / w_sum
  x = x - avg[:, None]
  x_t = x.T if w is None else (x * w).T
  return squeeze(BINARY["true_divide"](dot(x, _conj(x_t)), fact))


def _dt(x: Any) -> np.dtype:
  return core.get_aval(x).dtype


def _conj(x: Any) -> Any:
  return lax.conj(x) if _dt(x).kind == "c" else x


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Any:  # noqa: A002
  """The Pearson correlation coefficients of the variables of x and y, clipped to [-1, 1]."""
  ensure_arraylike("corrcoef", x)
  if dtype is not None and not dtypes.is_inexact(np.dtype(dtype)):
    raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got "
                     f"dtype={dtype!r}")
  c = cov(x, y, rowvar, dtype=dtype)
  if not shape(c):
    return BINARY["divide"](c, c)
  stddev = convert(UNARY["sqrt"](real(diag(c))), _dt(c))
  c = c / stddev[:, None] / stddev[None, :]
  re = clip(real(c), -1, 1)
  return lax.complex(re, clip(imag(c), -1, 1)) if _dt(c).kind == "c" else re


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
  """The integral of samples y (at points x, or spaced dx) by the trapezoidal rule."""
  if x is None:
    (y,) = promote_dtypes_inexact(asarray(*ensure_arraylike("trapezoid", y)))
    d = asarray(dx)
    if shape(d):
      d = lax.broadcast_in_dim(d, (1,) * (len(shape(y)) - len(shape(d))) + shape(d),
                               tuple(range(len(shape(y)) - len(shape(d)), len(shape(y)))))
      d = moveaxis(d, axis, -1)
  else:
    y, x = promote_dtypes_inexact(*map(asarray, ensure_arraylike("trapezoid", y, x)))
    d = diff(x) if len(shape(x)) == 1 else moveaxis(diff(x, axis=axis), axis, -1)
  y = moveaxis(y, axis, -1)
  if not shape(d) or shape(d)[-1] == 1:
    d0 = d if not shape(d) else d[..., 0]
    return d0 * (sum_(y, -1) - 0.5 * (y[..., 0] + y[..., -1]))
  return sum_(0.5 * (d * (y[..., 1:] + y[..., :-1])), -1)


def _extrapolates(name: str, value: Any) -> bool:
  if isinstance(value, str):
    if value != "extrapolate":
      raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but got: "
                       f"{value!r}")
    return True
  return False


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:
  """Piecewise-linear interpolation of the points (xp, fp) at x."""
  x, xp, fp = map(asarray, ensure_arraylike("interp", x, xp, fp))
  if shape(xp) != shape(fp) or len(shape(xp)) != 1:
    raise ValueError("xp and fp must be one-dimensional arrays of equal size")
  x, xp = promote_dtypes_inexact(x, xp)
  (fp,) = promote_dtypes_inexact(fp)
  extrapolate_left, extrapolate_right = _extrapolates("left", left), _extrapolates("right", right)
  if _dt(x).kind == "c":
    raise ValueError("jnp.interp: complex x values not supported.")
  if period is not None:
    if np.ndim(period) != 0:
      raise ValueError(f"period must be a scalar; got {period}")
    period = UNARY["abs"](period)
    x, xp = remainder(x, period), remainder(xp, period)
    xp, fp = lax.sort_key_val(xp, fp)
    xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = concatenate([fp[-1:], fp, fp[:1]])
  i = clip(searchsorted(xp, x, side="right"), 1, shape(xp)[0] - 1)
  df = fp[i] - fp[i - 1]
  dx = xp[i] - xp[i - 1]
  delta = x - xp[i - 1]
  eps = np.spacing(dtypes.finfo(_dt(xp)).eps)
  dx0 = lax.le(UNARY["abs"](dx), scalar_like(dx, eps))
  f = where(dx0, fp[i - 1], fp[i - 1] + delta / where(dx0, 1, dx) * df)
  if period is None and not extrapolate_left:
    f = where(x < xp[0], fp[0] if left is None else left, f)
  if period is None and not extrapolate_right:
    f = where(x > xp[-1], fp[-1] if right is None else right, f)
  return f


def _gradient_along(a: Any, h: Any, axis: int) -> Any:
  def sl(v: Any, start: int | None, stop: int | None) -> Any:
    return lax.slice_in_dim(v, start, stop, axis=axis)
  upper = sl(a, 1, 2) - sl(a, 0, 1)
  lower = sl(a, -1, None) - sl(a, -2, -1)
  if np.ndim(h) == 0:
    inner = (sl(a, 2, None) - sl(a, None, -2)) * 0.5 / h
    return concatenate((upper / h, inner, lower / h), axis=axis)
  if np.ndim(h) != 1:
    raise ValueError("Spacing arrays must be 1D arrays or scalars.")
  if shape(h)[0] != shape(a)[axis]:
    raise ValueError("Spacing arrays must have the same length as the dimension along which the "
                     "gradient is calculated.")
  h = lax.broadcast_in_dim(h, tuple(shape(h)[0] if i == axis else 1
                                    for i in range(len(shape(a)))), (axis,))
  upper = upper / (sl(h, 1, 2) - sl(h, 0, 1))
  lower = lower / (sl(h, -1, None) - sl(h, -2, -1))
  dx1 = sl(h, 1, -1) - sl(h, 0, -2)
  dx2 = sl(h, 2, None) - sl(h, 1, -1)
  inner = (-dx2 / (dx1 * (dx1 + dx2)) * sl(a, 0, -2) + (dx2 - dx1) / (dx1 * dx2) * sl(a, 1, -1)
           + dx1 / (dx2 * (dx1 + dx2)) * sl(a, 2, None))
  return concatenate((upper, inner, lower), axis=axis)


def gradient(f: Any, *varargs: Any, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Any:
  """The gradient of sampled f by central differences (one-sided at the edges)."""
  if edge_order is not None:
    raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
  a, *spacing = promote_dtypes_inexact(*map(asarray, ensure_arraylike("gradient", f, *varargs)))
  nd = len(shape(a))
  axes = tuple(range(nd)) if axis is None else tuple(
      canonicalize_axis(i, nd) for i in (axis if isinstance(axis, (tuple, list)) else (axis,)))
  if not axes:
    return []
  if min(shape(a)[i] for i in axes) < 2:
    raise ValueError("Shape of array too small to calculate a numerical gradient, at least 2 "
                     "elements are required.")
  if not spacing:
    dx = [1.0] * len(axes)
  elif len(spacing) == 1:
    dx = spacing * len(axes)
  elif len(spacing) == len(axes):
    dx = spacing
  else:
    raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis!r}")
  grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, dx)]
  return grads[0] if len(axes) == 1 else grads


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
  """p with jumps larger than discont (default period/2) along axis replaced by their
  complement modulo period."""
  p = asarray(*ensure_arraylike("unwrap", p))
  p, period = promote_dtypes(p, period)
  if _dt(p).kind == "c":
    raise ValueError("jnp.unwrap does not support complex inputs.")
  if shape(p)[axis] == 0:
    return p
  if discont is None:
    discont = period / 2
  interval = period // 2 if dtypes.is_integer(_dt(p)) else period / 2
  dd = diff(p, axis=axis)
  ddmod = remainder(dd + interval, period) - interval
  ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
  correct = where(UNARY["abs"](dd) < discont, 0, ddmod - dd)
  return concatenate((lax.slice_in_dim(p, 0, 1, axis=axis),
                      lax.slice_in_dim(p, 1, None, axis=axis) + cumsum(correct, axis=axis)),
                     axis=axis)


def histogramdd(sample: Any, bins: Any = 10, range: Any = None,  # noqa: A002  (numpy's name)
                weights: Any = None, density: bool | None = None) -> tuple[Any, list]:
  """The histogram of N points in D dimensions (sample of shape (N, D)) and the bin edges of
  each dimension; the last bin of each includes its right edge."""
  if weights is None:
    (sample,) = promote_dtypes_inexact(asarray(*ensure_arraylike("histogramdd", sample)))
  else:
    sample, weights = map(asarray, ensure_arraylike("histogramdd", sample, weights))
    if shape(weights) != shape(sample)[:1]:
      raise ValueError("should have one weight for each sample.")
    sample, weights = promote_dtypes_inexact(sample, weights)
  n, d = shape(sample)
  if range is not None and (len(range) != d or any(
      r is not None and np.shape(r)[0] != 2 for r in range)):
    raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or "
                     f"Nones; got range={range!r}")
  try:
    per_dim = list(bins)
  except TypeError:
    per_dim = [bins] * d
  if len(per_dim) != d:
    raise ValueError("should be a bin for each dimension.")
  edges, idx = [], []
  for i, b in enumerate(per_dim):
    col = sample[:, i]
    e = histogram_bin_edges(col, b, None if range is None else range[i], weights)
    k = searchsorted(e, col, side="right")
    idx.append(where(col == e[-1], k - 1, k))
    edges.append(e)
  nbins = tuple(shape(e)[0] + 1 for e in edges)
  flat = ravel_multi_index(tuple(idx), nbins, mode="clip")
  hist = reshape(bincount(flat, weights, length=int(np.prod(nbins))), nbins)
  hist = hist[(slice(1, -1),) * d]
  if density:
    hist = convert(hist, _dt(sample))
    hist = hist / sum_(hist)
    for norm in ix_(*(diff(e) for e in edges)):
      hist = hist / norm
  return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None,  # noqa: A002
                weights: Any = None, density: bool | None = None) -> tuple[Any, Any, Any]:
  """The 2-D histogram of the points (x, y) and the bin edges along x and y."""
  x, y = map(asarray, ensure_arraylike("histogram2d", x, y))
  try:
    nb = len(bins)
  except TypeError:
    nb = 1
  if nb not in (1, 2):
    bins = [asarray(bins)] * 2
  hist, edges = histogramdd(stack([x, y], axis=1), bins, range, weights, density)
  return hist, edges[0], edges[1]
