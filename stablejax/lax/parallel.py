"""Collectives over named axes (JAX's `lax.psum`, `all_gather`, `ppermute`, ...), with JAX's
primitives and params. An axis is named by `vmap(..., axis_name=)` (the collective then acts
along the batch axis: `batching.collective_batchers`) or by a `shard_map` mesh (it lowers to a
StableHLO collective over the mesh's devices: lowering/rules/parallel.py). Collectives have no
numpy reference: their value depends on the other participants."""
from __future__ import annotations

from typing import Any, Hashable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters.batching import not_mapped
from stablejax.lax.primitive_kit import (check_dtype, numeric_dtypes, ordered_dtypes,
                                         standard_primitive)
from stablejax.tree_util import tree_map
from stablejax.util import canonicalize_axis, prod

__all__ = [
    "all_gather", "all_gather_p", "all_to_all", "all_to_all_p", "axis_index", "axis_index_p",
    "axis_size", "pbroadcast", "pcast", "pmax", "pmax_p", "pmean", "pmin", "pmin_p", "ppermute",
    "ppermute_p", "pshuffle", "psum", "psum_p", "psum_scatter", "pswapaxes", "ragged_all_to_all",
    "ragged_all_to_all_p", "reduce_scatter_p",
]

AxisName = Hashable


def _names(axis_name: AxisName | Sequence[AxisName]) -> tuple:
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _group_size(axis_name: AxisName | Sequence[AxisName], api_name: str) -> int:
  return prod(batching.axis_size(n, api_name) for n in _names(axis_name))


def _no_groups(axis_index_groups: Any, api_name: str) -> None:
  if axis_index_groups is not None:
    raise NotImplementedError(f"{api_name}: axis_index_groups is not supported by stablejax")


def _batched_front(x: Any, d: int | None, size: int) -> Any:
  """`x` with its batch axis first (a broadcast one if it is not mapped)."""
  return batching.bdim_at_front(x, d, size)


def _named_batcher(prim: core.Primitive, names_of, named_rule, several_rule=None):
  """The collective batcher of `prim` under a vmap with an axis name: `named_rule` where the
  collective is over that name alone, `several_rule(axis_data, vals, dims, **params)` where it
  is over that name and others (None: refused), else the ordinary batching rule (the batch axis
  goes through the collective)."""
  def rule(axis_data, vals, dims, /, **params):
    names = names_of(params)
    if axis_data.name not in names:
      if all(d is not_mapped for d in dims):
        return prim.bind(*vals, **params), not_mapped
      return batching.primitive_batchers[prim](vals, dims, **params)
    if len(names) > 1:
      if several_rule is None:
        raise NotImplementedError(f"{prim.name} over the vmapped axis {axis_data.name!r} "
                                  f"together with other axes {names} is not supported")
      return several_rule(axis_data, vals, dims, **params)
    return named_rule(axis_data.size, vals, dims, **params)
  batching.collective_batchers[prim] = rule


# ----------------------------------------------------------------------------------------------
# psum, pmax, pmin

def _allreduce_abstract_eval(name: str):
  def abstract_eval(x: ShapedArray, *, axes, axis_index_groups) -> ShapedArray:
    check_dtype(name, numeric_dtypes if name == "psum" else ordered_dtypes, x)
    return x
  return abstract_eval


psum_p = standard_primitive("psum", _allreduce_abstract_eval("psum"))
pmax_p = standard_primitive("pmax", _allreduce_abstract_eval("pmax"))
pmin_p = standard_primitive("pmin", _allreduce_abstract_eval("pmin"))


def _allreduce(prim: core.Primitive, api_name: str, x: Any, axis_name: Any,
               axis_index_groups: Any) -> Any:
  _no_groups(axis_index_groups, api_name)
  axes = _names(axis_name)
  for name in axes:
    batching.axis_size(name, api_name)
  return tree_map(lambda v: prim.bind(v, axes=axes, axis_index_groups=None), x)


def psum(x: Any, axis_name: AxisName | Sequence[AxisName], *, axis_index_groups: Any = None
         ) -> Any:
  """Sum `x` (a pytree) over the named axis `axis_name` (or a tuple of them)."""
  return _allreduce(psum_p, "psum", x, axis_name, axis_index_groups)


