"""numpy's indexing routines: generating index arrays (nonzero and where, with a static `size`
under jit as in JAX; indices, ix_, the triangle and diagonal indices, ravel_multi_index,
unravel_index; the index tricks s_, index_exp, r_, c_), indexing-like operations (take,
take_along_axis, choose, compress, diag, diagonal, select) and inserting data into arrays
(put, put_along_axis, place, fill_diagonal). `x[idx]` itself is in `_indexing`."""
from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.lax.slicing import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers
from stablejax.numpy import _elementwise
from stablejax.numpy._creation import asarray, ones
from stablejax.numpy._indexing import getitem, scatter_update
from stablejax.numpy._manipulation_elements import broadcast_arrays
from stablejax.numpy._manipulation_shape import concat, expand_dims, moveaxis, ravel, reshape, stack
from stablejax.numpy._math_arithmetic import remainder
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, concrete_int, convert, dtype as dtype_of, ensure_arraylike,
    promote_args, result_type, scalar_like, shape, unchanged)
from stablejax.shape_poly import max_dim
from stablejax.util import canonicalize_axis
from stablejax.util import prod as size_of

INDEX_DTYPE = dtypes.int32


def _take_mode(name: str, mode: str | None) -> GatherScatterMode:
  if mode in (None, "fill"):
    return GatherScatterMode.FILL_OR_DROP
  if mode == "clip":
    return GatherScatterMode.CLIP
  if mode == "wrap":
    return GatherScatterMode.PROMISE_IN_BOUNDS
  if mode == "raise":
    raise NotImplementedError(f"The 'raise' mode to jnp.{name} is not supported.")
  raise ValueError(f"Invalid mode '{mode}' for np.{name}")


def _normalized(indices: Any, size: int, mode: str | None) -> Any:
  """Integer indices as int32, negative ones from the end (or taken modulo for 'wrap')."""
  if dtypes.dtype_of(indices).kind not in "iu":
    raise TypeError(f"indices must be integers, got dtype {dtypes.dtype_of(indices)}")
  indices = convert(indices, INDEX_DTYPE)
  if mode == "wrap":
    n = lax.dimension_as_scalar(size, np.int32)
    return lax.rem(lax.add(lax.rem(indices, n), n), n)
  return lax.select_n(lax.lt(indices, np.int32(0)), indices,
                      lax.add(indices, lax.dimension_as_scalar(size, np.int32)))


def take(a: Any, indices: Any, axis: int | None = None, out: None = None,
         mode: str | None = None, unique_indices: bool = False, indices_are_sorted: bool = False,
         fill_value: Any = None) -> Any:
  """Elements of `a` at `indices` along `axis` (of the flattened `a` if None)."""
  a, indices = ensure_arraylike("take", a, indices)
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
  if axis is None:
    a, axis = lax.reshape(a, (size_of(shape(a)),)), 0
  a_shape = shape(a)
  axis = canonicalize_axis(axis, len(a_shape))
  gather_mode = _take_mode("take", mode)
  idx_shape = shape(indices)
  out_shape = a_shape[:axis] + idx_shape + a_shape[axis + 1:]
  if a_shape[axis] == 0:
    if 0 not in idx_shape:
      raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    return a
  if 0 in idx_shape:  # (only then, as JAX: an empty result of other indices is a gather)
    return lax.full_like(a, 0, shape=out_shape)  # (a gather keeps the weak type, as JAX)
  # take wraps negative indices, but for mode="clip" (they clip to 0), as JAX; unsigned ones
  # keep their type (int32 would wrap the largest negative)
  index_dtype = dtypes.dtype_of(indices)
  if index_dtype.kind not in "biu":  # (bools index 0 and 1, as in JAX and numpy)
    raise ValueError(f"jnp.take: indices must have an integer type, got {index_dtype}")
  if index_dtype.kind == "u":
    indices = lax.rem(indices, index_dtype.type(a_shape[axis])) if mode == "wrap" else indices
  else:
    indices = convert(indices, INDEX_DTYPE)
    indices = indices if mode == "clip" else _normalized(indices, a_shape[axis], mode)
  indices = lax.expand_dims(indices, (len(idx_shape),))
  n = len(idx_shape)
  offset = tuple(range(axis)) + tuple(range(axis + n, len(a_shape) + n - 1))
  dnums = GatherDimensionNumbers(offset, (axis,), (axis,))
  sizes = tuple(1 if d == axis else s for d, s in enumerate(a_shape))
  return lax.gather(a, indices, dnums, sizes, mode=gather_mode, fill_value=fill_value,
                    unique_indices=unique_indices, indices_are_sorted=indices_are_sorted)


