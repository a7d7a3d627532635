"""The reductions along axes, which numpy documents in several sections, kept together because
they share one recipe (`_reduce`): sums and products with their cumulative and nan variants
(mathematical functions), max/min (extrema), all/any (logic), mean/var/std/average and their nan
variants (statistics), argmax/argmin and count_nonzero (sorting, searching and counting)."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stablejax import dtypes, lax
from stablejax.numpy._axes import canonicalize_axes, expand_axes
from stablejax.numpy._manipulation_shape import ravel
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype as dtype_of, ensure_arraylike,
    promote_dtypes_inexact, scalar_like, shape, to_inexact)
from stablejax.util import canonicalize_axis
from stablejax.util import prod as size_of

Axis = int | Sequence[int] | None


def _reduced_axes(name: str, axis: Axis, ndim: int) -> tuple[int, ...]:
  return tuple(range(ndim)) if axis is None else canonicalize_axes(name, axis, ndim)


def _promote_integers(dt: np.dtype) -> np.dtype:
  """sum and prod of booleans and narrow integers accumulate in the default integer width."""
  if dt == dtypes.bool_:
    return dtypes.default_int()
  default_bits = dtypes.default_int().itemsize
  if dtypes.is_integer(dt) and dt.itemsize < default_bits:
    return np.dtype(f"{dt.kind}{default_bits}")
  return dt


def _upcast_f16(dt: np.dtype) -> np.dtype:
  return dtypes.float32 if dt in (dtypes.float16, dtypes.bfloat16) else dt


def _user_dtype(dt: Any, default: np.dtype) -> np.dtype:
  """The dtype the user asked for (canonicalized), else `default`."""
  return default if dt is None else dtypes.canonicalize(np.dtype(dt))


class _Monoid(NamedTuple):
  """How a reduction combines: its lax reduction, the elementwise op (applied to `initial`) and
  the op's identity, as a value that `_identity` fits to a dtype."""
  reduce: Callable
  combine: Callable
  identity: float


_SUM = _Monoid(lax.reduce_sum, lax.add, 0)
_PROD = _Monoid(lax.reduce_prod, lax.mul, 1)
_MAX = _Monoid(lax.reduce_max, lax.max, -np.inf)
_MIN = _Monoid(lax.reduce_min, lax.min, np.inf)
_ANY = _Monoid(lax.reduce_or, lax.bitwise_or, 0)
_ALL = _Monoid(lax.reduce_and, lax.bitwise_and, 1)


def _identity(value: float, dt: np.dtype) -> np.generic:
  """`value` in `dt`: a bool is `value > 0`; infinities saturate for integers (JAX's rule)."""
  if dt == dtypes.bool_:
    return np.bool_(value > 0)
  if np.isinf(value) and dt.kind in "iu":
    info = np.iinfo(dt)
    return dt.type(info.min if value < 0 else info.max)
  return np.asarray(value, dt)[()]


def check_where(name: str, where: Any) -> Any:
  """The `where=` mask: None or a boolean array."""
  if where is None:
    return None
  (where,) = ensure_arraylike(name, where)
  if dtype_of(where) != dtypes.bool_:
    raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                     f"where.dtype={dtype_of(where)}.")
  return where


def masked(a: Any, where: Any, fill: Any) -> Any:
  """`a` where `where` is True, else the scalar `fill` (both broadcast together)."""
  out_shape = broadcast_shapes("where", shape(a), shape(where))
  a, where = broadcast_to(a, out_shape), broadcast_to(where, out_shape)
  return lax.select_n(where, lax.full_like(a, fill), a)


