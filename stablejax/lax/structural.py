"""Structural primitives: broadcasting, reshaping, transposition, slicing, padding,
concatenation and iota, with the array-building helpers built on them (`full`, `broadcast`, ...).

Each primitive sits with its rules: abstract eval and numpy reference (through `primitive_kit`),
JVP, transpose and batching. Lowering rules live in `stablejax.lowering.rules.structural`.
"""
from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax import shape_poly, simplify_rules as simplify
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters.batching import not_mapped
from stablejax.jaxpr import Atom, JaxprEqn, hide_params
from stablejax.lax.primitive_kit import (check_dtype, def_reference, full, full_like,
                                         numeric_dtypes, standard_primitive)
from stablejax import typed_sharding as typed
from stablejax.util import argsort, canonicalize_axis, prod

__all__ = [
    "broadcast", "broadcast_in_dim", "broadcast_in_dim_p", "broadcasted_iota", "concatenate",
    "concatenate_p", "dynamic_slice", "dynamic_slice_p", "dynamic_update_slice",
    "dynamic_update_slice_p", "expand_dims", "expand_dims_p", "full", "full_like", "iota", "iota_p",
    "pad", "pad_p", "reshape", "reshape_p", "rev", "rev_p", "slice", "slice_in_dim", "slice_p",
    "squeeze", "squeeze_p", "transpose", "transpose_p", "zeros_like_array",
]

_builtin_slice = slice


# ----------------------------------------------------------------------------------------------
# Shared helpers

def _python_ints(xs: Any) -> bool:
  """Whether `xs` is a tuple or list of Python ints that the general check takes as they are
  (those numpy holds as int64 or uint64): the common case, checked first."""
  return (type(xs) is tuple or type(xs) is list) and all(
      type(x) is int and -2**63 <= x < 2**64 for x in xs)


def _ints(xs: Sequence, what: str) -> tuple[int, ...]:
  """`xs` as a tuple of Python ints (static params must be concrete integers)."""
  if _python_ints(xs):
    return tuple(xs)
  if not isinstance(xs, (Sequence, np.ndarray)):
    raise TypeError(f"{what} must be a sequence of integers, got {xs!r}")
  out = []
  for x in xs:
    v = np.asarray(core.concrete_or_error(x, what))
    if v.ndim or v.dtype.kind not in "iu":
      raise TypeError(f"{what} must be integers, got {x!r} of type {type(x).__name__}")
    out.append(int(v))
  return tuple(out)


def _dims(xs: Sequence, what: str) -> tuple[Any, ...]:
  """`xs` as a tuple of dimensions: Python ints, or symbolic dimensions."""
  if _python_ints(xs):
    return tuple(xs)
  if not isinstance(xs, (Sequence, np.ndarray)):
    raise TypeError(f"{what} must be a sequence of integers, got {xs!r}")
  return tuple(x if shape_poly.is_symbolic_dim(x) else _ints((x,), what)[0] for x in xs)


def canonical_axes(name: str, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
  """Axes in [0, ndim) with negative ones counted from the end; duplicates are an error."""
  try:
    out = tuple(canonicalize_axis(a, ndim) for a in _ints(axes, f"{name} axes"))
  except ValueError as e:
    raise ValueError(f"{name}: {e}") from None
  if len(set(out)) != len(out):
    raise ValueError(f"{name}: repeated axis in {tuple(axes)}")
  return out


def check_axes(name: str, axes: Sequence[int], aval: ShapedArray, what: str = "axes") -> None:
  """Raise a ValueError unless `axes` are distinct axes of `aval` (used by abstract evals)."""
  if any(not 0 <= a < aval.ndim for a in axes) or len(set(axes)) != len(axes):
    raise ValueError(f"{name}: {what} {tuple(axes)} must be distinct axes in [0, {aval.ndim}) "
                     f"of the operand of type {aval.str_short()}")


def aval_of(x: Any) -> ShapedArray:
  """The aval of a value or of an `ad.UndefinedPrimal`."""
  return x.aval if ad.is_undefined_primal(x) else core.get_aval(x)


def shift_axes(axes: Sequence[int], bdim: int) -> tuple[int, ...]:
  """Axes of an unbatched operand renumbered for the operand with a batch axis at `bdim`."""
  return tuple(a + (a >= bdim) for a in axes)


def _is_array(x: Any) -> bool:
  """A traced or device value, which a no-op may return as is (like JAX, which returns its
  immutable Arrays and tracers unchanged from no-op reshapes, transposes, ...)."""
  return not (dtypes.is_python_scalar(x) or isinstance(x, (np.ndarray, np.generic)))


def _scalar(value: Any, dtype: np.dtype) -> np.generic:
  return np.asarray(value, dtype)[()]


# ----------------------------------------------------------------------------------------------
# broadcast_in_dim

def broadcast_in_dim(operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]
                     ) -> Any:
  """Broadcast `operand` to `shape`; operand axis i becomes result axis broadcast_dimensions[i]."""
  if not shape and not broadcast_dimensions and _is_array(operand):
    return operand
  return broadcast_in_dim_p.bind(operand, shape=_dims(shape, "broadcast_in_dim shape"),
                                 broadcast_dimensions=_ints(broadcast_dimensions,
                                                            "broadcast_dimensions"))


def _broadcast_in_dim_abstract_eval(x: ShapedArray, *, shape, broadcast_dimensions):
  if any(d < 0 for d in shape):
    raise ValueError(f"broadcast_in_dim: shape {shape} has a negative dimension")
  if len(broadcast_dimensions) != x.ndim:
    raise TypeError(f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} must have "
                    f"one entry per operand axis (operand {x.str_short()})")
  for i, d in enumerate(broadcast_dimensions):
    if not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d]):
      raise TypeError(f"broadcast_in_dim: cannot broadcast operand {x.str_short()} to shape "
                      f"{shape} with broadcast_dimensions {broadcast_dimensions}")
  if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
    raise TypeError(f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} must be "
                    "strictly increasing")
  return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_transpose(ct, operand, *, shape, broadcast_dimensions):
  """Sum over the new axes and over the size-1 axes that were expanded."""
  unit = tuple(i for i, d in enumerate(operand.aval.shape) if d == 1)
  kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit]
  summed = lax.reduce_sum(ct, tuple(a for a in range(len(shape)) if a not in kept))
  return [expand_dims(summed, unit) if unit else summed]


