"""Reductions: sum, prod, max, min, mean, argmax, argmin and cumsum."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import dtypes, lax
from stablejax.numpy._promotion import convert, ensure_arraylike, shape, to_inexact
from stablejax.numpy._promotion import dtype as dtype_of
from stablejax.numpy._shape import canonicalize_axes, expand_axes, ravel
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
  return dtypes.float32 if dt == dtypes.float16 else dt


def _user_dtype(dt: Any, default: np.dtype) -> np.dtype:
  """The dtype the user asked for (canonicalized), else `default`."""
  return default if dt is None else dtypes.canonicalize(np.dtype(dt))


def _reduction(name: str, lax_name: str, accumulating: bool) -> Callable:
  def reduce(a: Any, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Any:
    (a,) = ensure_arraylike(name, a)
    axes = _reduced_axes(name, axis, len(shape(a)))
    result_dtype = _user_dtype(dtype, _result_dtype(a, accumulating))
    a = convert(a, _upcast_f16(result_dtype) if accumulating else result_dtype)
    out = getattr(lax, lax_name)(a, axes)
    if keepdims:
      out = expand_axes(out, axes)
    return convert(out, result_dtype)
  reduce.__name__ = reduce.__qualname__ = name
  reduce.__doc__ = f"The {name} of the elements of `a` over `axis` (all axes when None)."
  return reduce


def _result_dtype(a: Any, accumulating: bool) -> np.dtype:
  return _promote_integers(dtype_of(a)) if accumulating else dtype_of(a)


sum = _reduction("sum", "reduce_sum", True)  # noqa: A001  (numpy's names)
prod = _reduction("prod", "reduce_prod", True)
max = _reduction("max", "reduce_max", False)  # noqa: A001
min = _reduction("min", "reduce_min", False)  # noqa: A001


def mean(a: Any, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Any:
  """The arithmetic mean over `axis`, computed in floating point."""
  (a,) = ensure_arraylike("mean", a)
  axes = _reduced_axes("mean", axis, len(shape(a)))
  result_dtype = _user_dtype(dtype, to_inexact(dtype_of(a)))
  computation = _upcast_f16(result_dtype)
  total = sum(a, axes, dtype=computation, keepdims=keepdims)
  count = np.asarray(size_of(shape(a)[i] for i in axes), computation)[()]
  return convert(lax.div(total, count), result_dtype)


def _arg_reduction(name: str, lax_name: str) -> Callable:
  def arg_reduce(a: Any, axis: int | None = None, keepdims: bool = False) -> Any:
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


def cumsum(a: Any, axis: int | None = None, dtype: Any = None) -> Any:
  """Cumulative sum along `axis` (of the flattened array when None)."""
  (a,) = ensure_arraylike("cumsum", a)
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonicalize_axis(axis, len(shape(a)))
  a_dtype = dtype_of(a)
  default = dtypes.default_int() if a_dtype == dtypes.bool_ else a_dtype
  result_dtype = _user_dtype(dtype, default)
  return lax.cumsum(convert(a, result_dtype), axis)