def _check_out(name: str, out: Any) -> None:
  if out is not None:
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def _reduce(name: str, monoid: _Monoid, a: Any, axis: Axis, dtype: Any, keepdims: bool,
            initial: Any, where: Any, *, has_identity: bool = True,
            promote_integers: bool = False, upcast_f16: bool = False,
            preproc: Callable | None = None) -> Any:
  """JAX's reduction recipe: mask with the identity, reduce, combine with `initial`, keep dims,
  and return in the requested (or input) dtype, strongly typed."""
  (a,) = ensure_arraylike(name, a)
  where = check_where(name, where)
  if initial is None and not has_identity and where is not None:
    raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                     f"where mask one has to specify 'initial'")
  a = preproc(a) if preproc else a
  axes = _reduced_axes(name, axis, len(shape(a)))
  if initial is None and not has_identity and 0 in [shape(a)[i] for i in axes]:
    raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
  if dtype is None:
    result_dtype = _promote_integers(dtype_of(a)) if promote_integers else dtype_of(a)
  else:
    result_dtype = _user_dtype(dtype, dtype_of(a))
  computation = _upcast_f16(result_dtype) if upcast_f16 else result_dtype
  a = convert(a, computation)
  identity = _identity(monoid.identity, computation)
  if where is not None:
    a = masked(a, where, identity)
  out = monoid.reduce(a, axes)
  if initial is not None:
    out = monoid.combine(_initial_value(initial, computation), out)
  if keepdims:
    out = expand_axes(out, axes)
  return convert(out, result_dtype)


def _initial_value(initial: Any, dt: np.dtype) -> Any:
  (initial,) = ensure_arraylike("initial", initial)
  if shape(initial):
    raise ValueError(f"initial value must be a scalar. Got array of shape {shape(initial)}")
  return convert(initial, dt)


def _to_numeric(a: Any) -> Any:
  """Booleans become the default integer type."""
  return convert(a, dtypes.default_int()) if dtype_of(a) == dtypes.bool_ else a


def _to_bool(a: Any) -> Any:
  """Nonzero as True; a complex value by its real part, as JAX casts it."""
  if dtypes.is_complex(dtype_of(a)):
    a = lax.real(a)
  return a if dtype_of(a) == dtypes.bool_ else lax.ne(a, scalar_like(a, 0))


def sum(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,  # noqa: A001
        keepdims: bool = False, initial: Any = None, where: Any = None,
        promote_integers: bool = True) -> Any:
  """The sum of the elements of `a` over `axis` (all axes when None)."""
  _check_out("sum", out)
  return _reduce("sum", _SUM, a, axis, dtype, keepdims, initial, where,
                 promote_integers=promote_integers, upcast_f16=dtype is None,
                 preproc=_to_numeric)