def _broadcast_in_dim_batcher(args, dims, *, shape, broadcast_dimensions):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  size = core.get_aval(x).shape[0]
  return broadcast_in_dim(x, (size,) + shape, (0,) + tuple(b + 1 for b in broadcast_dimensions)), 0


def _broadcast_in_dim_reference(x: np.ndarray, *, shape, broadcast_dimensions) -> np.ndarray:
  in_shape = [1] * len(shape)
  for i, d in enumerate(broadcast_dimensions):
    in_shape[d] = x.shape[i]
  return np.broadcast_to(x.reshape(in_shape), shape)


broadcast_in_dim_p = standard_primitive("broadcast_in_dim", _broadcast_in_dim_abstract_eval)
def_reference(broadcast_in_dim_p, _broadcast_in_dim_reference)
ad.deflinear2(broadcast_in_dim_p, _broadcast_in_dim_transpose)
batching.primitive_batchers[broadcast_in_dim_p] = _broadcast_in_dim_batcher


def broadcast(operand: Any, sizes: Sequence[int]) -> Any:
  """Add leading axes of the given sizes to `operand`, repeating it along them."""
  shape = core.get_aval(operand).shape
  sizes = _dims(sizes, "broadcast sizes")
  return broadcast_in_dim(operand, sizes + shape, tuple(range(len(sizes), len(sizes) + len(shape))))


# ----------------------------------------------------------------------------------------------
# reshape

def reshape(operand: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None
            ) -> Any:
  """Reshape `operand` (in row-major order, after transposing by `dimensions` if given)."""
  shape = core.get_aval(operand).shape
  new_sizes = _dims(new_sizes, "reshape new_sizes")
  dims = None if dimensions is None else _ints(dimensions, "reshape dimensions")
  if dims == tuple(range(len(shape))):
    dims = None
  if shape and new_sizes == shape and dims is None and _is_array(operand):
    return operand
  return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims)


def _reshape_abstract_eval(x: ShapedArray, *, new_sizes, dimensions):
  if any(d < 0 for d in new_sizes):
    raise TypeError(f"reshape new_sizes must all be non-negative, got {new_sizes}")
  if shape_poly.is_constant_dim(x.size) and prod(new_sizes) != x.size:  # (symbolic: as JAX)
    raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} (of total "
                    f"size {prod(new_sizes)}) for operand {x.str_short()} (of total size "
                    f"{x.size})")
  if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
    raise TypeError(f"reshape dimensions {dimensions} must be a permutation of the axes of the "
                    f"operand {x.str_short()}")
  return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_transpose(ct, operand, *, new_sizes, dimensions):
  shape = operand.aval.shape
  if dimensions is None:
    return [reshape(ct, shape)]
  return [transpose(reshape(ct, tuple(shape[d] for d in dimensions)), argsort(dimensions))]


def _reshape_batcher(args, dims, *, new_sizes, dimensions):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  perm = None if dimensions is None else (0,) + tuple(p + 1 for p in dimensions)
  return reshape(x, (core.get_aval(x).shape[0],) + new_sizes, perm), 0


reshape_p = standard_primitive("reshape", _reshape_abstract_eval)
def_reference(reshape_p, lambda x, *, new_sizes, dimensions: np.reshape(
    x if dimensions is None else np.transpose(x, dimensions), new_sizes))
ad.deflinear2(reshape_p, _reshape_transpose)
batching.primitive_batchers[reshape_p] = _reshape_batcher


# ----------------------------------------------------------------------------------------------
# transpose

def transpose(operand: Any, permutation: Sequence[int]) -> Any:
  """Permute the axes of `operand`: result axis i is operand axis permutation[i]."""
  permutation = _ints(permutation, "transpose permutation")
  if permutation == tuple(range(core.get_aval(operand).ndim)) and _is_array(operand):
    return operand
  return transpose_p.bind(operand, permutation=permutation)


def _transpose_abstract_eval(x: ShapedArray, *, permutation):
  if sorted(permutation) != list(range(x.ndim)):
    raise TypeError(f"transpose permutation {permutation} is not a permutation of the axes of "
                    f"an operand of type {x.str_short()}")
  return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


def _transpose_batcher(args, dims, *, permutation):
  (x,), (d,) = args, dims
  return transpose(x, (d,) + shift_axes(permutation, d)), 0


transpose_p = standard_primitive("transpose", _transpose_abstract_eval)
def_reference(transpose_p, lambda x, *, permutation: np.transpose(x, permutation))
ad.deflinear2(transpose_p, lambda ct, x, *, permutation: [transpose(ct, argsort(permutation))])
batching.primitive_batchers[transpose_p] = _transpose_batcher


# The transformations instantiate zeros and move batch axes with these (see ad and batching).
ad.aval_zeros_likers[ShapedArray] = functools.partial(full_like, fill_value=0)
batching.register_axis_ops(transpose, broadcast_in_dim)


# ----------------------------------------------------------------------------------------------
# squeeze and expand_dims (both primitives here)

def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
  """Remove the size-1 axes `dimensions` (negative axes count from the end)."""
  dims = canonical_axes("squeeze", dimensions, core.get_aval(array).ndim)
  if not dims and _is_array(array):
    return array
  return squeeze_p.bind(array, dimensions=tuple(sorted(dims)))


def _squeeze_abstract_eval(x: ShapedArray, *, dimensions):
  check_axes("squeeze", dimensions, x, "dimensions")
  if any(x.shape[d] != 1 for d in dimensions):
    raise ValueError(f"squeeze: cannot squeeze out an axis whose size is not 1: operand "
                     f"{x.str_short()}, dimensions {dimensions}")
  return ShapedArray(tuple(n for i, n in enumerate(x.shape) if i not in dimensions), x.dtype,
                     x.weak_type)