def _along_axis(name: str, arr: Any, indices: Any, axis: int | None, mode: str | None,
                wrap_negative: bool = True) -> tuple[Any, Any, int, tuple[int, ...]]:
  """`arr` and `indices` broadcast together on the axes other than `axis`, the indices
  normalized (negative ones counted from the end when `wrap_negative`) and given a last
  index-vector axis; and those other axes."""
  if axis is None:
    arr, indices, axis = lax.reshape(arr, (size_of(shape(arr)),)), \
        lax.reshape(indices, (size_of(shape(indices)),)), 0
  a_shape, i_shape = shape(arr), shape(indices)
  if len(a_shape) != len(i_shape):
    raise ValueError(f"indices and arr must have the same number of dimensions; "
                     f"{len(i_shape)} vs. {len(a_shape)}")
  axis = canonicalize_axis(axis, len(a_shape))
  others = tuple(d for d in range(len(a_shape)) if d != axis)
  common = broadcast_shapes(name, [a_shape[d] for d in others], [i_shape[d] for d in others])
  a_target, i_target = list(common), list(common)
  a_target.insert(axis, a_shape[axis])
  i_target.insert(axis, i_shape[axis])
  arr, indices = broadcast_to(arr, a_target), broadcast_to(indices, i_target)
  if wrap_negative:
    indices = _normalized(indices, a_shape[axis], mode)
  elif dtypes.dtype_of(indices).kind not in "iu":
    raise TypeError(f"indices must be integers, got dtype {dtypes.dtype_of(indices)}")
  indices = lax.expand_dims(convert(indices, INDEX_DTYPE), (len(i_shape),))
  return arr, indices, axis, others


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1, mode: str | None = None,
                    fill_value: Any = None, *, wrap_negative_indices: bool | None = None) -> Any:
  """out[..., i, ...] = arr[..., indices[..., i, ...], ...] along `axis` (a batched gather).
  Negative indices count from the end unless `wrap_negative_indices` is False (its default,
  as JAX's, is False only for mode 'promise_in_bounds')."""
  arr, indices = ensure_arraylike("take_along_axis", arr, indices)
  if mode == "wrap":
    raise ValueError('Unknown gather mode "wrap" for jnp.take_along_axis')
  if wrap_negative_indices is None:
    wrap_negative_indices = mode != "promise_in_bounds"
  arr, indices, axis, others = _along_axis("take_along_axis", arr, indices, axis, mode,
                                           wrap_negative_indices)
  dnums = GatherDimensionNumbers((), (axis,), (axis,), others, others)
  return lax.gather(arr, indices, dnums, (1,) * len(shape(arr)),
                    mode=GatherScatterMode.from_any(mode), fill_value=fill_value)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None, inplace: bool = True,
                   *, mode: str | None = None) -> Any:
  """`arr` with `values` written at `indices` along `axis` (JAX requires inplace=False)."""
  if inplace:
    raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                     "arrays are immutable. Pass inplace=False to instead return an updated "
                     "array.")
  arr, indices, values = ensure_arraylike("put_along_axis", arr, indices, values)
  target, idx, axis, others = _along_axis("put_along_axis", arr, indices, axis, mode)
  if shape(target) != shape(arr):
    raise ValueError(f"put_along_axis: indices of shape {shape(indices)} must broadcast to arr "
                     f"of shape {shape(arr)} on the axes other than {axis}")
  values = broadcast_to(convert(values, core.get_aval(arr).dtype), shape(idx)[:-1])
  dnums = ScatterDimensionNumbers((), (axis,), (axis,), others, others)
  return lax.scatter(target, idx, values, dnums, mode=mode)


