"""Primitives that tile, split, stack and unstack arrays (JAX's `tile_p`, `split_p`, `stack_p`,
`unstack_p`), all linear, with their functions. Each lowers through the structural primitives
(`stablejax.lowering.rules.stacking`, the `composite_*` functions here)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax.lax.reductions import reduce_sum
from stablejax.lax.structural import (broadcast_in_dim, concatenate, reshape, slice_in_dim,
                                      squeeze)
from stablejax.util import canonicalize_axis

__all__ = ["split", "split_p", "stack", "stack_p", "tile", "tile_p", "unstack", "unstack_p"]


def _multi_linear_jvp(prim: core.Primitive):
  """The JVP of a linear primitive with several results: the primitive of the tangents."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if all(type(t) is ad.Zero for t in tangents):
      return out, [ad.Zero.from_primal_value(o) for o in out]
    return out, prim.bind(*map(ad.instantiate_zeros, tangents), **params)
  return jvp


def _instantiated(cts: Sequence, avals: Sequence[ShapedArray]) -> list:
  return [ad.zeros_like_aval(a) if type(c) is ad.Zero else c for c, a in zip(cts, avals)]


# ----------------------------------------------------------------------------------------------
# tile

def tile(operand: Any, reps: Sequence[int]) -> Any:
  """`operand` repeated `reps[i]` times along each axis i."""
  return tile_p.bind(operand, reps=tuple(int(r) for r in reps))


def _tile_abstract_eval(x: ShapedArray, *, reps) -> ShapedArray:
  if len(reps) != x.ndim:
    raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                    f"and x.ndim={x.ndim}.")
  if any(r < 0 for r in reps):
    raise TypeError(f"tile reps must be non-negative, got {reps}")
  return ShapedArray(tuple(r * n for r, n in zip(reps, x.shape)), x.dtype, x.weak_type)


def composite_tile(x: Any, *, reps) -> Any:
  """tile as a broadcast to (reps0, n0, reps1, n1, ...) and a reshape."""
  shape = core.get_aval(x).shape
  interleaved = tuple(d for pair in zip(reps, shape) for d in pair)
  expanded = broadcast_in_dim(x, interleaved, tuple(range(1, 2 * len(shape), 2)))
  return reshape(expanded, tuple(r * n for r, n in zip(reps, shape)))


def _tile_transpose(ct, x, *, reps):
  shape = x.aval.shape
  split_ct = reshape(ct, tuple(d for pair in zip(reps, shape) for d in pair))
  return [reduce_sum(split_ct, tuple(range(0, 2 * len(shape), 2)))]


def _tile_batcher(args, dims, *, reps):
  (x,), (d,) = args, dims
  return tile(x, reps[:d] + (1,) + reps[d:]), d


tile_p = standard_primitive("tile", _tile_abstract_eval)
def_reference(tile_p, lambda x, *, reps: np.tile(x, reps))
ad.deflinear2(tile_p, _tile_transpose)
batching.primitive_batchers[tile_p] = _tile_batcher


# ----------------------------------------------------------------------------------------------
# split

def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list:
  """Chunks of `operand` of the given `sizes` along `axis` (they must sum to its length)."""
  axis = canonicalize_axis(axis, core.get_aval(operand).ndim)
  return split_p.bind(operand, sizes=tuple(int(s) for s in sizes), axis=axis)


def _split_abstract_eval(x: ShapedArray, *, sizes, axis) -> list[ShapedArray]:
  if not 0 <= axis < x.ndim:
    raise ValueError(f"split axis {axis} is out of bounds for an operand of rank {x.ndim}")
  if sum(sizes) != x.shape[axis] or any(s < 0 for s in sizes):
    raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                     f"operand shape {list(x.shape)}")
  return [ShapedArray(x.shape[:axis] + (s,) + x.shape[axis + 1:], x.dtype, x.weak_type)
          for s in sizes]


def composite_split(x: Any, *, sizes, axis) -> list:
  """split as one slice per chunk."""
  starts = np.cumsum((0,) + sizes).tolist()
  return [slice_in_dim(x, lo, hi, axis=axis) for lo, hi in zip(starts, starts[1:])]