def pmax(x: Any, axis_name: AxisName | Sequence[AxisName], *, axis_index_groups: Any = None
         ) -> Any:
  """The maximum of `x` over the named axis `axis_name`."""
  return _allreduce(pmax_p, "pmax", x, axis_name, axis_index_groups)


def pmin(x: Any, axis_name: AxisName | Sequence[AxisName], *, axis_index_groups: Any = None
         ) -> Any:
  """The minimum of `x` over the named axis `axis_name`."""
  return _allreduce(pmin_p, "pmin", x, axis_name, axis_index_groups)


def pmean(x: Any, axis_name: AxisName | Sequence[AxisName], *, axis_index_groups: Any = None
          ) -> Any:
  """The mean of `x` over the named axis `axis_name` (integers give floats, as in JAX)."""
  n = _group_size(axis_name, "pmean")

  def mean(v):
    aval = core.get_aval(v)
    if not dtypes.is_inexact(aval.dtype):
      v = lax.convert_element_type(v, dtypes.default_float())
    return lax.div(v, lax.full((), n, core.get_aval(v).dtype))
  return tree_map(mean, psum(x, axis_name, axis_index_groups=axis_index_groups))


def _allreduce_batcher(prim):
  def rule(vals, dims, *, axes, axis_index_groups):
    return prim.bind(vals[0], axes=axes, axis_index_groups=axis_index_groups), dims[0]
  return rule


def _count_like(x: Any, n: int) -> Any:
  """`n` as a scalar of x's dtype, weak if x is (a Python scalar summed stays weak, as JAX)."""
  aval = core.get_aval(x)
  return lax.convert_element_type(n, aval.dtype, weak_type=aval.weak_type)


def _allreduce_named(prim, reduce, unmapped):
  """Over the vmapped axis alone: reduce along the batch axis (the result is unbatched)."""
  def rule(size, vals, dims, /, *, axes, axis_index_groups):
    (x,), (d,) = vals, dims
    return (unmapped(x, size) if d is not_mapped else reduce(x, (d,))), not_mapped
  return rule


def _pminmax_jvp(name: str):
  def jvp(primals, tangents, **params):
    raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")
  return jvp


def _psum_transpose(ct, x, *, axes, axis_index_groups):
  # Every participant's output depends on every input: the cotangents are summed back (the
  # shard_map transpose scales replicated outputs' cotangents to match, as JAX's does).
  return [psum_p.bind(ct, axes=axes, axis_index_groups=axis_index_groups)]


ad.deflinear2(psum_p, _psum_transpose)
ad.primitive_jvps[pmax_p] = _pminmax_jvp("pmax")
ad.primitive_jvps[pmin_p] = _pminmax_jvp("pmin")
def _allreduce_several(prim, named):
  """Over the vmapped axis and others: reduce along the batch axis, then over the others (as
  JAX: the enclosing vmaps or mesh reduce over their axes)."""
  def rule(axis_data, vals, dims, /, *, axes, axis_index_groups):
    out, _ = named(axis_data.size, vals, dims, axes=axes, axis_index_groups=axis_index_groups)
    rest = tuple(n for n in axes if n != axis_data.name)
    return prim.bind(out, axes=rest, axis_index_groups=axis_index_groups), not_mapped
  return rule


for _p, _reduce, _unmapped in [
    (psum_p, lambda x, a: lax.reduce_sum(x, a), lambda x, n: lax.mul(x, _count_like(x, n))),
    (pmax_p, lambda x, a: lax.reduce_max(x, a), lambda x, n: x),
    (pmin_p, lambda x, a: lax.reduce_min(x, a), lambda x, n: x)]:
  batching.primitive_batchers[_p] = _allreduce_batcher(_p)
  _named = _allreduce_named(_p, _reduce, _unmapped)
  _named_batcher(_p, lambda params: params["axes"], _named, _allreduce_several(_p, _named))


# ----------------------------------------------------------------------------------------------
# all_gather and psum_scatter (reduce_scatter)

