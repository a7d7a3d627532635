"""Sorting and searching over `lax.sort`: sort, argsort, lexsort, searchsorted; partitions;
quantiles and medians; bincount, histograms and digitize; unique and the 1-d set operations."""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._creation import asarray, linspace
from stablejax.numpy._indexing_functions import nonzero, take_along_axis
from stablejax.numpy._manipulation_shape import moveaxis, ravel
from stablejax.numpy._promotion import (
    concrete_int, convert, dtype as dtype_of, ensure_arraylike, promote_dtypes,
    promote_dtypes_inexact, shape, to_inexact, weak_scalar_like)
from stablejax.numpy._reductions import amax, amin
from stablejax.numpy._ufuncs import BINARY, clip, isnan, where
from stablejax.util import canonicalize_axis

true_divide = BINARY["true_divide"]


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
  if sorter is not None:
    raise NotImplementedError("jnp.searchsorted: sorter is not supported; sort `a` first")
  if side not in ("left", "right"):
    raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                     "['left', 'right']")
  if method not in _SEARCH_METHODS:
    raise ValueError(f"{method!r} is an invalid value for keyword 'method'. Expected one of "
                     f"{sorted(_SEARCH_METHODS)}")
  if len(shape(a)) != 1:
    raise ValueError("a should be 1-dimensional")
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


# ----------------------------------------------------------------------------------------------
# Quantiles

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, a: Any, q: Any, axis: Any, method: str, keepdims: bool,
              squash_nans: bool, weights: Any = None) -> Any:
  """Sort the reduced axes, moved last and flattened, and read (and interpolate) the values
  at q * (n - 1), n counting only the non-NaN values when `squash_nans`."""
  a, q = ensure_arraylike(name, a, q)
  if weights is not None:
    raise NotImplementedError(f"jnp.{name}: weights are not supported")
  if method not in _QUANTILE_METHODS:
    raise ValueError(f"method can only be {', '.join(map(repr, _QUANTILE_METHODS))}; got "
                     f"{method!r}")
  if len(shape(q)) > 1:
    raise ValueError(f"q must be have rank <= 1, got shape {shape(q)}")
  a, q = promote_dtypes_inexact(a, q)
  ndim = len(shape(a))
  axes = tuple(range(ndim)) if axis is None else tuple(
      canonicalize_axis(ax, ndim) for ax in np.atleast_1d(axis))
  kept = [d for d in range(ndim) if d not in axes]
  kept_shape = tuple(shape(a)[d] for d in kept)
  n = int(np.prod([shape(a)[d] for d in axes]))
  rows = lax.reshape(lax.transpose(a, kept + list(axes)), kept_shape + (n,))
  rows = lax.sort(rows, dimension=len(kept))
  dt = dtype_of(a)
  nan_count = lax.reduce_sum(convert(isnan(rows), dt), (len(kept),))
  count = lax.sub(lax.full(kept_shape, n, dt), nan_count) if squash_nans else lax.full(
      kept_shape, n, dt)
  q_flat = lax.reshape(q, (int(np.prod(shape(q))),))
  nq = shape(q_flat)[0]
  out_shape = kept_shape + (nq,)
  last = lax.broadcast_in_dim(lax.sub(count, lax.full((), 1, dt)), out_shape,
                              tuple(range(len(kept))))
  pos = lax.mul(lax.broadcast_in_dim(q_flat, out_shape, (len(kept),)), last)
  low, high = lax.floor(pos), lax.ceil(pos)

  def at(p):
    idx = lax.clamp(np.int32(0), lax.convert_element_type(p, np.int32), np.int32(max(n - 1, 0)))
    return take_along_axis(rows, idx, axis=-1)

  if method == "linear":
    frac = lax.sub(pos, low)
    out = lax.add(lax.mul(at(low), lax.sub(lax.full((), 1, dt), frac)), lax.mul(at(high), frac))
  elif method == "midpoint":
    out = lax.mul(lax.add(at(low), at(high)), lax.full((), 0.5, dt))
  else:
    out = at({"lower": low, "higher": high, "nearest": lax.round(
        pos, lax.RoundingMethod.TO_NEAREST_EVEN)}[method])
  if not squash_nans:
    out = where(lax.broadcast_in_dim(lax.gt(nan_count, lax.full((), 0, dt)), out_shape,
                                     tuple(range(len(kept)))), np.nan, out)
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
               *, weights: Any = None) -> Any:
  """The `q`-th percentiles (q in [0, 100]) of `a` along `axis`."""
  a, q = ensure_arraylike("percentile", a, q)
  return _quantile("percentile", a, true_divide(q, 100), axis, method, keepdims, False,
                   weights)


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
# Counting and binning

def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None
             ) -> Any:
  """The number (or summed weights) of each non-negative integer in `x` (negative values count
  as 0; `length`, static, is required under jit)."""
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
    length = max(minlength, int(values.max()) + 1 if values.size else 0)
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


# ----------------------------------------------------------------------------------------------
# Unique values and set operations on sorted values

def _first_of_runs(aux: Any, equal_nan: bool) -> Any:
  """Whether each element of the sorted 1-d `aux` differs from the one before it."""
  if not shape(aux)[0]:
    return lax.full((0,), False, np.bool_)
  ne = lax.ne(aux[1:], aux[:-1])
  if equal_nan and dtypes.is_inexact(dtype_of(aux)):
    ne = lax.bitwise_and(ne, lax.bitwise_not(lax.bitwise_and(isnan(aux[1:]), isnan(aux[:-1]))))
  return lax.concatenate([lax.full((1,), True, np.bool_), ne], 0)


