"""numpy's sorting, searching and counting: sort, argsort, lexsort, sort_complex, partition and
argpartition over `lax.sort`; argmax, argmin and their nan variants; searchsorted, argwhere,
flatnonzero and extract; count_nonzero. (`nonzero` and `where` are in `_indexing_routines`.)"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import dtypes, lax
from stablejax.numpy._axes import expand_axes
from stablejax.numpy._indexing_routines import compress, INDEX_DTYPE, nonzero, static_size
from stablejax.numpy._logic import all as all_, isnan
from stablejax.numpy._manipulation_shape import ravel
from stablejax.numpy._math_sums import sum as sum_
from stablejax.numpy._promotion import (
    convert, dtype as dtype_of, ensure_arraylike, promote_dtypes, scalar_like, shape)
from stablejax.numpy._reductions import Axis, check_out
from stablejax.util import canonicalize_axis


def _sort_axis(name: str, a: Any, axis: int | None, kind: Any, order: Any) -> tuple[Any, int]:
  """The array to sort (flattened when `axis` is None) and the canonical axis."""
  (a,) = ensure_arraylike(name, a)
  if kind is not None:
    raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                    "stable=False to specify sort stability.")
  if order is not None:
    raise TypeError(f"'order' argument to {name} is not supported.")
  if axis is None:
    return ravel(a), 0
  return a, canonicalize_axis(axis, len(shape(a)))


def sort(a: Any, axis: int | None = -1, *, kind: None = None, order: None = None,
         stable: bool = True, descending: bool = False) -> Any:
  """A sorted copy of `a` along `axis` (NaNs last; of the flattened array when None)."""
  a, axis = _sort_axis("sort", a, axis, kind, order)
  out = lax.sort(a, dimension=axis, is_stable=stable)
  return lax.rev(out, (axis,)) if descending else out


def argsort(a: Any, axis: int | None = -1, *, kind: None = None, order: None = None,
            stable: bool = True, descending: bool = False, dtype: Any = None) -> Any:
  """The indices that sort `a` along `axis`; equal elements keep their order when `stable`,
  also when `descending`."""
  a, axis = _sort_axis("argsort", a, axis, kind, order)
  index_dtype = dtypes.default_int() if dtype is None else dtypes.canonicalize(np.dtype(dtype))
  iota = lax.broadcasted_iota(index_dtype, shape(a), axis)
  if descending and stable:  # reversed first, so that the final reversal keeps ties in order
    a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
  _, indices = lax.sort_key_val(a, iota, dimension=axis, is_stable=stable)
  return lax.rev(indices, (axis,)) if descending else indices


def lexsort(keys: Sequence[Any], axis: int = -1) -> Any:
  """The indices sorting by several keys, the last key primary (numpy's lexsort)."""
  keys = ensure_arraylike("lexsort", *keys) if len(keys) else []
  if not keys:
    raise TypeError("jnp.lexsort: need sequence of keys with len > 0 in lexsort")
  if len({shape(k) for k in keys}) != 1:
    raise ValueError(f"jnp.lexsort: all keys need to be the same shape, got "
                     f"{[shape(k) for k in keys]}")
  if not shape(keys[0]):
    return lax.full((), 0, dtypes.default_int())
  axis = canonicalize_axis(axis, len(shape(keys[0])))
  iota = lax.broadcasted_iota(dtypes.default_int(), shape(keys[0]), axis)
  return lax.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


def _less(x: Any, y: Any) -> Any:
  """x < y in the sort order (NaN largest; -0.0 equal to 0.0)."""
  lt = lax.lt(x, y)
  if not dtypes.is_inexact(dtype_of(x)):
    return lt
  return lax.bitwise_or(lt, lax.bitwise_and(lax.ne(y, y), lax.eq(x, x)))


_SEARCH_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None, *,
                 method: str = "scan") -> Any:
  """Where `v`'s elements would go in the sorted 1-D `a` to keep it sorted (every method
  compares each of `v` against all of `a`: the values are the same)."""
  a, v = ensure_arraylike("searchsorted", a, v)
  if side not in ("left", "right"):
    raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                     "['left', 'right']")
  if method not in _SEARCH_METHODS:
    raise ValueError(f"{method!r} is an invalid value for keyword 'method'. Expected one of "
                     f"{sorted(_SEARCH_METHODS)}")
  if len(shape(a)) != 1:
    raise ValueError("a should be 1-dimensional")
  if sorter is not None:  # a[sorter] is sorted
    (sorter,) = ensure_arraylike("searchsorted", sorter)
    a = a[sorter]
  a, v = promote_dtypes(a, v)
  v_shape, n = shape(v), shape(a)[0]
  out_shape = v_shape + (n,)
  a_b = lax.broadcast_in_dim(a, out_shape, (len(v_shape),))
  v_b = lax.broadcast_in_dim(v, out_shape, tuple(range(len(v_shape))))
  before = _less(a_b, v_b) if side == "left" else lax.bitwise_not(_less(v_b, a_b))
  counts = convert(before, dtypes.default_int())
  return lax.reduce_sum(counts, (len(v_shape),))