def _squeeze_batcher(args, dims, *, dimensions):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  return squeeze(x, tuple(a + 1 for a in dimensions)), 0


squeeze_p = standard_primitive("squeeze", _squeeze_abstract_eval)
def_reference(squeeze_p, lambda x, *, dimensions: np.squeeze(x, axis=tuple(dimensions)))
ad.deflinear2(squeeze_p, lambda ct, x, *, dimensions: [expand_dims(ct, dimensions)])
batching.primitive_batchers[squeeze_p] = _squeeze_batcher


def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
  """Insert size-1 axes at positions `dimensions` of the result (negative: from the end)."""
  ndim_out = core.get_aval(array).ndim + len(dimensions)
  dims = canonical_axes("expand_dims", dimensions, ndim_out)
  if not dims and _is_array(array):
    return array
  return expand_dims_p.bind(array, dimensions=tuple(sorted(dims)))


def _expand_dims_abstract_eval(x: ShapedArray, *, dimensions):
  ndim_out = x.ndim + len(dimensions)
  if any(not 0 <= d < ndim_out for d in dimensions) or len(set(dimensions)) != len(dimensions):
    raise ValueError(f"expand_dims: dimensions {dimensions} must be distinct axes in "
                     f"[0, {ndim_out}) of the result, for an operand of type {x.str_short()}")
  shape = iter(x.shape)
  return ShapedArray(tuple(1 if i in dimensions else next(shape) for i in range(ndim_out)),
                     x.dtype, x.weak_type)


def _expand_dims_batcher(args, dims, *, dimensions):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  return expand_dims(x, tuple(a + 1 for a in dimensions)), 0


expand_dims_p = standard_primitive("expand_dims", _expand_dims_abstract_eval)
def_reference(expand_dims_p, lambda x, *, dimensions: np.expand_dims(x, tuple(dimensions)))
ad.deflinear2(expand_dims_p, lambda ct, x, *, dimensions: [squeeze(ct, dimensions)])
batching.primitive_batchers[expand_dims_p] = _expand_dims_batcher


# ----------------------------------------------------------------------------------------------
# concatenate

def concatenate(operands: Sequence[Any], dimension: int) -> Any:
  """Join `operands` (of one dtype, equal shapes except along `dimension`) along `dimension`."""
  if not operands:
    raise ValueError("concatenate requires a non-empty sequence of arrays")
  (dimension,) = _ints((dimension,), "concatenate dimension")
  if len(operands) == 1 and _is_array(operands[0]):
    return operands[0]
  return concatenate_p.bind(*operands, dimension=dimension)


def _concatenate_abstract_eval(*avals: ShapedArray, dimension):
  if not avals:
    raise TypeError("concatenate requires at least one operand")
  first = avals[0]
  if len({a.dtype for a in avals}) != 1:
    raise TypeError(f"concatenate requires operands of one dtype, got "
                    f"{', '.join(a.str_short() for a in avals)}")
  if not 0 <= dimension < first.ndim:
    raise ValueError(f"concatenate dimension {dimension} is out of bounds for operands of type "
                     f"{first.str_short()}")
  others = lambda a: a.shape[:dimension] + a.shape[dimension + 1:]  # noqa: E731
  if any(a.ndim != first.ndim or others(a) != others(first) for a in avals):
    raise TypeError(f"concatenate: operands must have equal shapes except along dimension "
                    f"{dimension}, got {', '.join(a.str_short() for a in avals)}")
  shape = list(first.shape)
  shape[dimension] = sum(a.shape[dimension] for a in avals)
  return ShapedArray(shape, first.dtype, all(a.weak_type for a in avals))


def _concatenate_transpose(ct, *operands, dimension):
  out, start = [], 0
  for x in operands:
    size = aval_of(x).shape[dimension]
    out.append(slice_in_dim(ct, start, start + size, axis=dimension)
               if ad.is_undefined_primal(x) else None)
    start += size
  return out


def _concatenate_batcher(axis_data, args, dims, *, dimension):
  size = axis_data.size
  xs = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
  return concatenate(xs, dimension + 1), 0


concatenate_p = standard_primitive("concatenate", _concatenate_abstract_eval)
def_reference(concatenate_p, lambda *xs, dimension: np.concatenate(xs, axis=dimension))
ad.deflinear2(concatenate_p, _concatenate_transpose)
batching.fancy_primitive_batchers[concatenate_p] = _concatenate_batcher


# ----------------------------------------------------------------------------------------------
# slice

def slice(operand: Any, start_indices: Sequence[int], limit_indices: Sequence[int],  # noqa: A001
          strides: Sequence[int] | None = None) -> Any:
  """The static window [start, limit) with `strides` of `operand`."""
  return slice_p.bind(operand, start_indices=_dims(start_indices, "slice start_indices"),
                      limit_indices=_dims(limit_indices, "slice limit_indices"),
                      strides=None if strides is None else _ints(strides, "slice strides"))