def _split_transpose(cts, x, *, sizes, axis):
  avals = _split_abstract_eval(x.aval, sizes=sizes, axis=axis)
  return [concatenate(_instantiated(cts, avals), axis)]


def _split_batcher(args, dims, *, sizes, axis):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  outs = split_p.bind(x, sizes=sizes, axis=axis + 1)
  return outs, [0] * len(outs)


split_p = standard_primitive("split", _split_abstract_eval, multiple_results=True)
def_reference(split_p, lambda x, *, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis))
ad.primitive_jvps[split_p] = _multi_linear_jvp(split_p)
ad.primitive_transposes[split_p] = _split_transpose
batching.primitive_batchers[split_p] = _split_batcher


# ----------------------------------------------------------------------------------------------
# stack and unstack

def stack(operands: Sequence[Any], axis: int = 0) -> Any:
  """`operands` (all of one shape) joined along a new axis `axis`."""
  if not operands:
    raise ValueError("stack requires at least one array")
  axis = canonicalize_axis(axis, core.get_aval(operands[0]).ndim + 1)
  return stack_p.bind(*operands, axis=axis)


def _stack_abstract_eval(*xs: ShapedArray, axis) -> ShapedArray:
  if len({(x.shape, x.dtype) for x in xs}) != 1:
    raise ValueError("All input arrays must have the same shape and dtype. Got "
                     + ", ".join(x.str_short() for x in xs) + ".")
  x = xs[0]
  return ShapedArray(x.shape[:axis] + (len(xs),) + x.shape[axis:], x.dtype,
                     all(y.weak_type for y in xs))


def composite_stack(*xs: Any, axis) -> Any:
  """stack as a concatenation of reshapes."""
  shape = core.get_aval(xs[0]).shape
  return concatenate([reshape(x, shape[:axis] + (1,) + shape[axis:]) for x in xs], axis)


def _stack_transpose(ct, *xs, axis):
  return list(unstack_p.bind(ct, axis=axis))


def _stack_batcher(axis_data, args, dims, *, axis):
  xs = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims)]
  return stack_p.bind(*xs, axis=axis + 1), 0


stack_p = standard_primitive("stack", _stack_abstract_eval)
def_reference(stack_p, lambda *xs, axis: np.stack(xs, axis))
ad.deflinear2(stack_p, _stack_transpose)
batching.fancy_primitive_batchers[stack_p] = _stack_batcher


def unstack(x: Any, axis: int = 0) -> tuple:
  """The slices of `x` along `axis`, that axis removed."""
  axis = canonicalize_axis(axis, core.get_aval(x).ndim)
  return tuple(unstack_p.bind(x, axis=axis))


def _unstack_abstract_eval(x: ShapedArray, *, axis) -> list[ShapedArray]:
  part = ShapedArray(x.shape[:axis] + x.shape[axis + 1:], x.dtype, x.weak_type)
  return [part] * x.shape[axis]


def composite_unstack(x: Any, *, axis) -> list:
  """unstack as one slice (squeezed) per index."""
  return [squeeze(slice_in_dim(x, i, i + 1, axis=axis), (axis,))
          for i in range(core.get_aval(x).shape[axis])]


def _unstack_transpose(cts, x, *, axis):
  avals = _unstack_abstract_eval(x.aval, axis=axis)
  return [stack_p.bind(*_instantiated(cts, avals), axis=axis)]


def _unstack_batcher(args, dims, *, axis):
  (x,), (d,) = args, dims
  outs = unstack_p.bind(batching.moveaxis(x, d, 0), axis=axis + 1)
  return outs, [0] * len(outs)


unstack_p = standard_primitive("unstack", _unstack_abstract_eval, multiple_results=True)
def_reference(unstack_p, lambda x, *, axis: [np.take(x, i, axis)
                                             for i in range(x.shape[axis])])
ad.primitive_jvps[unstack_p] = _multi_linear_jvp(unstack_p)
ad.primitive_transposes[unstack_p] = _unstack_transpose
batching.primitive_batchers[unstack_p] = _unstack_batcher

for _prim in (tile_p, split_p, stack_p, unstack_p):
  flops.flops_rules[_prim] = flops.free
del _prim