# ----------------------------------------------------------------------------------------------
# nonzero and its relatives

def static_size(name: str, a: Any, size: int | None) -> int:
  """The static length of nonzero's results: `size`, else the nonzero count of a concrete `a`."""
  if size is not None:
    return int(core.concrete_or_error(size, f"The size argument of jnp.{name}"))
  if isinstance(a, core.Tracer):
    raise core.ConcretizationTypeError(
        f"The size argument of jnp.{name} must be statically specified to use jnp.{name} "
        "within JAX transformations.")
  return int(np.count_nonzero(np.asarray(a)))


def _first_true_positions(mask: Any, size: int) -> tuple[Any, Any]:
  """(flat positions of the first `size` true elements of the 1-d `mask`, padded with 0;
  whether each slot is filled)."""
  n = shape(mask)[0]
  ones = lax.convert_element_type(mask, INDEX_DTYPE)
  slot = lax.sub(lax.cumsum(ones, 0), np.int32(1))
  slot = lax.select_n(mask, lax.full((n,), size, INDEX_DTYPE), slot)
  positions = lax.scatter(lax.full((size,), 0, INDEX_DTYPE), lax.expand_dims(slot, (1,)),
                          lax.iota(INDEX_DTYPE, n), ScatterDimensionNumbers((), (0,), (0,)),
                          mode=GatherScatterMode.FILL_OR_DROP)
  filled = lax.lt(lax.iota(INDEX_DTYPE, size), lax.reduce_sum(ones, (0,)))
  return positions, filled


def where(condition: Any, x: Any = None, y: Any = None, /, *, size: int | None = None,
          fill_value: Any = None) -> Any:
  """Elementwise `x` where `condition` else `y`; given `condition` alone, `nonzero` of it."""
  if x is None and y is None:
    return nonzero(condition, size=size, fill_value=fill_value)
  if x is None or y is None:  # (a TypeError, as JAX's)
    raise TypeError(f"where: give both x and y, or neither; got {x!r} and {y!r}")
  return _elementwise.where(condition, x, y)


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple[Any, ...]:
  """The indices of the nonzero elements of `a`, one array per axis (of length `size`, padded
  with `fill_value`, when given)."""
  (a,) = ensure_arraylike("nonzero", a)
  a_shape = shape(a)
  if not a_shape:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar) "
                     "instead.")
  n = static_size("nonzero", a, size)
  mask = lax.ne(lax.reshape(a, (size_of(a_shape),)),
                lax.full((), 0, core.get_aval(a).dtype))
  flat, filled = _first_true_positions(mask, n)
  fills = fill_value if isinstance(fill_value, (tuple, list)) else [fill_value] * len(a_shape)
  if len(fills) != len(a_shape):
    raise ValueError(f"fill_value must be a scalar or a tuple of length {len(a_shape)}; got "
                     f"{fill_value}")
  out = []
  for coord, fill in zip(_unravel(flat, a_shape), fills):
    out.append(coord if fill is None else lax.select_n(
        filled, lax.full((n,), fill, INDEX_DTYPE), coord))
  return tuple(out)


def _unravel(flat: Any, dims: Sequence[int]) -> list:
  """Row-major coordinates of in-bounds flat indices."""
  coords = []
  dtype = core.get_aval(flat).dtype
  for d in reversed(dims):
    coords.append(lax.rem(flat, lax.dimension_as_scalar(d, dtype)) if d else flat)
    flat = lax.div(flat, lax.dimension_as_scalar(max_dim(d, 1), dtype))
  return coords[::-1]