def slice_in_dim(operand: Any, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Any:
  """`slice` along one axis (None and negative indices as in Python slicing)."""
  shape = core.get_aval(operand).shape
  axis = canonicalize_axis(axis, len(shape))
  start, limit, _ = shape_poly.slice_indices(_builtin_slice(start_index, limit_index),
                                             shape[axis])
  starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
  starts[axis], limits[axis], strides[axis] = start, shape_poly.max_dim(start, limit), stride
  return slice(operand, starts, limits, None if stride == 1 else strides)


def _slice_abstract_eval(x: ShapedArray, *, start_indices, limit_indices, strides):
  strides = strides or (1,) * x.ndim
  where = (f"start_indices {start_indices}, limit_indices {limit_indices}, strides "
           f"{strides} for an operand of type {x.str_short()}")
  if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
    raise TypeError(f"slice needs one start, limit and stride per operand axis, got {where}")
  if any(not 0 <= s <= l <= n for s, l, n in zip(start_indices, limit_indices, x.shape)):
    raise TypeError(f"slice indices must satisfy 0 <= start <= limit <= size on each axis, "
                    f"got {where}")
  if any(s <= 0 for s in strides):
    raise TypeError(f"slice strides must be positive, got {where}")
  shape = tuple((l - s + st - 1) // st for s, l, st in zip(start_indices, limit_indices, strides))
  return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_transpose(ct, operand, *, start_indices, limit_indices, strides):
  """Pad the cotangent with zeros back to the operand's shape (interior zeros for strides)."""
  strides = strides or (1,) * len(start_indices)
  shape, ct_shape = operand.aval.shape, core.get_aval(ct).shape
  config = []
  for s, st, n, m in zip(start_indices, strides, shape, ct_shape):
    real_limit = s + (0 if m == 0 else 1 + (m - 1) * st)
    config.append((s, n - real_limit, st - 1))
  return [pad(ct, _scalar(0, core.get_aval(ct).dtype), config)]


def _slice_batcher(args, dims, *, start_indices, limit_indices, strides):
  (x,), (d,) = args, dims
  size = core.get_aval(x).shape[d]
  starts, limits = list(start_indices), list(limit_indices)
  starts.insert(d, 0)
  limits.insert(d, size)
  if strides is not None:
    strides = list(strides)
    strides.insert(d, 1)
  return slice(x, starts, limits, strides), d


def _slice_reference(x: np.ndarray, *, start_indices, limit_indices, strides) -> np.ndarray:
  strides = strides or (1,) * x.ndim
  return x[tuple(map(_builtin_slice, start_indices, limit_indices, strides))]


def _slice_impl(x: Any, *, start_indices, limit_indices, strides):
  """Evaluated eagerly, a slice of unit strides is a `dynamic_slice` at its starts (in bounds,
  so the same window), as JAX's: one compiled program per shape, not one per window (a loop over
  an array's rows)."""
  params = dict(start_indices=start_indices, limit_indices=limit_indices, strides=strides)
  if strides is not None and any(s != 1 for s in strides):
    return core.eval_trace.compiled_eval(slice_p, (x,), params)
  _slice_abstract_eval(core.get_aval(x), **params)  # (slice's errors, not dynamic_slice's)
  return dynamic_slice_p.bind(x, *start_indices, slice_sizes=tuple(
      l - s for s, l in zip(start_indices, limit_indices)))


slice_p = standard_primitive("slice", _slice_abstract_eval)
slice_p.def_impl(_slice_impl)
def_reference(slice_p, _slice_reference)
ad.deflinear2(slice_p, _slice_transpose)
batching.primitive_batchers[slice_p] = _slice_batcher


# ----------------------------------------------------------------------------------------------
# rev

def rev(operand: Any, dimensions: Sequence[int]) -> Any:
  """Reverse `operand` along the axes `dimensions`."""
  return rev_p.bind(operand, dimensions=_ints(dimensions, "rev dimensions"))


def _rev_abstract_eval(x: ShapedArray, *, dimensions):
  if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
    raise TypeError(f"rev dimensions {dimensions} must be distinct axes in [0, {x.ndim}) of the "
                    f"operand of type {x.str_short()} (negative axes are not accepted)")
  return x


def _rev_batcher(args, dims, *, dimensions):
  (x,), (d,) = args, dims
  return rev(x, shift_axes(dimensions, d)), d


rev_p = standard_primitive("rev", _rev_abstract_eval)
def_reference(rev_p, lambda x, *, dimensions: np.flip(x, tuple(dimensions)))
ad.deflinear2(rev_p, lambda ct, x, *, dimensions: [rev(ct, dimensions)])
batching.primitive_batchers[rev_p] = _rev_batcher


# ----------------------------------------------------------------------------------------------
# Start indices of dynamic_slice and dynamic_update_slice

def _start_indices(name: str, shape: Sequence[int], start_indices: Sequence[Any]) -> list:
  """One scalar index per axis; negative indices count from the end, as in JAX. Python ints
  take the dtype of the other indices (the default int if all are Python ints)."""
  start_indices = list(start_indices)
  if len(start_indices) != len(shape):
    raise ValueError(f"{name}: got {len(start_indices)} start indices for an operand of shape "
                     f"{tuple(shape)}: one index per axis is needed")
  typed = [core.get_aval(i).dtype for i in start_indices
           if not (dtypes.is_python_scalar(i) or shape_poly.is_symbolic_dim(i))]
  dtype = typed[0] if typed else dtypes.default_int()
  return [_wrap_negative(i, n, dtype) for i, n in zip(start_indices, shape)]


def _wrap_negative(i: Any, size: int, dtype: np.dtype) -> Any:
  if shape_poly.is_symbolic_dim(i):  # (like a Python int; JAX's `i < 0` may be inconclusive)
    return lax.dimension_as_scalar(i + size if i < 0 else i, dtype)
  aval = core.get_aval(i)
  if aval.ndim or aval.dtype.kind not in "iu":
    return i  # the abstract eval reports the error
  if core.is_concrete(i):
    v = int(np.asarray(i))
    return lax.dimension_as_scalar(v + size if v < 0 else v,
                                   dtype if dtypes.is_python_scalar(i) else aval.dtype)
  if aval.dtype.kind == "u":
    return i
  return lax.select_n(lax.lt(i, _scalar(0, aval.dtype)), i,
                      lax.add(i, lax.dimension_as_scalar(size, aval.dtype)))


def _check_indices(name: str, operand: ShapedArray, indices: Sequence[ShapedArray]) -> None:
  if len(indices) != operand.ndim:
    raise TypeError(f"{name}: got {len(indices)} start indices for an operand of type "
                    f"{operand.str_short()}: one index per axis is needed")
  if indices and (any(i.ndim or i.dtype != indices[0].dtype for i in indices) or
                  indices[0].dtype.kind not in "iu"):
    raise TypeError(f"{name}: start indices must be scalar integers of one dtype, got "
                    f"{', '.join(i.str_short() for i in indices)}")


def _zero_index(indices: Sequence[Any]) -> np.generic:
  dtype = core.get_aval(indices[0]).dtype if indices else dtypes.default_int()
  return _scalar(0, dtype)


# ----------------------------------------------------------------------------------------------
# dynamic_slice

def dynamic_slice(operand: Any, start_indices: Sequence[Any], slice_sizes: Sequence[int]) -> Any:
  """The window of static `slice_sizes` at dynamic `start_indices`, clamped into bounds."""
  shape = core.get_aval(operand).shape
  indices = _start_indices("dynamic_slice", shape, start_indices)
  return dynamic_slice_p.bind(operand, *indices,
                              slice_sizes=_dims(slice_sizes, "dynamic_slice slice_sizes"))


def _dynamic_slice_abstract_eval(x: ShapedArray, *indices: ShapedArray, slice_sizes):
  _check_indices("dynamic_slice", x, indices)
  if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
    raise TypeError(f"dynamic_slice: slice_sizes {slice_sizes} must have one size per axis, "
                    f"each between 0 and the operand's size, for an operand of type "
                    f"{x.str_short()}")
  return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
  out = dynamic_slice_p.bind(*primals, slice_sizes=slice_sizes)
  t = tangents[0]
  if type(t) is ad.Zero:
    return out, ad.Zero.from_primal_value(out)
  return out, dynamic_slice_p.bind(t, *primals[1:], slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, operand, *indices, slice_sizes):
  if any(ad.is_undefined_primal(i) for i in indices):
    raise TypeError("dynamic_slice is not linear in its start indices")
  zeros = full(operand.aval.shape, 0, operand.aval.dtype)
  return [dynamic_update_slice_p.bind(zeros, ct, *indices)] + [None] * len(indices)


def _dynamic_slice_batcher(axis_data, args, dims, *, slice_sizes):
  """Unbatched indices: one dynamic_slice taking the whole batch axis. Batched indices: a
  gather-free log-shifter per axis (see `_shift_left_by`)."""
  (x, *indices), (xd, *idims) = args, dims
  size = axis_data.size
  if all(d is not_mapped for d in idims):
    indices.insert(xd, _zero_index(indices))
    sizes = list(slice_sizes)
    sizes.insert(xd, size)
    return dynamic_slice_p.bind(x, *indices, slice_sizes=tuple(sizes)), xd
  x = batching.bdim_at_front(x, xd, size)
  shape = core.get_aval(x).shape
  # Static-index axes first: slice them with one dynamic_slice; keep the others whole.
  fixed = [_zero_index(indices)] + [_zero_index(indices) if d is not not_mapped else i
                                    for i, d in zip(indices, idims)]
  sizes = [size] + [n if d is not not_mapped else s
                    for s, n, d in zip(slice_sizes, shape[1:], idims)]
  x = dynamic_slice_p.bind(x, *fixed, slice_sizes=tuple(sizes))
  for axis, (i, d, s) in enumerate(zip(indices, idims, slice_sizes)):
    if d is not not_mapped:
      start = _clamp_index(batching.moveaxis(i, d, 0), shape[axis + 1] - s)
      x = slice_in_dim(_shift_left_by(x, axis + 1, start, shape[axis + 1] - s), 0, s,
                       axis=axis + 1)
  return x, 0


def _clamp_index(start: Any, hi: int) -> Any:
  """Clamp a batch of indices (shape [B]) into [0, hi], as XLA clamps start indices."""
  dtype = core.get_aval(start).dtype
  return lax.min(lax.max(start, _scalar(0, dtype)), lax.dimension_as_scalar(hi, dtype))


def _bit_masks(start: Any, max_shift: int, shape: Sequence[int]):
  """For each power of two 2^k <= max_shift (high to low): (2^k, whether bit k of each start
  is set, broadcast over `shape` along axis 0)."""
  dtype = core.get_aval(start).dtype
  for k in reversed(range(max(max_shift, 0).bit_length())):
    bit = lax.ge(lax.rem(start, _scalar(2 ** (k + 1), dtype)), _scalar(2 ** k, dtype))
    yield 2 ** k, broadcast_in_dim(bit, tuple(shape), (0,))


def _shift_left_by(x: Any, axis: int, start: Any, max_shift: int) -> Any:
  """y[b, ..., i, ...] = x[b, ..., i + start[b], ...] (zeros past the end): one select between
  `x` and `x` shifted by 2^k per bit of the starts, so O(size * log(max_shift)) work."""
  aval = core.get_aval(x)
  zero = full_like(aval, 0, shape=())  # (x's weak type: pad keeps it only then)
  for shift, bit in _bit_masks(start, max_shift, aval.shape):
    config = [(0, 0, 0)] * aval.ndim
    config[axis] = (-shift, shift, 0)
    x = lax.select_n(bit, x, pad(x, zero, config))
  return x


def _shift_right_by(x: Any, axis: int, start: Any, max_shift: int) -> Any:
  """y[b, ..., i, ...] = x[b, ..., i - start[b], ...] (zeros before the start)."""
  aval = core.get_aval(x)
  zero = full_like(aval, 0, shape=())
  for shift, bit in _bit_masks(start, max_shift, aval.shape):
    config = [(0, 0, 0)] * aval.ndim
    config[axis] = (shift, -shift, 0)
    x = lax.select_n(bit, x, pad(x, zero, config))
  return x


def _clamped_starts(starts: Sequence, shape: Sequence[int], sizes: Sequence[int]) -> list[int]:
  """Start indices clamped as XLA does, so that the window lies inside the operand."""
  return [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, shape, sizes)]


def _dynamic_slice_reference(x: np.ndarray, *start_indices: np.ndarray, slice_sizes
                             ) -> np.ndarray:
  starts = _clamped_starts(start_indices, x.shape, slice_sizes)
  return x[tuple(_builtin_slice(s, s + n) for s, n in zip(starts, slice_sizes))]


dynamic_slice_p = standard_primitive("dynamic_slice", _dynamic_slice_abstract_eval)
def_reference(dynamic_slice_p, _dynamic_slice_reference)
ad.primitive_jvps[dynamic_slice_p] = _dynamic_slice_jvp
ad.primitive_transposes[dynamic_slice_p] = ad.zero_ct_aware(_dynamic_slice_transpose)
batching.fancy_primitive_batchers[dynamic_slice_p] = _dynamic_slice_batcher


# ----------------------------------------------------------------------------------------------
# dynamic_update_slice

def dynamic_update_slice(operand: Any, update: Any, start_indices: Sequence[Any]) -> Any:
  """`operand` with `update` written at `start_indices` (clamped so the update fits)."""
  shape = core.get_aval(operand).shape
  indices = _start_indices("dynamic_update_slice", shape, start_indices)
  return dynamic_update_slice_p.bind(operand, update, *indices)


def _dynamic_update_slice_abstract_eval(x: ShapedArray, update: ShapedArray,
                                        *indices: ShapedArray):
  _check_indices("dynamic_update_slice", x, indices)
  if x.dtype != update.dtype:
    raise TypeError(f"dynamic_update_slice: operand and update must have one dtype, got "
                    f"{x.str_short()} and {update.str_short()}")
  if update.ndim != x.ndim or any(u > n for u, n in zip(update.shape, x.shape)):
    raise TypeError(f"dynamic_update_slice: update {update.str_short()} must have the operand's "
                    f"rank and fit inside the operand {x.str_short()}")
  # weakly typed only if every input is, as JAX's rule for it (the indices never are here)
  return x.update(weak_type=all(a.weak_type for a in (x, update, *indices)))


def _dynamic_update_slice_jvp(primals, tangents, **params):
  out = dynamic_update_slice_p.bind(*primals)
  t_x, t_u = tangents[:2]
  if type(t_x) is ad.Zero and type(t_u) is ad.Zero:
    return out, ad.Zero.from_primal_value(out)
  return out, dynamic_update_slice_p.bind(ad.instantiate_zeros(t_x), ad.instantiate_zeros(t_u),
                                          *primals[2:])


def _dynamic_update_slice_transpose(ct, operand, update, *indices):
  if any(ad.is_undefined_primal(i) for i in indices):
    raise TypeError("dynamic_update_slice is not linear in its start indices")
  u_aval = aval_of(update)
  ct_x = (dynamic_update_slice_p.bind(ct, full_like(ct, 0, shape=u_aval.shape), *indices)
          if ad.is_undefined_primal(operand) else None)
  ct_u = (dynamic_slice_p.bind(ct, *indices, slice_sizes=u_aval.shape)
          if ad.is_undefined_primal(update) else None)
  return [ct_x, ct_u] + [None] * len(indices)


def _dynamic_update_slice_batcher(axis_data, args, dims):
  """Unbatched indices: one dynamic_update_slice. Batched indices: shift the update into place
  per axis with the log-shifter and select it where an iota mask says the window is."""
  (x, u, *indices), (xd, ud, *idims) = args, dims
  size = axis_data.size
  x = batching.bdim_at_front(x, xd, size)
  u = batching.bdim_at_front(u, ud, size)
  if all(d is not_mapped for d in idims):
    return _weak_as(x, dynamic_update_slice_p.bind(x, u, _zero_index(indices), *indices)), 0
  shape, u_shape = core.get_aval(x).shape, core.get_aval(u).shape
  mask = None  # where the update lands: the AND of one window mask per axis
  for axis in range(1, len(shape)):
    n, m = shape[axis], u_shape[axis]
    start = _clamp_index(batching.bdim_at_front(indices[axis - 1], idims[axis - 1], size), n - m)
    config = [(0, 0, 0)] * len(shape)
    config[axis] = (0, n - m, 0)
    u = _shift_right_by(pad(u, _scalar(0, core.get_aval(u).dtype), config), axis, start, n - m)
    inside = _window_mask(start, shape, axis, m)
    mask = inside if mask is None else _logical_and(inside, mask)
  return _weak_as(x, lax.select_n(mask, x, u)), 0


def _weak_as(x: Any, out: Any) -> Any:
  """`out` weakly typed as `x` is: JAX batches dynamic_update_slice as a scatter, whose result
  has the operand's weak type."""
  aval, out_aval = core.get_aval(x), core.get_aval(out)
  if out_aval.weak_type == aval.weak_type:
    return out
  return lax.convert_element_type(out, out_aval.dtype, weak_type=aval.weak_type)


def _window_mask(start: Any, shape: Sequence[int], axis: int, length: int) -> Any:
  """Where start[b] <= i < start[b] + length along `axis`, over the whole batched `shape`."""
  dtype = core.get_aval(start).dtype
  i = broadcasted_iota(dtype, shape, axis)
  lo = broadcast_in_dim(start, tuple(shape), (0,))
  return _logical_and(lax.ge(i, lo), lax.lt(i, lax.add(lo, _scalar(length, dtype))))


def _logical_and(a: Any, b: Any) -> Any:
  """`a and b` for boolean arrays of one shape, as a select."""
  return lax.select_n(a, a, b)


def _dynamic_update_slice_reference(x: np.ndarray, update: np.ndarray,
                                    *start_indices: np.ndarray) -> np.ndarray:
  starts = _clamped_starts(start_indices, x.shape, update.shape)
  out = x.copy()
  out[tuple(_builtin_slice(s, s + n) for s, n in zip(starts, update.shape))] = update
  return out


dynamic_update_slice_p = standard_primitive("dynamic_update_slice",
                                            _dynamic_update_slice_abstract_eval)
def_reference(dynamic_update_slice_p, _dynamic_update_slice_reference)
ad.primitive_jvps[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.primitive_transposes[dynamic_update_slice_p] = ad.zero_ct_aware(_dynamic_update_slice_transpose)
batching.fancy_primitive_batchers[dynamic_update_slice_p] = _dynamic_update_slice_batcher


# ----------------------------------------------------------------------------------------------
# pad

def pad(operand: Any, padding_value: Any, padding_config: Sequence[Sequence[int]]) -> Any:
  """Pad each axis with (low, high, interior) copies of the scalar `padding_value`; negative
  low/high crop."""
  config = tuple(_dims(c, "pad padding_config entries") for c in padding_config)
  if any(len(c) != 3 for c in config):
    raise TypeError(f"pad: each padding_config entry must be (low, high, interior), got "
                    f"{padding_config}")
  dtype = core.get_aval(operand).dtype
  if dtypes.is_python_scalar(padding_value) and dtypes.dtype_of(padding_value) != dtype:
    padding_value = _scalar(padding_value, dtype)
  return pad_p.bind(operand, padding_value, padding_config=config)


def _pad_abstract_eval(x: ShapedArray, value: ShapedArray, *, padding_config):
  if x.dtype != value.dtype or value.ndim:
    raise TypeError(f"pad: the padding value must be a scalar of the operand's dtype, got "
                    f"operand {x.str_short()} and padding value {value.str_short()}")
  if len(padding_config) != x.ndim or any(c[2] < 0 for c in padding_config):
    raise ValueError(f"pad: padding_config {padding_config} needs one (low, high, interior) "
                     f"entry per axis of the operand {x.str_short()}, with interior >= 0")
  shape = tuple(lo + hi + n + max(n - 1, 0) * interior
                for (lo, hi, interior), n in zip(padding_config, x.shape))
  if any(d < 0 for d in shape):
    raise ValueError(f"pad: padding_config {padding_config} gives the negative shape {shape} "
                     f"for an operand of type {x.str_short()}")
  return ShapedArray(shape, x.dtype, x.weak_type and value.weak_type)


def _pad_transpose(ct, operand, padding_value, *, padding_config):
  """Operand: crop the edges and take every (interior+1)-th element. Padding value: the sum of
  the cotangent outside the operand's elements."""
  dtype = core.get_aval(ct).dtype
  unpadded = pad(ct, _scalar(0, dtype), [(-lo, -hi, 0) for lo, hi, _ in padding_config])
  shape = core.get_aval(unpadded).shape
  ct_x = slice(unpadded, (0,) * len(shape), shape, [i + 1 for _, _, i in padding_config])
  all_axes = tuple(range(len(shape)))
  ct_v = (lax.sub(lax.reduce_sum(ct, all_axes), lax.reduce_sum(ct_x, all_axes))
          if ad.is_undefined_primal(padding_value) else None)
  return [ct_x if ad.is_undefined_primal(operand) else None, ct_v]


def _pad_batcher(axis_data, args, dims, *, padding_config):
  (x, v), (xd, vd) = args, dims
  size = axis_data.size
  x = batching.bdim_at_front(x, xd, size)
  config = ((0, 0, 0),) + padding_config
  if vd is not_mapped:
    return pad(x, v, config), 0
  x_aval = core.get_aval(x)
  padded = pad(x, _scalar(0, x_aval.dtype), config)
  inside = pad(full(x_aval.shape, True, dtypes.bool_), _scalar(False, dtypes.bool_), config)
  value = broadcast_in_dim(batching.moveaxis(v, vd, 0), core.get_aval(padded).shape, (0,))
  return lax.select_n(inside, value, padded), 0


def _interior_pad(x: np.ndarray, padding_value: np.ndarray, axis: int, interior: int
                  ) -> np.ndarray:
  n = x.shape[axis]
  shape = list(x.shape)
  shape[axis] = n + max(n - 1, 0) * interior
  out = np.full(shape, padding_value, x.dtype)
  index = [_builtin_slice(None)] * x.ndim
  index[axis] = _builtin_slice(None, None, interior + 1)
  out[tuple(index)] = x
  return out


def _pad_reference(x: np.ndarray, padding_value: np.ndarray, *, padding_config) -> np.ndarray:
  """Interior padding, then positive edge padding, then cropping for negative edge padding."""
  for axis, (_, _, interior) in enumerate(padding_config):
    x = _interior_pad(x, padding_value, axis, interior)
  widths = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
  x = np.pad(x, widths, constant_values=padding_value)
  crop = tuple(_builtin_slice(max(-lo, 0), n - max(-hi, 0))
               for (lo, hi, _), n in zip(padding_config, x.shape))
  return x[crop]


pad_p = standard_primitive("pad", _pad_abstract_eval)
def_reference(pad_p, _pad_reference)
ad.deflinear2(pad_p, _pad_transpose)
batching.fancy_primitive_batchers[pad_p] = _pad_batcher


# ----------------------------------------------------------------------------------------------
# iota and the array builders

def iota(dtype: Any, size: int) -> Any:
  """[0, 1, ..., size - 1] of `dtype`."""
  return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
  """An array of `shape` whose elements are their index along `dimension`."""
  shape = _dims(shape, "iota shape")
  (dimension,) = canonical_axes("broadcasted_iota", (dimension,), len(shape))
  return iota_p.bind(dtype=dtypes.canonicalize(dtype), shape=shape, dimension=dimension)


def _iota_abstract_eval(*, dtype, shape, dimension):
  check_dtype("iota", numeric_dtypes, ShapedArray(shape, dtype))
  if any(d < 0 for d in shape) or not 0 <= dimension < len(shape):
    raise ValueError(f"iota: dimension {dimension} must be an axis of the non-negative shape "
                     f"{shape}")
  return ShapedArray(shape, dtype)


def _iota_reference(*, dtype, shape, dimension) -> np.ndarray:
  along = [1] * len(shape)
  along[dimension] = shape[dimension]
  return np.broadcast_to(np.arange(shape[dimension], dtype=dtype).reshape(along), shape)


iota_p = standard_primitive("iota", _iota_abstract_eval)
def_reference(iota_p, _iota_reference)


def zeros_like_array(x: Any) -> Any:
  """Zeros of the shape and dtype of `x`."""
  return full_like(x, 0)


hide_params(broadcast_in_dim_p, "shape", if_empty=("broadcast_dimensions",))

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

for _prim in (broadcast_in_dim_p, concatenate_p, dynamic_slice_p, dynamic_update_slice_p,
              expand_dims_p, iota_p, pad_p, reshape_p, rev_p, slice_p, squeeze_p, transpose_p):
  flops.flops_rules[_prim] = flops.free
del _prim

# ----------------------------------------------------------------------------------------------
# Algebraic simplification (applied by stablejax.passes.simplify)

def _transpose_simplify(eqn: JaxprEqn, producer: simplify.Producer) -> Atom | JaxprEqn | None:
  x, perm = eqn.invars[0], tuple(eqn.params["permutation"])
  inner = producer(x)
  if inner is not None and inner.primitive is transpose_p:
    x, perm = inner.invars[0], tuple(inner.params["permutation"][p] for p in perm)
  if perm == tuple(range(len(perm))):
    return x if simplify.same_type(x, eqn) else None
  if x is eqn.invars[0]:
    return None
  return eqn.replace(invars=[x], params={**eqn.params, "permutation": perm})


def _reshape_simplify(eqn: JaxprEqn, producer: simplify.Producer) -> Atom | JaxprEqn | None:
  x = eqn.invars[0]
  inner = producer(x)
  if inner is not None and inner.primitive is reshape_p and inner.params["dimensions"] is None:
    x = inner.invars[0]
  if eqn.params["dimensions"] is not None:
    return None
  if simplify.same_type(x, eqn):
    return x
  return None if x is eqn.invars[0] else eqn.replace(invars=[x])


simplify.simplify_rules[transpose_p] = _transpose_simplify
simplify.simplify_rules[reshape_p] = _reshape_simplify
simplify.simplify_rules[broadcast_in_dim_p] = simplify.same_type_rule


# ----------------------------------------------------------------------------------------------
# Sharding in types (stablejax.typed_sharding)

def _broadcast_in_dim_sharding(x: ShapedArray, *, shape, broadcast_dimensions) -> tuple:
  out: list[Any] = [None] * len(shape)
  for p, d in zip(typed.parts(x), broadcast_dimensions):
    out[d] = p
  return tuple(out)


def _expand_dims_sharding(x: ShapedArray, *, dimensions) -> tuple:
  spec = iter(typed.parts(x))
  return tuple(None if d in dimensions else next(spec)
               for d in range(x.ndim + len(dimensions)))


def _reshape_groups(a: Sequence[int], b: Sequence[int]) -> list[tuple[list[int], list[int]]]:
  """Positions in `a` and `b` (sizes > 1) grouped so that each group's sizes have one product."""
  i = j = 0
  groups = []
  while i < len(a) and j < len(b):
    ga, gb, pa, pb = [i], [j], a[i], b[j]
    i, j = i + 1, j + 1
    while pa != pb:
      if pa < pb:
        ga.append(i)
        pa, i = pa * a[i], i + 1
      else:
        gb.append(j)
        pb, j = pb * b[j], j + 1
    groups.append((ga, gb))
  return groups


def _reshape_sharding(x: ShapedArray, *, new_sizes, dimensions) -> tuple:
  """Splitting one dimension, or merging dimensions of which only the leading ones are split,
  keeps the mesh axes (each result dimension taking axes while its size divides); another
  reshape of a split array needs an explicit layout (JAX's reshape rule)."""
  spec = typed.parts(x)
  out: list[Any] = [None] * len(new_sizes)
  if all(p is None for p in spec) or 0 in x.shape:
    return tuple(out)
  def error() -> Exception:
    return typed.ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        "`out_sharding` argument of lax.reshape. Got operand type: "
        f"{x.str_short()}, new sizes: {tuple(new_sizes)}")
  if dimensions is not None:
    raise error()
  in_dims = [i for i, n in enumerate(x.shape) if n != 1]
  out_dims = [i for i, n in enumerate(new_sizes) if n != 1]
  sizes = dict(x.sharding.mesh.shape_tuple)
  for ga, gb in _reshape_groups([x.shape[i] for i in in_dims], [new_sizes[i] for i in out_dims]):
    group_spec = [spec[in_dims[k]] for k in ga]
    while group_spec and group_spec[-1] is None:
      group_spec.pop()
    if not group_spec:
      continue
    if (len(ga) > 1 and len(gb) > 1) or None in group_spec:
      raise error()
    axes = [a for p in group_spec for a in typed.axis_tuple(p)]
    split = typed.split_parts(sizes, axes, [new_sizes[out_dims[k]] for k in gb], error)
    for k, p in zip(gb, split):
      out[out_dims[k]] = p
  return tuple(out)


def _concatenate_sharding(*avals: ShapedArray, dimension) -> tuple:
  """Typed operands alike; the result split as they are (JAX's rule)."""
  typed_ones = {a.typed_sharding for a in avals} - {None}
  if len(typed_ones) > 1:
    raise typed.ShardingTypeError("All operands should have the same sharding. Got shardings "
                                  f"{', '.join(str(a.sharding) for a in avals)}")
  return tuple(next(iter(typed_ones)).spec)


def _dynamic_update_slice_sharding(x: ShapedArray, update: ShapedArray, *indices) -> tuple:
  if x.typed_sharding != update.typed_sharding:
    raise typed.ShardingTypeError(
        "dynamic_update_slice operand sharding must be equal to update sharding, got operand "
        f"sharding {x.str_short()} and update sharding {update.str_short()}.")
  return typed.parts(x)


typed.sharding_rules.update({
    concatenate_p: _concatenate_sharding,
    slice_p: typed.varying_shape_rule("slicing", _slice_abstract_eval),
    dynamic_slice_p: typed.varying_shape_rule("dynamic_slice", _dynamic_slice_abstract_eval),
    pad_p: typed.varying_shape_rule("padding", _pad_abstract_eval),
    dynamic_update_slice_p: _dynamic_update_slice_sharding,
    broadcast_in_dim_p: _broadcast_in_dim_sharding,
    reshape_p: _reshape_sharding,
    transpose_p: lambda x, *, permutation: tuple(typed.parts(x)[p] for p in permutation),
    squeeze_p: lambda x, *, dimensions: tuple(
        p for i, p in enumerate(typed.parts(x)) if i not in dimensions),
    expand_dims_p: _expand_dims_sharding,
    rev_p: typed.same_rule,
})