def _compact(name: str, values: Any, keep: Any, size: int | None, fill_value: Any) -> Any:
  """The elements of the 1-d `values` where `keep`, as a `size`-long array (static), padded
  with `fill_value` (default: the first kept value, or zeros)."""
  n = size if size is not None else int(np.count_nonzero(np.asarray(core.concrete_or_error(
      keep, f"jnp.{name} needs a static size= under jit"))))
  if not n or not shape(values)[0]:
    return lax.full((n,), 0 if fill_value is None else fill_value, dtype_of(values))
  out = values[nonzero(keep, size=n)[0]]
  if size is None or fill_value is None:
    return out
  valid = lax.lt(lax.iota(np.int32, n), lax.reduce_sum(convert(keep, np.int32), (0,)))
  return where(valid, out, convert(asarray(fill_value), dtype_of(values)))


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: Any = None, sorted: bool = True) -> Any:  # noqa
  """The sorted unique elements of `ar` (flattened), and optionally the index of each one's
  first occurrence, the inverse indices and the counts (`size`, static, under jit)."""
  (ar,) = ensure_arraylike("unique", ar)
  if axis is not None:
    raise NotImplementedError("jnp.unique: stablejax supports axis=None only")
  if size is not None:
    size = concrete_int(size, "The size argument of jnp.unique")
  flat = ravel(ar)
  if dtypes.kind(dtype_of(flat)) == "c":  # as JAX's: every complex NaN becomes nan+0j, sorted last
    flat = where(isnan(flat), weak_scalar_like(flat, np.nan), flat)
  n = shape(flat)[0]
  if not n and size and fill_value is None:
    raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, fill_value "
                     "must be specified")
  perm = argsort(flat)
  aux = flat[perm]
  mask = _first_of_runs(aux, equal_nan)
  values = _compact("unique", aux, mask, size, fill_value)
  out = [values]
  if return_index:
    out.append(_compact("unique", perm, mask, size, None) if n else perm)
  if return_inverse:
    run = lax.sub(lax.cumsum(convert(mask, dtypes.default_int()), 0),
                  np.ones((), dtypes.default_int()))
    inverse = lax.full((n,), 0, dtypes.default_int()).at[perm].set(run)
    out.append(lax.reshape(inverse, shape(ar)))
  if return_counts:
    bounds = _compact("unique", lax.iota(dtypes.default_int(), n), mask,
                      None if size is None else size + 1, n)
    if size is None:
      bounds = lax.concatenate([bounds, lax.full((1,), n, dtype_of(bounds))], 0)
    out.append(lax.sub(bounds[1:], bounds[:-1]))
  return out[0] if len(out) == 1 else tuple(out)


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, method: str = "auto") -> Any:
  """Whether each element of `element` occurs in `test_elements` (compared all to all)."""
  element, test_elements = ensure_arraylike("isin", element, test_elements)
  if method not in ("auto", "compare_all", "binary_search", "sort"):
    raise ValueError(f"method={method!r} is not implemented; options are 'compare_all', "
                     "'binary_search', 'sort', and 'auto'")
  x, t = promote_dtypes(ravel(element), ravel(test_elements))
  m, k = shape(x)[0], shape(t)[0]
  eq = lax.eq(lax.broadcast_in_dim(x, (m, k), (0,)), lax.broadcast_in_dim(t, (m, k), (1,)))
  found = lax.reduce_or(eq, (1,)) if k else lax.full((m,), False, np.bool_)
  return lax.reshape(lax.bitwise_not(found) if invert else found, shape(element))


def _set_op(name: str, ar1: Any, ar2: Any, size: int | None, fill_value: Any,
            keep: Callable[[Any, Any], Any], default_fill: Callable[[Any], Any]) -> Any:
  """The sorted distinct values of ar1 and ar2 for which `keep(in_ar1, in_ar2)` holds."""
  ar1, ar2 = ensure_arraylike(name, ar1, ar2)
  ar1, ar2 = promote_dtypes(ravel(ar1), ravel(ar2))
  if size is not None:
    size = concrete_int(size, f"The size argument of jnp.{name}")
  aux = sort(lax.concatenate([ar1, ar2], 0))
  mask = lax.bitwise_and(_first_of_runs(aux, True), keep(isin(aux, ar1), isin(aux, ar2)))
  out = _compact(name, aux, mask, size, fill_value)
  if size is None or fill_value is not None:
    return out
  count = lax.reduce_sum(convert(mask, np.int32), (0,))
  return where(lax.lt(lax.iota(np.int32, size), count), out, default_fill(out))


def _first_or_zero(out: Any) -> Any:
  return out[0] if shape(out)[0] else lax.full((), 0, dtype_of(out))


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
  """The sorted distinct values in either array."""
  return _set_op("union1d", ar1, ar2, size, fill_value, lax.bitwise_or, _first_or_zero)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False,
                *, size: int | None = None, fill_value: Any = None) -> Any:
  """The sorted distinct values in both arrays."""
  if return_indices:
    raise NotImplementedError("jnp.intersect1d: return_indices is not supported by stablejax")
  return _set_op("intersect1d", ar1, ar2, size, fill_value, lax.bitwise_and, _first_or_zero)


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
              fill_value: Any = None) -> Any:
  """The sorted distinct values of ar1 that are not in ar2 (in ar1's dtype)."""
  (ar1,) = ensure_arraylike("setdiff1d", ar1)
  return convert(_set_op("setdiff1d", ar1, ar2, size, fill_value,
                 lambda a, b: lax.bitwise_and(a, lax.bitwise_not(b)),
                 lambda out: lax.full((), 0, dtype_of(out))), dtype_of(ar1))


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Any:
  """The sorted distinct values in exactly one of the arrays."""
  return _set_op("setxor1d", ar1, ar2, size, fill_value, lax.bitwise_xor, _first_or_zero)