def _all_gather_abstract_eval(x: ShapedArray, *, all_gather_dimension, axis_name, axis_size,
                              axis_index_groups, tiled) -> ShapedArray:
  shape = list(x.shape)
  if tiled:
    if not shape:
      raise TypeError(f"all_gather with tiled=True needs an array of rank >= 1, got "
                      f"{x.str_short()}")
    shape[all_gather_dimension] *= axis_size
  else:
    shape.insert(all_gather_dimension, axis_size)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


all_gather_p = standard_primitive("all_gather", _all_gather_abstract_eval)


def all_gather(x: Any, axis_name: AxisName | Sequence[AxisName], *, axis_index_groups: Any = None,
               axis: int = 0, tiled: bool = False) -> Any:
  """Gather `x` from every participant of `axis_name`, stacked at `axis` (or concatenated
  along it with `tiled=True`)."""
  _no_groups(axis_index_groups, "all_gather")
  size = _group_size(axis_name, "all_gather")

  def bind(v):
    ndim = core.get_aval(v).ndim
    dim = canonicalize_axis(axis, ndim if tiled else ndim + 1)
    return all_gather_p.bind(v, all_gather_dimension=dim, axis_name=_names(axis_name),
                             axis_size=size, axis_index_groups=None, tiled=tiled)
  return tree_map(bind, x)


def _reduce_scatter_abstract_eval(x: ShapedArray, *, scatter_dimension, axis_name, axis_size,
                                  axis_index_groups, tiled) -> ShapedArray:
  check_dtype("psum_scatter", numeric_dtypes, x)
  shape = list(x.shape)
  if not 0 <= scatter_dimension < len(shape):
    raise ValueError(f"psum_scatter: scatter_dimension {scatter_dimension} is out of bounds "
                     f"for an operand of type {x.str_short()}")
  size = shape[scatter_dimension]
  if tiled and size % axis_size or not tiled and size != axis_size:
    raise ValueError(f"psum_scatter: the scatter dimension of {x.str_short()} (size {size}) "
                     f"must {'be divisible by' if tiled else 'equal'} the size of the named "
                     f"axis {axis_name} ({axis_size})")
  if tiled:
    shape[scatter_dimension] //= axis_size
  else:
    del shape[scatter_dimension]
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


reduce_scatter_p = standard_primitive("reduce_scatter", _reduce_scatter_abstract_eval)


def psum_scatter(x: Any, axis_name: AxisName | Sequence[AxisName], *, scatter_dimension: int = 0,
                 axis_index_groups: Any = None, tiled: bool = False) -> Any:
  """Sum `x` over `axis_name` and give each participant its block along `scatter_dimension`
  (the index `axis_index(axis_name)` of it; a slice of it with `tiled=True`)."""
  _no_groups(axis_index_groups, "psum_scatter")
  size = _group_size(axis_name, "psum_scatter")

  def bind(v):
    dim = canonicalize_axis(scatter_dimension, core.get_aval(v).ndim)
    return reduce_scatter_p.bind(v, scatter_dimension=dim, axis_name=_names(axis_name),
                                 axis_size=size, axis_index_groups=None, tiled=tiled)
  return tree_map(bind, x)


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size,
                          axis_index_groups, tiled):
  return [reduce_scatter_p.bind(ct, scatter_dimension=all_gather_dimension,
                                axis_name=axis_name, axis_size=axis_size,
                                axis_index_groups=axis_index_groups, tiled=tiled)]


def _reduce_scatter_transpose(ct, x, *, scatter_dimension, axis_name, axis_size,
                              axis_index_groups, tiled):
  return [all_gather_p.bind(ct, all_gather_dimension=scatter_dimension, axis_name=axis_name,
                            axis_size=axis_size, axis_index_groups=axis_index_groups,
                            tiled=tiled)]


def _all_gather_batcher(vals, dims, *, all_gather_dimension, **params):
  x = batching.moveaxis(vals[0], dims[0], 0)
  return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension + 1, **params), 0


