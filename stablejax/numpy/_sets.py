"""numpy's set routines: unique and its array-API variants (unique_all, unique_counts,
unique_inverse, unique_values), isin, and the 1-d set operations (union1d, intersect1d,
setdiff1d, setxor1d)."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._creation import asarray
from stablejax.numpy._elementwise import where
from stablejax.numpy._indexing_routines import nonzero
from stablejax.numpy._logic import isnan
from stablejax.numpy._manipulation_shape import ravel
from stablejax.numpy._promotion import (
    concrete_int, convert, dtype as dtype_of, ensure_arraylike, promote_dtypes, shape,
    weak_scalar_like)
from stablejax.numpy._sorting_searching import argsort, sort


class _UniqueAllResult(NamedTuple):
  values: Any
  indices: Any
  inverse_indices: Any
  counts: Any


class _UniqueCountsResult(NamedTuple):
  values: Any
  counts: Any


class _UniqueInverseResult(NamedTuple):
  values: Any
  inverse_indices: Any


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueAllResult:
  """The unique values, first indices, inverse indices and counts of `x`."""
  x = asarray(*ensure_arraylike("unique_all", x))
  return _UniqueAllResult(*unique(x, True, True, True, equal_nan=False, size=size,
                                  fill_value=fill_value))


def unique_counts(x: Any, /, *, size: int | None = None,
                  fill_value: Any = None) -> _UniqueCountsResult:
  """The unique values of `x` and their counts."""
  x = asarray(*ensure_arraylike("unique_counts", x))
  return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                     fill_value=fill_value))


def unique_inverse(x: Any, /, *, size: int | None = None,
                   fill_value: Any = None) -> _UniqueInverseResult:
  """The unique values of `x` and the inverse indices that rebuild `x` from them."""
  x = asarray(*ensure_arraylike("unique_inverse", x))
  return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
  """The unique values of `x`."""
  x = asarray(*ensure_arraylike("unique_values", x))
  return unique(x, equal_nan=False, size=size, fill_value=fill_value)


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
