"""numpy's statistics: order statistics (max, min, ptp, quantile, percentile and their nan
variants), averages and variances (mean, var, std, average, median and their nan variants; the
reductions over `_reductions`), correlating (cov, corrcoef; `correlate` is beside `convolve` in
`_math_miscellaneous`) and histograms (histogram, histogram2d, histogramdd, histogram_bin_edges,
bincount, digitize)."""
from __future__ import annotations

import builtins
from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.jit import jit
from stablejax.lax.sharding import apply_out_sharding
from stablejax.numpy._creation import asarray, full, linspace, zeros
from stablejax.numpy._elementwise import where
from stablejax.numpy._indexing_routines import diag, ix_, ravel_multi_index, take_along_axis
from stablejax.numpy._linalg_products import dot
from stablejax.numpy._logic import all as all_, isnan
from stablejax.numpy._manipulation_elements import atleast_2d
from stablejax.numpy._manipulation_shape import (
    concatenate, moveaxis, ravel, reshape, squeeze, stack)
from stablejax.numpy._math_arithmetic import absolute, clip, divide, imag, real, sqrt, true_divide
from stablejax.numpy._math_sums import diff, nansum, sum as sum_
from stablejax.numpy._promotion import (
    broadcast_to, concrete_int, convert, dtype as dtype_of, ensure_arraylike,
    promote_dtypes_inexact, promote_shapes, scalar_like, shape, to_inexact)
from stablejax.numpy._reductions import (
    MAX, MIN, Axis, check_out, check_where, computation_dtype, nan_reduction, reduce,
    reduced_axes, user_dtype)
from stablejax.numpy._sorting_searching import searchsorted
from stablejax.shape_poly import is_symbolic_dim, max_dim
from stablejax.util import canonicalize_axis
from stablejax.util import prod as size_of


# ----------------------------------------------------------------------------------------------
# Order statistics: extrema and range

def max(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None, where: Any = None) -> Any:
  """The maximum of `a` over `axis` (all axes when None); NaN if any element is NaN."""
  check_out("max", out)
  return reduce("max", MAX, a, axis, None, keepdims, initial, where, has_identity=False)


def min(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None, where: Any = None) -> Any:
  """The minimum of `a` over `axis` (all axes when None); NaN if any element is NaN."""
  check_out("min", out)
  return reduce("min", MIN, a, axis, None, keepdims, initial, where, has_identity=False)


amax, amin = max, min


def _nan_extremum(name: str, reduction: Callable, fill: float, a: Any, axis: Axis,
                  keepdims: bool, initial: Any, where: Any) -> Any:
  """`reduction` ignoring NaNs; NaN where every element is NaN, unless `initial` is given (as
  JAX, which then returns `initial` there)."""
  (a,) = ensure_arraylike(name, a)
  out = nan_reduction(name, reduction, fill, a, axis, keepdims, where, initial=initial)
  if not dtypes.is_inexact(dtype_of(a)) or initial is not None:
    return out
  return lax.select_n(all_(isnan(a), axis, keepdims=keepdims), out, lax.full_like(out, np.nan))