def _all_gather_named(size, vals, dims, /, *, all_gather_dimension, tiled, **params):
  """Every member gets the batch, stacked (or concatenated) at the gather dimension."""
  x = _batched_front(vals[0], dims[0], size)
  out = batching.moveaxis(x, 0, all_gather_dimension)
  if tiled:
    shape = list(core.get_aval(x).shape[1:])
    shape[all_gather_dimension] *= size
    out = lax.reshape(out, tuple(shape))
  return out, not_mapped


def _reduce_scatter_batcher(vals, dims, *, scatter_dimension, **params):
  x = batching.moveaxis(vals[0], dims[0], 0)
  return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension + 1, **params), 0


def _reduce_scatter_named(size, vals, dims, /, *, scatter_dimension, tiled, **params):
  """Sum the batch, then member j takes block j of the scatter dimension (batched at 0)."""
  (x,), (d,) = vals, dims
  summed = (lax.mul(x, lax.full((), size, core.get_aval(x).dtype)) if d is not_mapped
            else lax.reduce_sum(x, (d,)))
  shape = list(core.get_aval(summed).shape)
  shape[scatter_dimension:scatter_dimension + 1] = [size, shape[scatter_dimension] //
                                                    size]
  blocks = lax.reshape(summed, tuple(shape))
  if not tiled:
    blocks = lax.squeeze(blocks, (scatter_dimension + 1,))
  return batching.moveaxis(blocks, scatter_dimension, 0), 0


ad.deflinear2(all_gather_p, _all_gather_transpose)
ad.deflinear2(reduce_scatter_p, _reduce_scatter_transpose)
batching.primitive_batchers[all_gather_p] = _all_gather_batcher
batching.primitive_batchers[reduce_scatter_p] = _reduce_scatter_batcher
_named_batcher(all_gather_p, lambda params: params["axis_name"], _all_gather_named)
_named_batcher(reduce_scatter_p, lambda params: params["axis_name"], _reduce_scatter_named)


# ----------------------------------------------------------------------------------------------
# ppermute

def _ppermute_abstract_eval(x: ShapedArray, *, axis_name, perm) -> ShapedArray:
  return x


ppermute_p = standard_primitive("ppermute", _ppermute_abstract_eval)


def ppermute(x: Any, axis_name: AxisName | Sequence[AxisName], perm: Sequence[tuple[int, int]]
             ) -> Any:
  """Send `x` from participant `src` to `dst` for each `(src, dst)` in `perm`; participants
  receiving nothing get zeros."""
  size = _group_size(axis_name, "ppermute")
  perm = tuple((int(s), int(d)) for s, d in perm)
  srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
  if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
    raise ValueError(f"ppermute sources and destinations must be unique, got {perm}")
  if any(not 0 <= i < size for i in srcs + dsts):
    raise ValueError(f"ppermute: every index of perm {perm} must be in [0, {size}), the size of "
                     f"the axis {axis_name}")
  return tree_map(lambda v: ppermute_p.bind(v, axis_name=_names(axis_name), perm=perm), x)


def _ppermute_transpose(ct, x, *, axis_name, perm):
  return [ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))]


def _ppermute_batcher(vals, dims, **params):
  return ppermute_p.bind(vals[0], **params), dims[0]


def _ppermute_named(size, vals, dims, /, *, axis_name, perm):
  """Member dst takes the batch element src; members receiving nothing get zeros."""
  x = _batched_front(vals[0], dims[0], size)
  source = dict((d, s) for s, d in perm)
  aval = core.get_aval(x)
  zero = lax.full((1,) + aval.shape[1:], 0, aval.dtype)
  parts = [lax.slice_in_dim(x, source[j], source[j] + 1) if j in source else zero
           for j in range(size)]
  return lax.concatenate(parts, 0), 0


ad.deflinear2(ppermute_p, _ppermute_transpose)
batching.primitive_batchers[ppermute_p] = _ppermute_batcher
_named_batcher(ppermute_p, lambda params: params["axis_name"], _ppermute_named)


# ----------------------------------------------------------------------------------------------
# all_to_all