def compress(condition: Any, a: Any, axis: int | None = None, *, size: int | None = None,
             fill_value: Any = 0, out: None = None) -> Any:
  """The slices of `a` along `axis` where `condition` is true."""
  condition, a = ensure_arraylike("compress", condition, a)
  if len(shape(condition)) != 1:
    raise ValueError("condition must be a 1D array")
  if axis is None:
    a, axis = lax.reshape(a, (size_of(shape(a)),)), 0
  axis = canonicalize_axis(axis, len(shape(a)))
  condition = lax.ne(convert(condition, dtypes.bool_), False) if dtypes.dtype_of(
      condition) != dtypes.bool_ else condition
  n = shape(condition)[0]
  if n > shape(a)[axis]:
    raise ValueError(f"compress: condition of length {n} is longer than axis {axis} of a, of "
                     f"length {shape(a)[axis]}")
  (idx,) = nonzero(condition, size=size, fill_value=shape(a)[axis])
  return take(a, idx, axis, mode="fill", fill_value=fill_value)


# ----------------------------------------------------------------------------------------------
# Diagonals and index grids

def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
  """The `offset` diagonal of `a` over `axis1` and `axis2`, as its last axis."""
  (a,) = ensure_arraylike("diagonal", a)
  a_shape = shape(a)
  if len(a_shape) < 2:
    raise ValueError("diagonal requires an array of at least two dimensions.")
  axis1, axis2 = canonicalize_axis(axis1, len(a_shape)), canonicalize_axis(axis2, len(a_shape))
  if axis1 == axis2:
    raise ValueError("axis1 and axis2 can not be the same.")
  perm = [d for d in range(len(a_shape)) if d not in (axis1, axis2)] + [axis1, axis2]
  a = lax.transpose(a, perm)
  n, m = a_shape[axis1], a_shape[axis2]
  length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
  i = np.arange(length, dtype=np.int32)
  return getitem(a, (Ellipsis, i - min(offset, 0), i + max(offset, 0)))


def diag(v: Any, k: int = 0) -> Any:
  """The k-th diagonal of a matrix, or a matrix with `v` on its k-th diagonal."""
  (v,) = ensure_arraylike("diag", v)
  v_shape = shape(v)
  if len(v_shape) == 2:
    return diagonal(v, k)
  if len(v_shape) != 1:
    raise ValueError("diag input must be 1d or 2d")
  n = v_shape[0] + abs(k)
  i = np.arange(v_shape[0], dtype=np.int32)
  zeros = lax.full_like(v, 0, shape=(n, n))  # (keeping a weak type, as JAX's zeros_like)
  return scatter_update(zeros, (i - min(k, 0), i + max(k, 0)), v, lax.scatter,
                        unique_indices=True)


def _int_arrays(*arrays: np.ndarray) -> tuple[Any, ...]:
  return tuple(unchanged(lax.convert_element_type(np.asarray(x), dtypes.default_int()))
               for x in arrays)


def diag_indices(n: int, ndim: int = 2) -> tuple[Any, ...]:
  """The indices of the main diagonal of an n x ... x n array."""
  n, ndim = concrete_int(n, "diag_indices n"), concrete_int(ndim, "diag_indices ndim")
  if n < 0 or ndim < 0:
    raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}" if n < 0 else
                     f"ndim argument to diag_indices must be nonnegative, got {ndim}")
  return _int_arrays(*[np.arange(n)] * ndim)


def _triangle_dims(name: str, n: int, k: int, m: int | None) -> tuple[int, int, int | None]:
  n, k = concrete_int(n, f"{name} n"), concrete_int(k, f"{name} k")
  return n, k, None if m is None else concrete_int(m, f"{name} m")


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
  """The row and column indices of the lower triangle of an (n, m) array."""
  return _int_arrays(*np.tril_indices(*_triangle_dims("tril_indices", n, k, m)))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
  """The row and column indices of the upper triangle of an (n, m) array."""
  return _int_arrays(*np.triu_indices(*_triangle_dims("triu_indices", n, k, m)))


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
  """An array of index grids (a tuple of broadcastable grids if `sparse`)."""
  dims = tuple(concrete_int(d, "indices' dimensions") for d in dimensions)
  dtype = dtypes.default_int() if dtype is None else dtypes.canonicalize(dtype)
  grids = []
  for axis, size in enumerate(dims):
    grid_shape = tuple(size if a == axis else (1 if sparse else d) for a, d in enumerate(dims))
    grids.append(lax.broadcasted_iota(dtype, grid_shape, axis))
  if sparse:
    return tuple(grids)
  if not grids:
    return lax.full((0,), 0, dtype)
  return lax.concatenate([lax.expand_dims(g, (0,)) for g in grids], 0)


