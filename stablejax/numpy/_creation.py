"""Array creation: array/asarray (host constants), zeros/ones/full, arange, linspace, eye."""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax, runtime
from stablejax.numpy._promotion import (
    broadcast_to, convert, ensure_arraylike, is_arraylike, result_type, scalar_like, shape,
    to_inexact)
from stablejax.numpy._shape import concatenate, reshape, stack

Shape = int | Sequence[int]


def _canonical_dtype(dtype: Any, default: np.dtype | None = None) -> np.dtype | None:
  """The user's dtype, canonicalized, or `default` when it is None."""
  return default if dtype is None else dtypes.canonicalize(np.dtype(dtype))


def _is_host(x: Any) -> bool:
  return dtypes.is_python_scalar(x) or isinstance(x, (np.ndarray, np.generic))


def array(object: Any, dtype: Any = None, copy: bool = True) -> Any:  # noqa: A002
  """An array from `object`: a device Array in the canonical dtype (as in JAX, so operations on
  it are staged, not folded, under tracing), or a traced or device value (converted to `dtype`
  if given); nested lists may hold traced values."""
  del copy  # arrays are immutable
  dtype = _canonical_dtype(dtype)
  if is_arraylike(object) and not _is_host(object):
    return object if dtype is None else convert(object, dtype)
  if isinstance(object, (list, tuple)) and _holds_traced(object):
    out = stack([array(x) for x in object])
    return out if dtype is None else convert(out, dtype)
  try:
    host = np.asarray(object, dtype)
  except (TypeError, ValueError) as e:
    raise TypeError(f"array: cannot convert {object!r} to an array: {e}") from None
  return runtime.device_put(host.astype(dtypes.canonicalize(host.dtype), copy=False))


def _holds_traced(obj: Any) -> bool:
  if isinstance(obj, (list, tuple)):
    return any(_holds_traced(x) for x in obj)
  return is_arraylike(obj) and not _is_host(obj)


asarray = array


def _shape_tuple(name: str, shape_: Shape) -> tuple[int, ...]:
  try:
    out = (operator.index(shape_),) if np.ndim(shape_) == 0 else tuple(map(operator.index, shape_))
  except TypeError:
    raise TypeError(f"{name}: shape must be an int or a sequence of ints, got {shape_!r}") from None
  if any(d < 0 for d in out):
    raise ValueError(f"{name}: negative dimensions are not allowed, got shape {out}")
  return out


def full(shape: Shape, fill_value: Any, dtype: Any = None) -> Any:
  """An array of `shape` filled with `fill_value` (broadcast if it is an array)."""
  shape = _shape_tuple("full", shape)
  (fill_value,) = ensure_arraylike("full", fill_value)
  if core.get_aval(fill_value).ndim:
    dtype = _canonical_dtype(dtype)
    return broadcast_to(fill_value if dtype is None else convert(fill_value, dtype), shape)
  return lax.full(shape, fill_value, _canonical_dtype(dtype))


def zeros(shape: Shape, dtype: Any = None) -> Any:
  """An array of zeros (float32 by default)."""
  return lax.full(_shape_tuple("zeros", shape), 0, _canonical_dtype(dtype, dtypes.default_float()))


def ones(shape: Shape, dtype: Any = None) -> Any:
  """An array of ones (float32 by default)."""
  return lax.full(_shape_tuple("ones", shape), 1, _canonical_dtype(dtype, dtypes.default_float()))


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Shape | None = None) -> Any:
  """An array like `a` (its shape and dtype unless given) filled with `fill_value`."""
  (a,) = ensure_arraylike("full_like", a)
  shape = None if shape is None else _shape_tuple("full_like", shape)
  return lax.full_like(a, fill_value, _canonical_dtype(dtype), shape)


def zeros_like(a: Any, dtype: Any = None, shape: Shape | None = None) -> Any:
  """Zeros with the shape and dtype of `a` (unless given)."""
  return full_like(a, 0, dtype, shape)


def ones_like(a: Any, dtype: Any = None, shape: Shape | None = None) -> Any:
  """Ones with the shape and dtype of `a` (unless given)."""
  return full_like(a, 1, dtype, shape)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
  """Evenly spaced values in [start, stop): start + step * iota."""
  if stop is None:
    start, stop = 0, start
  step = 1 if step is None else step
  bounds = [core.concrete_or_error(x, "an arange bound") for x in (start, stop, step)]
  if step == 0:
    raise ValueError("arange: step must not be zero")
  size = len(np.arange(*(np.asarray(b).item() for b in bounds)))
  dtype = _canonical_dtype(dtype)
  if dtype is None:
    dtype = result_type(*ensure_arraylike("arange", *bounds))[0]
  out = lax.iota(dtype, size)
  if step != 1:
    out = lax.mul(scalar_like(out, step), out)
  if start != 0:
    out = lax.add(scalar_like(out, start), out)
  return out


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None
             ) -> Any:
  """`num` evenly spaced values from `start` to `stop` (scalars), including `stop` when
  `endpoint`."""
  num = operator.index(num)
  if num < 0:
    raise ValueError(f"linspace: number of samples, {num}, must be non-negative")
  start, stop = ensure_arraylike("linspace", start, stop)
  if shape(start) or shape(stop):
    raise NotImplementedError("linspace: only scalar start and stop are supported")
  dtype = _canonical_dtype(dtype, to_inexact(result_type(start, stop)[0]))
  compute = to_inexact(dtype)
  start, stop = convert(start, compute), convert(stop, compute)
  n_steps = num - 1 if endpoint else num
  if num == 0 or (endpoint and num == 1):
    return convert(reshape(start, (1,)) if num else lax.full((0,), 0, compute), dtype)
  frac = lax.div(lax.iota(compute, n_steps), scalar_like(start, n_steps))
  out = lax.add(lax.mul(start, lax.sub(scalar_like(frac, 1), frac)), lax.mul(stop, frac))
  if endpoint:
    out = concatenate([out, reshape(stop, (1,))])
  return convert(out, dtype)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
  """The N x M matrix with ones on diagonal `k` and zeros elsewhere."""
  N = operator.index(N)  # noqa: N806
  M = N if M is None else operator.index(M)  # noqa: N806
  if N < 0 or M < 0:
    raise ValueError(f"eye: negative dimensions are not allowed, got N={N}, M={M}")
  int_dtype = dtypes.default_int()
  rows = lax.broadcasted_iota(int_dtype, (N, M), 0)
  cols = lax.broadcasted_iota(int_dtype, (N, M), 1)
  diagonal = lax.eq(lax.add(rows, np.asarray(k, int_dtype)[()]), cols)
  return convert(diagonal, _canonical_dtype(dtype, dtypes.default_float()))