def _all_to_all_abstract_eval(x: ShapedArray, *, axis_name, split_axis, concat_axis,
                              axis_size, axis_index_groups, tiled) -> ShapedArray:
  shape = list(x.shape)
  for what, axis in (("split_axis", split_axis), ("concat_axis", concat_axis)):
    if not 0 <= axis < len(shape):
      raise ValueError(f"all_to_all: {what} {axis} is out of bounds for {x.str_short()}")
  size = axis_size
  if shape[split_axis] % size:
    raise ValueError(f"The size of all_to_all split_axis ({shape[split_axis]}) has to be "
                     f"divisible by the size of the named axis {axis_name} ({size})")
  shape[split_axis] //= size
  shape[concat_axis] *= size
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


# (its `axis_size` param, which JAX's lacks, keeps its type independent of the axis names bound)
all_to_all_p = standard_primitive("all_to_all", _all_to_all_abstract_eval)


def all_to_all(x: Any, axis_name: AxisName | Sequence[AxisName], split_axis: int,
               concat_axis: int, *, axis_index_groups: Any = None, tiled: bool = False) -> Any:
  """Split `split_axis` of `x` into one block per participant, send block j to participant j
  and concatenate the blocks received along `concat_axis` (without `tiled`, the split axis is
  removed and a new axis of the group size is inserted at `concat_axis`)."""
  _no_groups(axis_index_groups, "all_to_all")
  size = _group_size(axis_name, "all_to_all")

  def bind(v):
    split, concat = split_axis, concat_axis
    if not tiled:
      if core.get_aval(v).shape[split] != size:
        raise ValueError(f"all_to_all requires the size of the mapped axis axis_name to equal "
                         f"x.shape[split_axis], but they are {size} and "
                         f"{core.get_aval(v).shape[split]} respectively.")
      if split < concat:
        concat += 1
        v = lax.expand_dims(v, (concat,))
      elif concat < split:
        v = lax.expand_dims(v, (concat,))
        split += 1
    out = all_to_all_p.bind(v, axis_name=axis_name, split_axis=split, concat_axis=concat,
                            axis_size=size, axis_index_groups=None, tiled=tiled)
    return out if tiled or split == concat else lax.squeeze(out, (split,))
  return tree_map(bind, x)


def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, **params):
  return [all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, **params)]


def _all_to_all_batcher(vals, dims, *, split_axis, concat_axis, **params):
  x = batching.moveaxis(vals[0], dims[0], 0)
  return all_to_all_p.bind(x, split_axis=split_axis + 1, concat_axis=concat_axis + 1,
                           **params), 0


def _all_to_all_named(size, vals, dims, /, *, split_axis, concat_axis, **params):
  """Member j's result: block j (of the split axis) of every member's value, concatenated
  along the concat axis in member order (batched at 0)."""
  x = _batched_front(vals[0], dims[0], size)
  shape = core.get_aval(x).shape[1:]
  block = shape[split_axis] // size
  # axes of x after splitting the split axis into (j, block): 0 is the member m
  split_shape = list(shape)
  split_shape[split_axis:split_axis + 1] = [size, block]
  x = lax.reshape(x, (size,) + tuple(split_shape))
  local = [a + 1 + (a > split_axis) for a in range(len(shape))]  # axis a's position in x
  local[split_axis] += 1  # the split axis keeps its block part
  j = split_axis + 1
  order = [j]
  for a in range(len(shape)):
    order += [0, local[a]] if a == concat_axis else [local[a]]
  out_shape = list(shape)
  out_shape[split_axis] = block
  out_shape[concat_axis] *= size
  return lax.reshape(lax.transpose(x, tuple(order)), (size,) + tuple(out_shape)), 0


ad.deflinear2(all_to_all_p, _all_to_all_transpose)
batching.primitive_batchers[all_to_all_p] = _all_to_all_batcher
_named_batcher(all_to_all_p, lambda params: _names(params["axis_name"]), _all_to_all_named)


# ----------------------------------------------------------------------------------------------
# axis_index, axis_size

def _axis_index_abstract_eval(*, axis_name) -> ShapedArray:
  return ShapedArray((), np.dtype(np.int32))


axis_index_p = standard_primitive("axis_index", _axis_index_abstract_eval)


def axis_index(axis_name: AxisName | Sequence[AxisName]) -> Any:
  """This participant's index along the named axis (row-major over a tuple of names)."""
  for name in _names(axis_name):
    batching.axis_size(name, "axis_index")
  return axis_index_p.bind(axis_name=axis_name)