def nanmax(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
  """The maximum over `axis` ignoring NaNs (NaN where all are NaN)."""
  check_out("nanmax", out)
  return _nan_extremum("nanmax", max, -np.inf, a, axis, keepdims, initial, where)


def nanmin(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
  """The minimum over `axis` ignoring NaNs (NaN where all are NaN)."""
  check_out("nanmin", out)
  return _nan_extremum("nanmin", min, np.inf, a, axis, keepdims, initial, where)


def ptp(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False) -> Any:
  """The range (maximum minus minimum) of `a` over `axis`."""
  check_out("ptp", out)
  return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


# ----------------------------------------------------------------------------------------------
# Order statistics: quantiles and percentiles

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _quantile_weights(name: str, a: Any, weights: Any, axis: Any, method: str) -> tuple:
  """`a` and `weights` promoted together, the weights checked and broadcast to a's shape (as
  JAX, which takes weights only with method 'inverted_cdf')."""
  if weights is None:
    return a, None
  (weights,) = ensure_arraylike(name, weights)
  if dtypes.is_complex(dtype_of(weights)):
    raise ValueError("Weights cannot be complex types.")
  if method != "inverted_cdf":
    raise NotImplementedError(f"{method} doesn't support weights. Only method 'inverted_cdf' "
                              "supports weights.")
  a, weights = promote_dtypes_inexact(a, weights)
  if shape(weights) != shape(a):
    if axis is None:
      raise ValueError("Weights shape must match 'a' shape when axis is None.")
    axes = tuple(canonicalize_axis(ax, len(shape(a))) for ax in np.atleast_1d(axis))
    if shape(weights) != tuple(shape(a)[ax] for ax in axes):
      raise ValueError(f"Weights shape {shape(weights)} must match reduction axes "
                       f"{tuple(shape(a)[ax] for ax in axes)}")
    weights = lax.broadcast_in_dim(weights, shape(a), axes)
  return a, weights


def _sorted_rows(a: Any, weights: Any, axes: tuple[int, ...]) -> tuple:
  """The reduced `axes` of `a` (and of `weights`) moved last, flattened into one and sorted by
  the values of `a`."""
  ndim = len(shape(a))
  kept = [d for d in range(ndim) if d not in axes]
  row_shape = tuple(shape(a)[d] for d in kept) + (size_of(shape(a)[d] for d in axes),)
  rows = lax.reshape(lax.transpose(a, kept + list(axes)), row_shape)
  if weights is None:
    return lax.sort(rows, dimension=len(kept)), None
  wrows = lax.reshape(lax.transpose(weights, kept + list(axes)), row_shape)
  return lax.sort_key_val(rows, wrows, dimension=len(kept))


def _inverted_cdf(rows: Any, wrows: Any, q_flat: Any, count: Any) -> Any:
  """numpy's inverted_cdf method: for each q, the first sorted value whose cumulative weight
  reaches q times the total weight (among the first `count`); NaN where a weight is negative
  or NaN."""
  dt = dtype_of(rows)
  last = len(shape(rows)) - 1
  if wrows is None:
    wrows = lax.full_like(rows, 1)
  bad = lax.bitwise_or(lax.lt(wrows, lax.full_like(wrows, 0)), isnan(wrows))
  clean = lax.select(lax.bitwise_or(bad, isnan(rows)), lax.full_like(wrows, 0), wrows)
  cum = lax.cumsum(clean, axis=last)
  total = lax.squeeze(lax.slice_in_dim(cum, shape(cum)[last] - 1, None, axis=last), (last,))
  target = lax.mul(lax.expand_dims(total, (last,)), lax.broadcast_in_dim(
      q_flat, shape(total) + shape(q_flat), (last,)))
  below = lax.lt(lax.expand_dims(cum, (last,)), lax.expand_dims(target, (last + 1,)))
  idx = lax.reduce_sum(convert(below, np.int32), (last + 1,))
  limit = lax.max(lax.sub(convert(count, np.int32), np.int32(1)), np.int32(0))
  idx = lax.clamp(np.int32(0), idx, lax.broadcast_in_dim(limit, shape(idx), tuple(range(last))))
  out = take_along_axis(rows, idx, axis=-1)
  any_bad = lax.broadcast_in_dim(lax.reduce_or(bad, (last,)), shape(out), tuple(range(last)))
  return lax.select(any_bad, lax.full_like(out, np.nan), lax.convert_element_type(out, dt))


def _quantile(name: str, a: Any, q: Any, axis: Any, method: str, keepdims: bool,
              squash_nans: bool, weights: Any = None) -> Any:
  """Sort the reduced axes, moved last and flattened, and read (and interpolate) the values
  at q * (n - 1), n counting only the non-NaN values when `squash_nans`."""
  a, q = ensure_arraylike(name, a, q)
  if method not in _QUANTILE_METHODS:
    raise ValueError(f"method can only be {', '.join(map(repr, _QUANTILE_METHODS))}; got "
                     f"{method!r}")
  if len(shape(q)) > 1:
    raise ValueError(f"q must be have rank <= 1, got shape {shape(q)}")
  a, q = promote_dtypes_inexact(a, q)
  a, weights = _quantile_weights(name, a, weights, axis, method)
  ndim = len(shape(a))
  axes = tuple(range(ndim)) if axis is None else tuple(
      canonicalize_axis(ax, ndim) for ax in np.atleast_1d(axis))
  rows, wrows = _sorted_rows(a, weights, axes)
  kept_shape, n = shape(rows)[:-1], shape(rows)[-1]
  dt = dtype_of(a)
  nan_count = lax.reduce_sum(convert(isnan(rows), dt), (len(kept_shape),))
  count = lax.sub(lax.full(kept_shape, n, dt), nan_count) if squash_nans else lax.full(
      kept_shape, n, dt)
  q_flat = lax.reshape(convert(q, dt), (size_of(shape(q)),))
  out_shape = kept_shape + shape(q_flat)
  last = lax.broadcast_in_dim(lax.sub(count, lax.full((), 1, dt)), out_shape,
                              tuple(range(len(kept_shape))))
  pos = lax.mul(lax.broadcast_in_dim(q_flat, out_shape, (len(kept_shape),)), last)
  low, high = lax.floor(pos), lax.ceil(pos)

  def at(p):
    idx = lax.clamp(np.int32(0), lax.convert_element_type(p, np.int32),
                    lax.dimension_as_scalar(max_dim(n - 1, 0), np.int32))
    return take_along_axis(rows, idx, axis=-1)

  if method == "linear":
    frac = lax.sub(pos, low)
    out = lax.add(lax.mul(at(low), lax.sub(lax.full((), 1, dt), frac)), lax.mul(at(high), frac))
  elif method == "midpoint":
    out = lax.mul(lax.add(at(low), at(high)), lax.full((), 0.5, dt))
  elif method == "inverted_cdf":
    out = _inverted_cdf(rows, wrows, q_flat, count)
  else:
    half_up = lax.gt(lax.sub(pos, low), lax.full((), 0.5, dt))  # a tie goes down, as JAX
    out = at({"lower": low, "higher": high, "nearest": lax.select(half_up, high, low)}[method])
  if not squash_nans:
    out = where(lax.broadcast_in_dim(lax.gt(nan_count, lax.full((), 0, dt)), out_shape,
                                     tuple(range(len(kept_shape)))), np.nan, out)
  if keepdims:
    kept_shape = tuple(1 if d in axes else s for d, s in enumerate(shape(a)))
  out = lax.reshape(out, kept_shape + shape(q))
  return moveaxis(out, tuple(range(len(kept_shape), len(kept_shape) + len(shape(q)))),
                  tuple(range(len(shape(q)))))


def quantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
  """The `q`-th quantiles (q in [0, 1]) of `a` along `axis`; NaN where a slice holds NaN."""
  return _quantile("quantile", a, q, axis, method, keepdims, False, weights)


def nanquantile(a: Any, q: Any, axis: Any = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
                *, weights: Any = None) -> Any:
  """The `q`-th quantiles of `a` along `axis`, ignoring NaNs."""
  return _quantile("nanquantile", a, q, axis, method, keepdims, True, weights)


def percentile(a: Any, q: Any, axis: Any = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
               *, weights: Any = None, out_sharding: Any = None) -> Any:
  """The `q`-th percentiles (q in [0, 100]) of `a` along `axis`."""
  a, q = ensure_arraylike("percentile", a, q)
  return apply_out_sharding(_quantile("percentile", a, true_divide(q, 100), axis, method,
                                      keepdims, False, weights), out_sharding, "jnp.percentile")


def nanpercentile(a: Any, q: Any, axis: Any = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights: Any = None) -> Any:
  """The `q`-th percentiles of `a` along `axis`, ignoring NaNs."""
  a, q = ensure_arraylike("nanpercentile", a, q)
  return _quantile("nanpercentile", a, true_divide(q, 100), axis, method, keepdims, True,
                   weights)


def median(a: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
  """The median of `a` along `axis`."""
  return _quantile("median", a, 0.5, axis, "midpoint", keepdims, False)


def nanmedian(a: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
  """The median of `a` along `axis`, ignoring NaNs."""
  return _quantile("nanmedian", a, 0.5, axis, "midpoint", keepdims, True)


# ----------------------------------------------------------------------------------------------
# Averages and variances (median and nanmedian are with the quantiles, on which they are built)

def _count(a: Any, axes: tuple[int, ...], where: Any, dt: np.dtype,
           keepdims: bool) -> Any:
  """How many elements each reduction sees: the size of `axes`, or the True count of `where`."""
  if where is None:
    n = size_of(shape(a)[i] for i in axes)
    if is_symbolic_dim(n):
      return lax.convert_element_type(lax.dimension_as_value(n), dt)
    return np.asarray(n, dt)[()]
  return sum_(broadcast_to(where, shape(a)), axes, dtype=dt, keepdims=keepdims)


def mean(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         *, where: Any = None) -> Any:
  """The arithmetic mean over `axis` (of the elements where `where` is True), in floating
  point."""
  check_out("mean", out)
  (a,) = ensure_arraylike("mean", a)
  where = check_where("mean", where)
  axes = reduced_axes("mean", axis, len(shape(a)))
  result_dtype = user_dtype(dtype, to_inexact(dtype_of(a)))
  computation = computation_dtype(result_dtype)
  count = _count(a, axes, where, computation, keepdims)
  total = sum_(a, axes, dtype=computation, keepdims=keepdims, where=where)
  return convert(lax.div(total, count), result_dtype)


_arithmetic_mean = mean  # for functions whose `mean` parameter hides it


def _var_dtypes(name: str, a_dtype: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
  """(computation dtype, result dtype) of var/std: floating point, real for complex input."""
  if dtype is not None:
    dtype = user_dtype(dtype, a_dtype)
    if dtypes.is_complex(a_dtype) and not dtypes.is_complex(dtype):
      raise ValueError(f"jax.numpy.{name} does not yet support real dtype parameters when "
                       "computing the variance of an array of complex values.")
    return computation_dtype(dtype), dtype
  if not dtypes.is_inexact(a_dtype):
    return computation_dtype(dtypes.default_float()), dtypes.default_float()
  return computation_dtype(a_dtype), np.zeros((), a_dtype).real.dtype


def _correction(ddof: int, correction: int | float | None) -> int | float:
  if correction is None:
    return ddof
  if ddof != 0:
    raise ValueError("ddof and correction can't be provided simultaneously.")
  return correction


def _abs2(x: Any) -> Any:
  """|x|**2, real for complex x."""
  return lax.real(lax.mul(x, lax.conj(x))) if dtypes.is_complex(dtype_of(x)) else lax.square(x)


def var(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, mean: Any = None,
        correction: int | float | None = None) -> Any:
  """The variance over `axis`: the mean squared deviation with `correction` (or `ddof`)
  subtracted from the count; NaN where that count is not positive."""
  check_out("var", out)
  (a,) = ensure_arraylike("var", a)
  return _var(a, axis=_static_axis(axis), dtype=dtype, correction=_correction(ddof, correction),
              keepdims=keepdims, where=where, a_mean=mean)


def _static_axis(axis: Axis) -> Axis:
  """`axis` hashable, as a static argument of a jitted function."""
  return tuple(axis) if isinstance(axis, list) else axis


# As JAX's, var and std are jitted functions: their transposes sum the cotangents inside the
# call before adding them to the caller's, which decides the rounding of a gradient through them.
@jit(static_argnames=("axis", "dtype", "keepdims"))
def _var(a: Any, *, axis: Axis, dtype: Any, correction: Any, keepdims: bool, where: Any,
         a_mean: Any) -> Any:
  where = check_where("var", where)
  computation, result_dtype = _var_dtypes("var", dtype_of(a), dtype)
  a = convert(a, computation)
  axes = reduced_axes("var", axis, len(shape(a)))
  if a_mean is None:
    a_mean = _arithmetic_mean(a, axes, computation, keepdims=True, where=where)
  a_mean = convert(a_mean, computation)
  real = computation_dtype(np.zeros((), computation).real.dtype)
  total = sum_(_abs2(lax.sub(a, a_mean)), axes, dtype=real, keepdims=keepdims, where=where)
  count = lax.sub(_count(a, axes, where, real, keepdims), convert(correction, real))
  result = lax.div(total, count)
  result = lax.select_n(lax.gt(count, scalar_like(count, 0)),
                        lax.full_like(result, np.nan), result)
  return convert(result, result_dtype)


def std(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, mean: Any = None,
        correction: int | float | None = None) -> Any:
  """The standard deviation over `axis`: the square root of `var`."""
  check_out("std", out)
  (a,) = ensure_arraylike("std", a)
  return _std(a, axis=_static_axis(axis), dtype=dtype, correction=_correction(ddof, correction),
              keepdims=keepdims, where=where, mean=mean)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def _std(a: Any, *, axis: Axis, dtype: Any, correction: Any, keepdims: bool, where: Any,
         mean: Any) -> Any:
  return lax.sqrt(var(a, axis, dtype, None, keepdims=keepdims, where=where, mean=mean,
                      correction=correction))


def average(a: Any, axis: Axis = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:
  """The mean over `axis` weighted by `weights` (the shape of `a`, or of `a` along `axis`);
  with `returned`, also the sum of the weights."""
  (a,) = ensure_arraylike("average", a)
  axes = reduced_axes("average", axis, len(shape(a)))
  if weights is None:
    (a,) = promote_dtypes_inexact(a)
    avg = _arithmetic_mean(a, axis, keepdims=keepdims)
    weights_sum = lax.full((), size_of(shape(a)[i] for i in axes), dtype_of(avg))
  else:
    a, weights = promote_dtypes_inexact(*ensure_arraylike("average", a, weights))
    weights = _align_weights(a, weights, axis, axes)
    weights_sum = sum_(weights, axis, keepdims=keepdims)
    avg = lax.div(sum_(lax.mul(a, weights), axis, keepdims=keepdims), weights_sum)
  if not returned:
    return avg
  if shape(weights_sum) != shape(avg):
    weights_sum = broadcast_to(weights_sum, shape(avg))
  return avg, weights_sum


def _align_weights(a: Any, weights: Any, axis: Axis, axes: tuple[int, ...]) -> Any:
  """Weights given along `axes` only, reshaped to broadcast against `a`."""
  a_shape, w_shape = shape(a), shape(weights)
  if a_shape == w_shape:
    return weights
  if axis is None:
    raise ValueError("Axis must be specified when shapes of a and weights differ.")
  if w_shape != tuple(a_shape[i] for i in axes):
    raise ValueError("Shape of weights must be consistent with shape of a along specified "
                     "axis.")
  order = tuple(int(i) for i in np.argsort(axes))
  sorted_axes = tuple(sorted(axes))
  weights = lax.transpose(weights, order) if order != tuple(range(len(order))) else weights
  return lax.broadcast_in_dim(weights, tuple(n if i in axes else 1 for i, n in
                                             enumerate(a_shape)), sorted_axes)


def nanmean(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, where: Any = None) -> Any:
  """The mean over `axis` of the elements that are not NaN."""
  check_out("nanmean", out)
  (a,) = ensure_arraylike("nanmean", a)
  if not dtypes.is_inexact(dtype_of(a)):
    return _arithmetic_mean(a, axis, dtype, keepdims=keepdims, where=where)
  dt = to_inexact(dtype_of(a)) if dtype is None else dtype
  count = sum_(lax.bitwise_not(isnan(a)), axis, dtype=dt, keepdims=keepdims, where=where)
  return lax.div(nansum(a, axis, dtype=dt, keepdims=keepdims, where=where), count)


def nanvar(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:
  """The variance over `axis` of the elements that are not NaN."""
  check_out("nanvar", out)
  (a,) = ensure_arraylike("nanvar", a)
  computation, result_dtype = _var_dtypes("nanvar", dtype_of(a), dtype)
  a = convert(a, computation)
  a_mean = nanmean(a, axis, computation, keepdims=True, where=where) if mean is None else mean
  nan = isnan(a)
  centered = lax.select_n(nan, lax.sub(a, convert(a_mean, computation)),
                          lax.full_like(a, 0))
  count = lax.sub(sum_(lax.bitwise_not(nan), axis, keepdims=keepdims, where=where),
                  np.asarray(ddof, dtypes.default_int())[()])
  empty = lax.le(count, scalar_like(count, 0))
  total = sum_(_abs2(centered), axis, keepdims=keepdims, where=where)
  divisor = convert(lax.select_n(empty, count, lax.full_like(count, 1)), dtype_of(total))
  result = lax.select_n(empty, lax.div(total, divisor), lax.full_like(total, np.nan))
  return convert(result, result_dtype)


def nanstd(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:
  """The standard deviation over `axis` of the elements that are not NaN."""
  check_out("nanstd", out)
  return lax.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean))


# ----------------------------------------------------------------------------------------------
# Correlating

def _check_weights(kind: str, w: Any, n: int) -> Any:
  (w,) = ensure_arraylike("cov", w)
  if len(shape(w)) > 1:
    raise RuntimeError(f"cannot handle multidimensional {kind}")
  if shape(w)[0] != n:
    raise RuntimeError(f"incompatible numbers of samples and {kind}")
  return absolute(w)


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:  # noqa: A002
  """The covariance matrix of the variables (rows, or columns if not rowvar) of m and y."""
  args = ensure_arraylike("cov", *([m] if y is None else [m, y]))
  if len({len(shape(a)) for a in args if shape(a)}) > 1:  # rank promotion (as JAX), which
    args = promote_shapes("cov", *args)  # checks that m and y broadcast
  args = promote_dtypes_inexact(*args)
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
  return squeeze(true_divide(dot(x, _conj(x_t)), fact))


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
    return divide(c, c)
  stddev = convert(sqrt(real(diag(c))), _dt(c))
  c = c / stddev[:, None] / stddev[None, :]
  re = clip(real(c), -1, 1)
  return lax.complex(re, clip(imag(c), -1, 1)) if _dt(c).kind == "c" else re


# ----------------------------------------------------------------------------------------------
# Histograms

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


def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None,
             out_sharding: Any = None) -> Any:
  """The number (or summed weights) of each non-negative integer in `x` (negative values count
  as 0; `length`, static, is required under jit). An `out_sharding` must replicate the result,
  as JAX's."""
  spec = getattr(out_sharding, "spec", out_sharding)
  if spec is not None and any(p is not None for p in spec):
    raise ValueError("out_sharding passed to `jnp.bincount` can only be fully replicated along "
                     f"all mesh axes; got {out_sharding}")
  return apply_out_sharding(_bincount(x, weights, minlength, length), out_sharding,
                            "jnp.bincount")


def _bincount(x: Any, weights: Any, minlength: int, length: int | None) -> Any:
  (x,) = ensure_arraylike("bincount", x)
  if dtype_of(x) == dtypes.bool_:  # (counted as 0 and 1, as JAX does)
    x = lax.convert_element_type(x, dtypes.default_int())
  if not dtypes.is_integer(dtype_of(x)):
    raise TypeError(f"x argument to bincount must have an integer type; got {dtype_of(x)}")
  if len(shape(x)) != 1:
    raise ValueError("only 1-dimensional input supported.")
  minlength = concrete_int(minlength, "The minlength of jnp.bincount")
  if length is None:
    values = np.asarray(core.concrete_or_error(
        x, "jnp.bincount needs a static length= under jit, or a concrete x"))
    length = builtins.max(minlength, int(values.max()) + 1 if values.size else 0)
  length = concrete_int(length, "The length of jnp.bincount")
  if weights is None:
    weights = np.ones((), dtypes.default_int())
  else:
    (weights,) = ensure_arraylike("bincount", weights)
    if shape(weights) != shape(x):
      raise ValueError("shape of weights must match shape of x.")
  zeros = lax.full((length,), 0, dtype_of(weights))
  return zeros.at[clip(x, 0)].add(weights, mode="drop")


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None,  # noqa: A002
                        weights: Any = None) -> Any:
  """The edges of `bins` equal bins over `range` (default: a's min and max), or `bins`
  itself when it is an array."""
  (a,) = ensure_arraylike("histogram_bin_edges", a)
  if isinstance(bins, str):
    raise NotImplementedError("string values for `bins` not implemented.")
  dt = to_inexact(dtype_of(a))
  if np.ndim(bins) == 1:
    return convert(asarray(bins), dt)
  num = concrete_int(bins, "The bins argument of jnp.histogram")
  a = ravel(a)
  lo, hi = (amin(a), amax(a)) if range is None else range
  lo, hi = convert(asarray(lo), dt), convert(asarray(hi), dt)
  empty = lax.eq(lo, hi)
  lo = where(empty, lax.sub(lo, lax.full((), 0.5, dt)), lo)
  hi = where(empty, lax.add(hi, lax.full((), 0.5, dt)), hi)
  return linspace(lo, hi, num + 1, dtype=dt)


def histogram(a: Any, bins: Any = 10, range: Any = None, weights: Any = None,  # noqa: A002
              density: bool | None = None) -> tuple[Any, Any]:
  """(counts or summed weights per bin, bin edges); the last bin includes its right edge and
  values outside the edges are not counted."""
  (a,) = ensure_arraylike("histogram", a)
  edges = histogram_bin_edges(a, bins, range, weights)
  a = ravel(a)
  if weights is None:
    weights = lax.full(shape(a), 1, to_inexact(dtype_of(a)))
  else:
    (weights,) = ensure_arraylike("histogram", weights)
    if shape(ravel(weights)) != shape(a):
      raise ValueError("weights should have the same shape as a.")
    a, weights = promote_dtypes_inexact(a, ravel(weights))
  nedges = shape(edges)[0]
  index = searchsorted(edges, a, side="right")
  index = where(lax.eq(convert(a, dtype_of(edges)), edges[-1]), nedges - 1, index)
  counts = lax.full((nedges + 1,), 0, dtype_of(weights)).at[index].add(weights)[1:-1]
  if density:
    counts = true_divide(true_divide(counts, edges[1:] - edges[:-1]), counts.sum())
  return counts, edges


def digitize(x: Any, bins: Any, right: bool = False, *, method: str | None = None) -> Any:
  """The index of the bin of each of `x` (bins increasing or decreasing monotonically)."""
  x, bins = ensure_arraylike("digitize", x, bins)
  if len(shape(bins)) != 1:
    raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
  n = shape(bins)[0]
  if n == 0:
    return lax.full(shape(x), 0, np.int32)
  side = "left" if right else "right"
  kw = {} if method is None else {"method": method}
  increasing = searchsorted(bins, x, side, **kw)
  decreasing = lax.sub(lax.full((), n, dtype_of(increasing)),
                       searchsorted(lax.rev(bins, (0,)), x, side, **kw))
  return where(lax.ge(bins[-1], bins[0]), increasing, decreasing)
