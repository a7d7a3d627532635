"""Structural primitives: broadcasting, reshaping, transposition, slicing, padding,
concatenation and iota."""
from __future__ import annotations

from typing import Any, Sequence

from stablejax import core
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching
from stablejax.lax.standard import standard_primitive


def broadcast_in_dim(operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]
                     ) -> Any:
  """Broadcast `operand` to `shape`; operand axis i becomes result axis broadcast_dimensions[i]."""
  return broadcast_in_dim_p.bind(operand, shape=tuple(int(d) for d in shape),
                                 broadcast_dimensions=tuple(int(d) for d in broadcast_dimensions))


def transpose(operand: Any, permutation: Sequence[int]) -> Any:
  return transpose_p.bind(operand, permutation=tuple(int(p) for p in permutation))


def _broadcast_in_dim_abstract_eval(x: ShapedArray, *, shape, broadcast_dimensions):
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


broadcast_in_dim_p = standard_primitive("broadcast_in_dim", _broadcast_in_dim_abstract_eval)
ad.deflinear(broadcast_in_dim_p, lambda ct, **params: [None])  # transpose: reverse-mode issue


def _broadcast_in_dim_batcher(args, dims, *, shape, broadcast_dimensions):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  size = core.get_aval(x).shape[0]
  return broadcast_in_dim(x, (size,) + shape, (0,) + tuple(b + 1 for b in broadcast_dimensions)), 0


batching.primitive_batchers[broadcast_in_dim_p] = _broadcast_in_dim_batcher


def _transpose_abstract_eval(x: ShapedArray, *, permutation):
  if sorted(permutation) != list(range(x.ndim)):
    raise TypeError(f"transpose permutation {permutation} is not a permutation of the axes of "
                    f"an operand of type {x.str_short()}")
  return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


transpose_p = standard_primitive("transpose", _transpose_abstract_eval)
ad.deflinear(transpose_p, lambda ct, **params: [None])  # transpose: reverse-mode issue


def _transpose_batcher(args, dims, *, permutation):
  (x,), (d,) = args, dims
  perm = (d,) + tuple(p + (p >= d) for p in permutation)
  return transpose(x, perm), 0


batching.primitive_batchers[transpose_p] = _transpose_batcher