# ----------------------------------------------------------------------------------------------
# Partitions (a sorted array is a partition, as JAX computes one)


def partition(a: Any, kth: int, axis: int = -1) -> Any:
  """`a` with its `kth` smallest element along `axis` in place, smaller ones before it."""
  (a,) = ensure_arraylike("partition", a)
  _check_kth("partition", a, kth, axis)
  return sort(a, axis)


def argpartition(a: Any, kth: int, axis: int = -1) -> Any:
  """Indices that partition `a` along `axis` around its `kth` smallest element."""
  (a,) = ensure_arraylike("argpartition", a)
  _check_kth("argpartition", a, kth, axis)
  return argsort(a, axis)


def _check_kth(name: str, a: Any, kth: int, axis: int) -> None:
  n = shape(a)[canonicalize_axis(axis, len(shape(a)))]
  if not -n <= operator.index(kth) < n:
    raise ValueError(f"{name}: kth={kth} is out of bounds for an axis of size {n}")


def sort_complex(a: Any) -> Any:
  """`a` sorted along its last axis (by real part, then imaginary part), as complex."""
  (a,) = ensure_arraylike("sort_complex", a)
  a = sort(a)
  return convert(a, dtypes.lattice_join((dtype_of(a), False), (np.dtype(np.complex64), False))[0])


# ----------------------------------------------------------------------------------------------
# Searching for extrema

def _arg_reduction(name: str, lax_name: str) -> Callable:
  def arg_reduce(a: Any, axis: int | None = None, out: None = None,
                 keepdims: bool | None = None) -> Any:
    check_out(name, out)
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


def _nan_arg_reduction(name: str, reduction: Callable, fill: float) -> Callable:
  def nan_arg_reduce(a: Any, axis: int | None = None, out: None = None,
                     keepdims: bool | None = None) -> Any:
    check_out(name, out)
    (a,) = ensure_arraylike(name, a)
    if not dtypes.is_inexact(dtype_of(a)):
      return reduction(a, axis, keepdims=bool(keepdims))
    nan = isnan(a)
    out = reduction(lax.select_n(nan, a, lax.full_like(a, fill)), axis, keepdims=bool(keepdims))
    return lax.select_n(all_(nan, axis, keepdims=bool(keepdims)), out, lax.full_like(out, -1))
  nan_arg_reduce.__name__ = nan_arg_reduce.__qualname__ = name
  nan_arg_reduce.__doc__ = f"The index of the {name[6:]} along `axis` ignoring NaNs (-1 where " \
                           "all are NaN)."
  return nan_arg_reduce


nanargmax = _nan_arg_reduction("nanargmax", argmax, -np.inf)
nanargmin = _nan_arg_reduction("nanargmin", argmin, np.inf)


# ----------------------------------------------------------------------------------------------
# Searching with nonzero


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
  """Indices of the nonzero elements of the flattened `a`."""
  (a,) = ensure_arraylike("flatnonzero", a)
  return nonzero(lax.reshape(a, (int(np.prod(shape(a))),)), size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
  """The indices of the nonzero elements of `a`, as rows of an (N, a.ndim) array."""
  (a,) = ensure_arraylike("argwhere", a)
  if not shape(a):
    return lax.full((static_size("argwhere", a, size), 0), 0, INDEX_DTYPE)
  coords = nonzero(a, size=size, fill_value=fill_value)
  return lax.concatenate([lax.expand_dims(c, (1,)) for c in coords], 1)


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
  """The elements of the flattened `arr` where the flattened `condition` is true."""
  condition, arr = ensure_arraylike("extract", condition, arr)
  flat_c = lax.reshape(condition, (int(np.prod(shape(condition))),))
  return compress(lax.ne(flat_c, lax.full((), 0, dtypes.dtype_of(flat_c))),
                  lax.reshape(arr, (int(np.prod(shape(arr))),)), size=size,
                  fill_value=fill_value)


# ----------------------------------------------------------------------------------------------
# Counting

def count_nonzero(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
  """The number of nonzero elements of `a` over `axis`, in the default integer type."""
  (a,) = ensure_arraylike("count_nonzero", a)
  return sum_(lax.ne(a, scalar_like(a, 0)), axis, dtype=dtypes.default_int(), keepdims=keepdims)