def ix_(*args: Any) -> tuple[Any, ...]:
  """An open mesh from 1-d integer index arrays."""
  out = []
  for i, a in enumerate(ensure_arraylike("ix_", *args)):
    if len(shape(a)) != 1:
      raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                       f"{shape(a)}")
    if dtypes.dtype_of(a) == dtypes.bool_:
      raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
    new_shape = [1] * len(args)
    new_shape[i] = shape(a)[0]
    out.append(lax.reshape(a, new_shape))
  return tuple(out)


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple[Any, ...]:  # noqa: A002
  """Coordinates in an array of `shape` of flat indices (clipped into range, as JAX)."""
  (indices,) = ensure_arraylike("unravel_index", indices)
  dims = tuple(int(core.concrete_or_error(d, "The shape argument of unravel_index"))
               for d in shape)
  total = int(np.prod(dims))
  dtype = dtypes.dtype_of(indices)
  if dtype.kind not in "iu":
    raise TypeError(f"Only integer indices are supported by unravel_index, got {dtype}")
  wrapped = lax.select_n(lax.lt(indices, lax.full((), 0, dtype)), indices,
                         lax.add(indices, lax.full((), total, dtype)))
  clipped = lax.clamp(lax.full((), 0, dtype), wrapped, lax.full((), max(total - 1, 0), dtype))
  return tuple(_unravel(clipped, dims))


def ravel_multi_index(multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise",
                      order: str = "C", *, dtype: Any = None) -> Any:
  """Flat indices of coordinates in an array of shape `dims`, in `dtype` (an integer type; by
  default the indices' type, as JAX's result_type(int, *multi_index))."""
  dims = tuple(int(d) for d in dims)
  multi_index = ensure_arraylike("ravel_multi_index", *multi_index)
  if len(multi_index) != len(dims):
    raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
  if order not in ("C", "F"):
    raise ValueError("only 'C' or 'F' order is permitted")
  dt = _flat_index_dtype(multi_index, dims, dtype)
  if mode == "raise":
    for i, d in zip(multi_index, dims):
      v = np.asarray(core.concrete_or_error(i, "The error occurred because ravel_multi_index "
                                            "was jit-compiled with mode='raise'. Use mode='wrap' "
                                            "or mode='clip' instead."))
      if np.any((v < 0) | (v >= d)):
        raise ValueError("invalid entry in coordinates array")
  elif mode not in ("wrap", "clip", "ignore"):
    raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
  idx = [convert(i, dt) for i in promote_args("ravel_multi_index", *multi_index)]
  idx = [_bounded(i, d, mode) for i, d in zip(idx, dims)]
  if order == "F":
    idx, dims = idx[::-1], dims[::-1]
  out, stride = None, 1
  for i, d in zip(reversed(idx), reversed(dims)):
    term = lax.mul(i, lax.full((), stride, dtypes.dtype_of(i)))
    out = term if out is None else lax.add(out, term)
    stride *= d
  return out


def _flat_index_dtype(multi_index: Sequence[Any], dims: tuple[int, ...], dt: Any) -> np.dtype:
  """ravel_multi_index's result dtype: `dt`, else the indices' promoted with a weak int; an
  integer type that holds every flat index."""
  if dt is None:
    dt = result_type(0, *multi_index)[0]
  else:
    dt = dtypes.canonicalize(np.dtype(dt))
  if not dtypes.is_integer(dt):
    raise ValueError(f"dtype={dt} is not an integer type.")
  if int(np.prod(dims)) - 1 > np.iinfo(dt).max:
    raise ValueError(f"jnp.ravel_multi_index: dtype={dt} not large enough to hold flattened "
                     f"index for dims={dims}. Use the dtype argument to pass a suitable dtype "
                     "(e.g. dtype=np.min_scalar_type(prod(dims))).")
  return dt