def axis_size(axis_name: AxisName | Sequence[AxisName]) -> int:
  """The size of the named axis (the product over a tuple of names), a Python int."""
  return _group_size(axis_name, "axis_size")


def _axis_index_named(size, vals, dims, /, *, axis_name):
  return lax.iota(np.int32, size), 0


def _axis_index_several(axis_data, vals, dims, /, *, axis_name):
  """Row-major over the names: the batch's iota for the vmapped one, the enclosing ones'
  indices for the others."""
  names = _names(axis_name)
  sizes = [axis_data.size if n == axis_data.name else batching.axis_size(n, "axis_index")
           for n in names]
  out = lax.full((axis_data.size,), 0, np.int32)
  for k, name in enumerate(names):
    index = (lax.iota(np.int32, axis_data.size) if name == axis_data.name
             else axis_index_p.bind(axis_name=name))
    out = lax.add(out, lax.mul(index, np.int32(prod(sizes[k + 1:]))))
  return out, 0


_named_batcher(axis_index_p, lambda params: _names(params["axis_name"]), _axis_index_named,
               _axis_index_several)

# ----------------------------------------------------------------------------------------------
# ragged_all_to_all (XLA's RaggedAllToAll: no CPU kernel, as in JAX)

def ragged_all_to_all(operand: Any, output: Any, input_offsets: Any, send_sizes: Any,
                      output_offsets: Any, recv_sizes: Any, *,
                      axis_name: AxisName | Sequence[AxisName], axis_index_groups: Any = None
                      ) -> Any:
  """The ragged all_to_all: participant i sends rows [input_offsets[j], + send_sizes[j]) of
  `operand` to participant j, which writes them into its `output` at output_offsets[j] of the
  sender (`recv_sizes[j]` rows come from j)."""
  _no_groups(axis_index_groups, "ragged_all_to_all")
  names = _names(axis_name)
  try:
    for name in names:
      batching.axis_size(name, "ragged_all_to_all")
  except NameError:
    raise RuntimeError("ragged_all_to_all must be used within a mapped context like vmap or "
                       "shard_map.") from None
  return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes, output_offsets,
                                  recv_sizes, axis_name=names, axis_index_groups=None)


def _ragged_all_to_all_abstract_eval(operand: ShapedArray, output: ShapedArray, *sizes,
                                     axis_name, axis_index_groups) -> ShapedArray:
  """JAX's checks: the offsets and sizes are non-empty integer vectors; `output`'s type."""
  for what, aval in zip(("input_offsets", "send_sizes", "output_offsets", "recv_sizes"), sizes):
    if dtypes.kind(aval.dtype) not in "iu":
      raise ValueError(f"ragged_all_to_all {what} must be integer type.")
    if aval.ndim != 1 or aval.shape[0] < 1:
      raise ValueError(f"ragged_all_to_all {what} must be rank 1 with positive dimension size, "
                       f"but got shape {aval.shape}")
  return ShapedArray(output.shape, output.dtype)


def _ragged_all_to_all_jvp(primals, tangents, **params):
  """Linear in the operand and the output (JAX's rule)."""
  out = ragged_all_to_all_p.bind(*primals, **params)
  if type(tangents[0]) is ad.Zero and type(tangents[1]) is ad.Zero:
    return out, ad.Zero.from_primal_value(out)
  return out, ragged_all_to_all_p.bind(*map(ad.instantiate_zeros, tangents[:2]), *primals[2:],
                                       **params)


def _ragged_all_to_all_named(axis_data, vals, dims, /, **params):
  """Over the vmapped axis: refused (as JAX); over others, the ordinary rule."""
  if axis_data.name in params["axis_name"]:
    raise NotImplementedError("Please open a feature request!")
  if all(d is not_mapped for d in dims):
    return ragged_all_to_all_p.bind(*vals, **params), not_mapped
  return _ragged_all_to_all_batcher(vals, dims, **params)