def prod(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
  """The product of the elements of `a` over `axis` (all axes when None)."""
  _check_out("prod", out)
  return _reduce("prod", _PROD, a, axis, dtype, keepdims, initial, where,
                 promote_integers=promote_integers, upcast_f16=dtype is None,
                 preproc=_to_numeric)


def max(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None, where: Any = None) -> Any:
  """The maximum of `a` over `axis` (all axes when None); NaN if any element is NaN."""
  _check_out("max", out)
  return _reduce("max", _MAX, a, axis, None, keepdims, initial, where, has_identity=False)


def min(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None, where: Any = None) -> Any:
  """The minimum of `a` over `axis` (all axes when None); NaN if any element is NaN."""
  _check_out("min", out)
  return _reduce("min", _MIN, a, axis, None, keepdims, initial, where, has_identity=False)


amax, amin = max, min


def any(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, *,  # noqa: A001
        where: Any = None) -> Any:
  """Whether any element of `a` over `axis` is nonzero."""
  _check_out("any", out)
  return _reduce("any", _ANY, a, axis, None, keepdims, None, where, preproc=_to_bool)


def all(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, *,  # noqa: A001
        where: Any = None) -> Any:
  """Whether every element of `a` over `axis` is nonzero."""
  _check_out("all", out)
  return _reduce("all", _ALL, a, axis, None, keepdims, None, where, preproc=_to_bool)


def count_nonzero(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
  """The number of nonzero elements of `a` over `axis`, in the default integer type."""
  (a,) = ensure_arraylike("count_nonzero", a)
  return sum(lax.ne(a, scalar_like(a, 0)), axis, dtype=dtypes.default_int(), keepdims=keepdims)


def ptp(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False) -> Any:
  """The range (maximum minus minimum) of `a` over `axis`."""
  _check_out("ptp", out)
  return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def _count(a: Any, axes: tuple[int, ...], where: Any, dt: np.dtype,
           keepdims: bool) -> Any:
  """How many elements each reduction sees: the size of `axes`, or the True count of `where`."""
  if where is None:
    return np.asarray(size_of(shape(a)[i] for i in axes), dt)[()]
  return sum(broadcast_to(where, shape(a)), axes, dtype=dt, keepdims=keepdims)


def mean(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         *, where: Any = None) -> Any:
  """The arithmetic mean over `axis` (of the elements where `where` is True), in floating
  point."""
  _check_out("mean", out)
  (a,) = ensure_arraylike("mean", a)
  where = check_where("mean", where)
  axes = _reduced_axes("mean", axis, len(shape(a)))
  result_dtype = _user_dtype(dtype, to_inexact(dtype_of(a)))
  computation = _upcast_f16(result_dtype)
  count = _count(a, axes, where, computation, keepdims)
  total = sum(a, axes, dtype=computation, keepdims=keepdims, where=where)
  return convert(lax.div(total, count), result_dtype)


_arithmetic_mean = mean  # for functions whose `mean` parameter hides it


def _arg_reduction(name: str, lax_name: str) -> Callable:
  def arg_reduce(a: Any, axis: int | None = None, out: None = None,
                 keepdims: bool | None = None) -> Any:
    _check_out(name, out)
    (a,) = ensure_arraylike(name, a)
    ndim = len(shape(a))
    if axis is None:
      a, lax_axis = ravel(a), 0
    else:
      lax_axis = canonicalize_axis(axis, ndim)
    out = getattr(lax, lax_name)(a, lax_axis, dtypes.default_int())
    if keepdims:
      out = expand_axes(out, tuple(range(ndim)) if axis is None else (lax_axis,))
    return out
  arg_reduce.__name__ = arg_reduce.__qualname__ = name
  arg_reduce.__doc__ = f"The index of the {name[3:]} along `axis` (of the flattened array " \
                       "when None)."
  return arg_reduce


argmax = _arg_reduction("argmax", "argmax")
argmin = _arg_reduction("argmin", "argmin")


def _accumulate(name: str, lax_fn: Callable, a: Any, axis: int | None, dtype: Any,
                nan_fill: Any = None, promote_integers: bool = False) -> Any:
  """A cumulative reduction along `axis` (of the flattened array when None), JAX's dtypes:
  booleans (and narrow integers when `promote_integers`) accumulate in the default int."""
  (a,) = ensure_arraylike(name, a)
  if axis is None or not shape(a):
    a = ravel(a)
  axis = canonicalize_axis(0 if axis is None else axis, len(shape(a)))
  if nan_fill is not None and dtypes.is_inexact(dtype_of(a)):
    a = lax.select_n(lax.ne(a, a), a, lax.full_like(a, nan_fill))
  a_dtype = dtype_of(a)
  if dtype is None:
    result_dtype = (_promote_integers(a_dtype) if promote_integers or a_dtype == dtypes.bool_
                    else a_dtype)
    computation = result_dtype
  else:
    result_dtype = dtypes.canonicalize(np.dtype(dtype))
    if result_dtype == dtypes.bool_ and a_dtype != dtypes.bool_:
      a = lax.ne(a, lax.full_like(a, 0))
    computation = _promote_integers(result_dtype)
  return convert(lax_fn(convert(a, computation), axis), result_dtype)


def cumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative sum along `axis` (of the flattened array when None)."""
  return _accumulate("cumsum", lax.cumsum, a, axis, dtype)


def cumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative product along `axis` (of the flattened array when None)."""
  return _accumulate("cumprod", lax.cumprod, a, axis, dtype)


def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative sum along `axis`, NaNs counted as zero."""
  return _accumulate("nancumsum", lax.cumsum, a, axis, dtype, nan_fill=0)


def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative product along `axis`, NaNs counted as one."""
  return _accumulate("nancumprod", lax.cumprod, a, axis, dtype, nan_fill=1)


def _cumulative(name: str, lax_fn: Callable, initial: int, promote_integers: bool) -> Callable:
  """The array-API cumulative_sum/cumulative_prod (axis required above rank 1); as in JAX,
  only the sum promotes narrow integers."""
  def cumulative(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                 include_initial: bool = False) -> Any:
    (x,) = ensure_arraylike(name, x)
    ndim = len(shape(x))
    if ndim == 0:
      raise ValueError(f"The input must be non-scalar to take a {name}, however a scalar "
                       "value or scalar array was given.")
    if axis is None and ndim > 1:
      raise ValueError(f"The input array has rank {ndim}, however axis was not set to an "
                       "explicit value. The axis argument is only optional for "
                       "one-dimensional arrays.")
    axis = canonicalize_axis(0 if axis is None else axis, ndim)
    out = _accumulate(name, lax_fn, x, axis, dtype, promote_integers=promote_integers)
    if include_initial:
      first = list(shape(out))
      first[axis] = 1
      out = lax.concatenate([lax.full(first, initial, dtype_of(out)), out], axis)
    return out
  cumulative.__name__ = cumulative.__qualname__ = name
  cumulative.__doc__ = f"The {name.replace('_', ' ')} along `axis` (array API)."
  return cumulative


cumulative_sum = _cumulative("cumulative_sum", lax.cumsum, 0, promote_integers=True)
cumulative_prod = _cumulative("cumulative_prod", lax.cumprod, 1, promote_integers=False)


# ----------------------------------------------------------------------------------------------
# Variance, standard deviation and weighted average

def _var_dtypes(name: str, a_dtype: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
  """(computation dtype, result dtype) of var/std: floating point, real for complex input."""
  if dtype is not None:
    dtype = _user_dtype(dtype, a_dtype)
    if dtypes.is_complex(a_dtype) and not dtypes.is_complex(dtype):
      raise ValueError(f"jax.numpy.{name} does not yet support real dtype parameters when "
                       "computing the variance of an array of complex values.")
    return _upcast_f16(dtype), dtype
  if not dtypes.is_inexact(a_dtype):
    return _upcast_f16(dtypes.default_float()), dtypes.default_float()
  return _upcast_f16(a_dtype), np.zeros((), a_dtype).real.dtype


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
  _check_out("var", out)
  (a,) = ensure_arraylike("var", a)
  where = check_where("var", where)
  correction = _correction(ddof, correction)
  computation, result_dtype = _var_dtypes("var", dtype_of(a), dtype)
  a = convert(a, computation)
  axes = _reduced_axes("var", axis, len(shape(a)))
  if mean is None:
    mean = _arithmetic_mean(a, axes, computation, keepdims=True, where=where)
  a_mean = convert(mean, computation)
  real = _upcast_f16(np.zeros((), computation).real.dtype)
  total = sum(_abs2(lax.sub(a, a_mean)), axes, dtype=real, keepdims=keepdims, where=where)
  count = lax.sub(_count(a, axes, where, real, keepdims), scalar_like(total, correction))
  result = lax.div(total, count)
  result = lax.select_n(lax.gt(count, scalar_like(count, 0)),
                        lax.full_like(result, np.nan), result)
  return convert(result, result_dtype)


def std(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, mean: Any = None,
        correction: int | float | None = None) -> Any:
  """The standard deviation over `axis`: the square root of `var`."""
  _check_out("std", out)
  return lax.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean,
                      correction=correction))


def average(a: Any, axis: Axis = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:
  """The mean over `axis` weighted by `weights` (the shape of `a`, or of `a` along `axis`);
  with `returned`, also the sum of the weights."""
  (a,) = ensure_arraylike("average", a)
  axes = _reduced_axes("average", axis, len(shape(a)))
  if weights is None:
    (a,) = promote_dtypes_inexact(a)
    avg = _arithmetic_mean(a, axis, keepdims=keepdims)
    weights_sum = lax.full((), size_of(shape(a)[i] for i in axes), dtype_of(avg))
  else:
    a, weights = promote_dtypes_inexact(*ensure_arraylike("average", a, weights))
    weights = _align_weights(a, weights, axis, axes)
    weights_sum = sum(weights, axis, keepdims=keepdims)
    avg = lax.div(sum(lax.mul(a, weights), axis, keepdims=keepdims), weights_sum)
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


# ----------------------------------------------------------------------------------------------
# NaN-ignoring reductions

def _isnan(a: Any) -> Any:
  return lax.ne(a, a)


def _nan_reduction(name: str, reduction: Callable, fill: float, nan_if_all_nan: bool,
                   a: Any, axis: Axis, keepdims: bool, where: Any, **kwargs: Any) -> Any:
  """`reduction` with NaNs replaced by `fill`; NaN where every element was NaN if
  `nan_if_all_nan`. Integer and boolean input is reduced as it is."""
  (a,) = ensure_arraylike(name, a)
  if not dtypes.is_inexact(dtype_of(a)):
    return reduction(a, axis, keepdims=keepdims, where=where, **kwargs)
  nan = _isnan(a)
  out = reduction(lax.select_n(nan, a, lax.full_like(a, _identity(fill, dtype_of(a)))),
                  axis, keepdims=keepdims, where=where, **kwargs)
  if not nan_if_all_nan:
    return out
  return lax.select_n(all(nan, axis, keepdims=keepdims), out, lax.full_like(out, np.nan))


def nanmax(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
  """The maximum over `axis` ignoring NaNs (NaN where all are NaN)."""
  _check_out("nanmax", out)
  return _nan_reduction("nanmax", max, -np.inf, True, a, axis, keepdims, where,
                        initial=initial)


def nanmin(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
  """The minimum over `axis` ignoring NaNs (NaN where all are NaN)."""
  _check_out("nanmin", out)
  return _nan_reduction("nanmin", min, np.inf, True, a, axis, keepdims, where,
                        initial=initial)


def nansum(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
  """The sum over `axis` treating NaNs as zero."""
  _check_out("nansum", out)
  return _nan_reduction("nansum", sum, 0, False, a, axis, keepdims, where, dtype=dtype,
                        initial=initial)


def nanprod(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
  """The product over `axis` treating NaNs as one."""
  _check_out("nanprod", out)
  return _nan_reduction("nanprod", prod, 1, False, a, axis, keepdims, where, dtype=dtype,
                        initial=initial)


def nanmean(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, where: Any = None) -> Any:
  """The mean over `axis` of the elements that are not NaN."""
  _check_out("nanmean", out)
  (a,) = ensure_arraylike("nanmean", a)
  if not dtypes.is_inexact(dtype_of(a)):
    return _arithmetic_mean(a, axis, dtype, keepdims=keepdims, where=where)
  dt = to_inexact(dtype_of(a)) if dtype is None else dtype
  count = sum(lax.bitwise_not(_isnan(a)), axis, dtype=dt, keepdims=keepdims, where=where)
  return lax.div(nansum(a, axis, dtype=dt, keepdims=keepdims, where=where), count)


def nanvar(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:
  """The variance over `axis` of the elements that are not NaN."""
  _check_out("nanvar", out)
  (a,) = ensure_arraylike("nanvar", a)
  computation, result_dtype = _var_dtypes("nanvar", dtype_of(a), dtype)
  a = convert(a, computation)
  a_mean = nanmean(a, axis, computation, keepdims=True, where=where) if mean is None else mean
  nan = _isnan(a)
  centered = lax.select_n(nan, lax.sub(a, convert(a_mean, computation)),
                          lax.full_like(a, 0))
  count = lax.sub(sum(lax.bitwise_not(nan), axis, keepdims=keepdims, where=where),
                  np.asarray(ddof, dtypes.default_int())[()])
  empty = lax.le(count, scalar_like(count, 0))
  total = sum(_abs2(centered), axis, keepdims=keepdims, where=where)
  divisor = convert(lax.select_n(empty, count, lax.full_like(count, 1)), dtype_of(total))
  result = lax.select_n(empty, lax.div(total, divisor), lax.full_like(total, np.nan))
  return convert(result, result_dtype)


def nanstd(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:
  """The standard deviation over `axis` of the elements that are not NaN."""
  _check_out("nanstd", out)
  return lax.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean))


def _nan_arg_reduction(name: str, reduction: Callable, fill: float) -> Callable:
  def nan_arg_reduce(a: Any, axis: int | None = None, out: None = None,
                     keepdims: bool | None = None) -> Any:
    _check_out(name, out)
    (a,) = ensure_arraylike(name, a)
    if not dtypes.is_inexact(dtype_of(a)):
      return reduction(a, axis, keepdims=bool(keepdims))
    nan = _isnan(a)
    out = reduction(lax.select_n(nan, a, lax.full_like(a, fill)), axis, keepdims=bool(keepdims))
    return lax.select_n(all(nan, axis, keepdims=bool(keepdims)), out, lax.full_like(out, -1))
  nan_arg_reduce.__name__ = nan_arg_reduce.__qualname__ = name
  nan_arg_reduce.__doc__ = f"The index of the {name[6:]} along `axis` ignoring NaNs (-1 where " \
                           "all are NaN)."
  return nan_arg_reduce


nanargmax = _nan_arg_reduction("nanargmax", argmax, -np.inf)
nanargmin = _nan_arg_reduction("nanargmin", argmin, np.inf)