def _bounded(i: Any, size: int, mode: str) -> Any:
  dtype = dtypes.dtype_of(i)
  if mode == "clip":
    return lax.clamp(lax.full((), 0, dtype), i, lax.full((), size - 1, dtype))
  if mode == "wrap":
    s = lax.full((), size, dtype)
    return lax.rem(lax.add(lax.rem(i, s), s), s)
  return i


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
  """The choice of the first true condition, elementwise (`default` where none is)."""
  if len(condlist) != len(choicelist):
    raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                     f"{len(choicelist)})")
  if not condlist:
    raise ValueError("condlist must be non-empty")
  choices = promote_args("select", default, *choicelist)
  conds = ensure_arraylike("select", *condlist)
  if any(dtypes.dtype_of(c) != dtypes.bool_ for c in conds):
    raise TypeError("select condlist must contain boolean arrays")
  out_shape = broadcast_shapes("select", *(shape(x) for x in conds + list(choices)))
  out = broadcast_to(choices[0], out_shape)
  for cond, choice in reversed(list(zip(conds, choices[1:]))):
    out = lax.select_n(broadcast_to(cond, out_shape), out, broadcast_to(choice, out_shape))
  return out


s_ = np.s_


index_exp = np.index_exp


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
  """A copy of `a` with its main diagonal set to `val` (JAX arrays are immutable: pass
  inplace=False)."""
  if inplace:
    raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
  if wrap:
    raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
  a, val = map(asarray, ensure_arraylike("fill_diagonal", a, val))
  a_shape = shape(a)
  if len(a_shape) < 2:
    raise ValueError("array must be at least 2-d")
  if len(a_shape) > 2 and len(set(a_shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  n = builtins.min(a_shape)
  if shape(val):
    val = _tile_to(ravel(val), n)
  return a.at[diag_indices(n, len(a_shape))].set(val)


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
  """The indices of the main diagonal of the square array `arr`."""
  (arr,) = ensure_arraylike("diag_indices_from", arr)
  s = shape(arr)
  if len(s) < 2:
    raise ValueError("input array must be at least 2-d")
  if len(set(s)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  return tuple(map(asarray, diag_indices(s[0], len(s))))


def _indices_from(name: str, fn: Callable) -> Callable:
  def from_(arr: Any, k: int = 0) -> tuple[Any, Any]:
    s = arr.shape if hasattr(arr, "shape") else shape(ensure_arraylike(name, arr)[0])
    if len(s) != 2:
      raise ValueError("Only 2-D inputs are accepted")
    return tuple(map(asarray, fn(s[0], k=k, m=s[1])))
  from_.__name__ = from_.__qualname__ = name
  from_.__doc__ = f"{fn.__name__} for the shape of the 2-D array `arr`."
  return from_


tril_indices_from = _indices_from("tril_indices_from", tril_indices)


triu_indices_from = _indices_from("triu_indices_from", triu_indices)


def mask_indices(n: int, mask_func: Callable[[Any, int], Any], k: int = 0, *,
                 size: int | None = None) -> tuple[Any, Any]:
  """The indices where `mask_func(ones((n, n)), k)` is nonzero."""
  i, j = nonzero(mask_func(ones((n, n)), k), size=size)
  return i, j


def choose(a: Any, choices: Any, out: None = None, mode: str = "raise") -> Any:
  """choices[a[i]][i] for each index i (broadcast), with `mode` for out-of-range `a`."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
  a, *choices = ensure_arraylike("choose", a, *choices)
  if dtype_of(a).kind not in "iu":
    raise ValueError("`a` array must be integer typed")
  n = len(choices)
  if mode == "raise":
    if isinstance(a, core.Tracer):
      raise core.ConcretizationTypeError(
          "jnp.choose was jit-compiled with mode='raise'. Use mode='wrap' or mode='clip' "
          "instead.")
    if np.any((np.asarray(a) < 0) | (np.asarray(a) >= n)):
      raise ValueError("invalid entry in choice array")
  elif mode == "wrap":
    a = remainder(a, scalar_like(a, n))
  elif mode == "clip":
    a = lax.clamp(scalar_like(a, 0), a, scalar_like(a, n - 1))
  else:
    raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
  a, *choices = broadcast_arrays(a, *choices)
  return take_along_axis(stack(choices), expand_dims(a, 0), axis=0)[0]


def _tile_to(v: Any, n: int) -> Any:
  """The flat `v` repeated (cyclically) to `n` elements."""
  return v[np.arange(n) % shape(v)[0]]


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
  """A copy of `arr` with the elements where `mask` is True set, in order, from `vals` (cycled);
  JAX arrays are immutable: pass inplace=False."""
  data, mask, vals = map(asarray, ensure_arraylike("place", arr, mask, vals))
  vals = ravel(vals)
  if inplace:
    raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                     "immutable. Pass inplace=False to instead return an updated array.")
  n = size_of(shape(data))
  if n != size_of(shape(mask)):
    raise ValueError("place: arr and mask must be the same size")
  if not shape(vals)[0]:
    raise ValueError("Cannot place values from an empty array")
  if not n:
    return data
  (pos,) = nonzero(ravel(mask), size=n, fill_value=n)
  return reshape(ravel(data).at[pos].set(_tile_to(vals, n), mode="drop"), shape(data))


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
  """A copy of `a` with the flat elements at `ind` set to `v` (cycled); JAX arrays are
  immutable: pass inplace=False."""
  if inplace:
    raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                     "immutable. Pass inplace=False to instead return an updated array.")
  a, ind, v = map(asarray, ensure_arraylike("put", a, ind, v))
  ind, v = ravel(ind), ravel(v)
  size = size_of(shape(a))
  if not size or not shape(ind)[0] or not shape(v)[0]:
    return a
  if mode == "clip":
    ind = lax.clamp(scalar_like(ind, 0), ind, scalar_like(ind, size - 1))
  elif mode == "wrap":
    ind = remainder(ind, scalar_like(ind, size))
  elif mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
  elif mode is not None:
    raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
  scatter_mode = "drop" if mode is None else "promise_in_bounds"
  return a.at[unravel_index(ind, shape(a))].set(_tile_to(v, shape(ind)[0]), mode=scatter_mode)


class _Concatenator:
  """r_ and c_: concatenate slices (as aranges/linspaces), scalars and arrays."""

  def __init__(self, axis: int, ndmin: int, trans1d: int, name: str) -> None:
    self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

  def __getitem__(self, key: Any) -> Any:
    key = key if isinstance(key, tuple) else (key,)
    axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
    if key and isinstance(key[0], str):
      try:
        parts = [int(p) for p in key[0].split(",")]
      except ValueError as e:
        raise ValueError(f"{self.name}: could not understand directive {key[0]!r}") from e
      axis, ndmin, trans1d = (parts + [ndmin, trans1d][len(parts) - 1:])[:3]
      key = key[1:]
    items = []
    for item in key:
      if isinstance(item, slice):
        item = np.r_[item]
        item = asarray(item)
      elif isinstance(item, str):
        raise ValueError(f"{self.name}: string directives must come first")
      else:
        item = asarray(item)
        item = reshape(item, (1,)) if not shape(item) else item
      if ndmin and len(shape(item)) < ndmin:
        item = _expand_r(item, ndmin, trans1d)
      items.append(item)
    return concat(items, axis=axis) if items else asarray([])


def _expand_r(item: Any, ndmin: int, trans1d: int) -> Any:
  nd = len(shape(item))
  new = reshape(item, (1,) * (ndmin - nd) + shape(item))
  if trans1d != -1 and nd:
    new = moveaxis(new, tuple(range(ndmin - nd, ndmin)), tuple(
        range(trans1d % ndmin, trans1d % ndmin + nd)))
  return new


r_ = _Concatenator(0, 0, -1, "r_")


c_ = _Concatenator(-1, 2, 0, "c_")