def _ragged_all_to_all_batcher(vals, dims, **params):
  """JAX's: the batch merged into the rows, each member's offsets shifted to its block."""
  size = batching.axis_size_of(vals, dims)
  operand, output = (_batched_front(x, d, size) for x, d in zip(vals[:2], dims[:2]))
  # the offsets and sizes: (size, n) -> (n, size), flattened member-minor
  sizes = [lax.transpose(_batched_front(x, d, size), (1, 0)) for x, d in zip(vals[2:], dims[2:])]
  rows = [core.get_aval(operand).shape[1], core.get_aval(output).shape[1]]
  for k, n in ((0, rows[0]), (2, rows[1])):
    aval = core.get_aval(sizes[k])
    shift = lax.mul(lax.broadcasted_iota(aval.dtype, aval.shape, 1), np.array(n, aval.dtype))
    sizes[k] = lax.add(sizes[k], shift)
  def merge(x):
    shape = core.get_aval(x).shape
    return lax.reshape(x, (shape[0] * shape[1],) + shape[2:])
  out = ragged_all_to_all_p.bind(merge(operand), merge(output), *map(merge, sizes), **params)
  shape = core.get_aval(out).shape
  return lax.reshape(out, (size, shape[0] // size) + shape[1:]), 0


ragged_all_to_all_p = standard_primitive("ragged_all_to_all", _ragged_all_to_all_abstract_eval)
ad.primitive_jvps[ragged_all_to_all_p] = _ragged_all_to_all_jvp
batching.primitive_batchers[ragged_all_to_all_p] = _ragged_all_to_all_batcher
batching.collective_batchers[ragged_all_to_all_p] = _ragged_all_to_all_named


# ----------------------------------------------------------------------------------------------
# Collectives written with the ones above (JAX's wrappers)

def pshuffle(x: Any, axis_name: AxisName | Sequence[AxisName], perm: Sequence[int]) -> Any:
  """Participant i receives the value of participant `perm[i]` (a ppermute)."""
  if set(perm) != set(range(len(perm))):
    raise ValueError(f"`perm` does not represent a permutation: {perm}")
  return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


def pswapaxes(x: Any, axis_name: AxisName | Sequence[AxisName], axis: int, *,
              axis_index_groups: Any = None) -> Any:
  """Swap the named axis with the positional `axis` (an all_to_all splitting and concatenating
  along `axis`)."""
  return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pbroadcast(x: Any, axis_name: AxisName | Sequence[AxisName], source: int) -> Any:
  """Every participant gets the value of participant `source`."""
  size = _group_size(axis_name, "pbroadcast")
  if not 0 <= source < size:
    raise ValueError(f"pbroadcast: source {source} is out of range for an axis of size {size}")
  return tree_map(lambda v: lax.index_in_dim(all_gather(v, axis_name), source, 0, False), x)


_PCAST_TO = ("varying", "reduced", "unreduced")


def pcast(x: Any, axis_name: AxisName | Sequence[AxisName], *, to: str) -> Any:
  """Cast `x` to varying over `axis_name` (JAX's pvary): its values unchanged (stablejax does
  not track which axes a value varies over). No axis names: `x`."""
  if isinstance(axis_name, (set, frozenset)):
    raise TypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
  if not axis_name:
    return x
  if to not in _PCAST_TO:
    raise ValueError(f"Got unexpected `to` value. Allowed `to` values are: {set(_PCAST_TO)}")
  for name in _names(axis_name):
    batching.axis_size(name, "pcast")
  if to != "varying":
    raise NotImplementedError(f"pcast(to={to!r}): stablejax does not track reduced and "
                              "unreduced values")
  return x


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

# one combine per element for the reductions; moving data is free
flops.flops_rules[psum_p] = flops.in_size
flops.flops_rules[pmax_p] = flops.in_size
flops.flops_rules[pmin_p] = flops.in_size
flops.flops_rules[reduce_scatter_p] = flops.in_size
flops.flops_rules[all_gather_p] = flops.free
flops.flops_rules[ppermute_p] = flops.free
flops.flops_rules[all_to_all_p] = flops.free
flops.flops_rules[axis_index_p] = flops.free
flops.flops_rules[ragged_all_to_all_p] = flops.free
