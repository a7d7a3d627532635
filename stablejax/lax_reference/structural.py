"""Reference implementations of the structural, reduction and contraction primitives."""
from __future__ import annotations

import builtins
import string

import numpy as np

from stablejax.lax_reference import reference


@reference("broadcast_in_dim")
def broadcast_in_dim(operand, *, shape, broadcast_dimensions):
  in_shape = [1] * len(shape)
  for i, d in enumerate(broadcast_dimensions):
    in_shape[d] = operand.shape[i]
  return np.broadcast_to(operand.reshape(in_shape), shape)


@reference("transpose")
def transpose(operand, *, permutation):
  return np.transpose(operand, permutation)


@reference("reshape")
def reshape(operand, *, new_sizes, dimensions):
  if dimensions is not None:
    operand = np.transpose(operand, dimensions)
  return np.reshape(operand, new_sizes)


@reference("squeeze")
def squeeze(operand, *, dimensions):
  return np.squeeze(operand, axis=tuple(dimensions))


@reference("expand_dims")
def expand_dims(operand, *, dimensions):
  return np.expand_dims(operand, tuple(dimensions))


@reference("concatenate")
def concatenate(*operands, dimension):
  return np.concatenate(operands, axis=dimension)


@reference("slice")
def slice_(operand, *, start_indices, limit_indices, strides):
  strides = strides or (1,) * operand.ndim
  return operand[tuple(map(builtins.slice, start_indices, limit_indices, strides))]


def _clamped_starts(starts, operand_shape, sizes) -> list[int]:
  """Start indices clamped as XLA does, so that the window lies inside the operand."""
  return [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, operand_shape, sizes)]


@reference("dynamic_slice")
def dynamic_slice(operand, *start_indices, slice_sizes):
  starts = _clamped_starts(start_indices, operand.shape, slice_sizes)
  return operand[tuple(builtins.slice(s, s + n) for s, n in zip(starts, slice_sizes))]


@reference("dynamic_update_slice")
def dynamic_update_slice(operand, update, *start_indices):
  starts = _clamped_starts(start_indices, operand.shape, update.shape)
  out = operand.copy()
  out[tuple(builtins.slice(s, s + n) for s, n in zip(starts, update.shape))] = update
  return out


def _interior_pad(operand, padding_value, axis: int, interior: int):
  n = operand.shape[axis]
  shape = list(operand.shape)
  shape[axis] = n + max(n - 1, 0) * interior
  out = np.full(shape, padding_value, operand.dtype)
  index = [builtins.slice(None)] * operand.ndim
  index[axis] = builtins.slice(None, None, interior + 1)
  out[tuple(index)] = operand
  return out


@reference("pad")
def pad(operand, padding_value, *, padding_config):
  """Interior padding, then positive edge padding, then cropping for negative edge padding."""
  for axis, (_, _, interior) in enumerate(padding_config):
    operand = _interior_pad(operand, padding_value, axis, interior)
  widths = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
  operand = np.pad(operand, widths, constant_values=padding_value)
  crop = tuple(builtins.slice(max(-lo, 0), n - max(-hi, 0))
               for (lo, hi, _), n in zip(padding_config, operand.shape))
  return operand[crop]


@reference("iota")
def iota(*, dtype, shape, dimension):
  along = [1] * len(shape)
  along[dimension] = shape[dimension]
  return np.broadcast_to(np.arange(shape[dimension], dtype=dtype).reshape(along), shape)


def _extremum_reduce(ufunc, operand, axes):
  """max/min over `axes`; an empty reduction gives the identity (-inf for max), as in XLA."""
  if operand.size:
    return ufunc.reduce(operand, axis=tuple(axes))
  is_max = ufunc is np.maximum
  if operand.dtype == np.bool_:
    initial = not is_max
  elif operand.dtype.kind in "fc":
    initial = -np.inf if is_max else np.inf
  else:
    initial = np.iinfo(operand.dtype).min if is_max else np.iinfo(operand.dtype).max
  return ufunc.reduce(operand, axis=tuple(axes), initial=initial)


@reference("reduce_sum")
def reduce_sum(operand, *, axes):
  return np.sum(operand, axis=tuple(axes), dtype=operand.dtype)


@reference("reduce_prod")
def reduce_prod(operand, *, axes):
  return np.prod(operand, axis=tuple(axes), dtype=operand.dtype)


@reference("reduce_max")
def reduce_max(operand, *, axes):
  return _extremum_reduce(np.maximum, operand, axes)


@reference("reduce_min")
def reduce_min(operand, *, axes):
  return _extremum_reduce(np.minimum, operand, axes)


@reference("argmax")
def argmax(operand, *, axes, index_dtype):
  return np.argmax(operand, axis=axes[0]).astype(index_dtype)


@reference("argmin")
def argmin(operand, *, axes, index_dtype):
  return np.argmin(operand, axis=axes[0]).astype(index_dtype)


@reference("cumsum")
def cumsum(operand, *, axis, reverse):
  if reverse:
    return np.flip(np.cumsum(np.flip(operand, axis), axis=axis, dtype=operand.dtype), axis)
  return np.cumsum(operand, axis=axis, dtype=operand.dtype)


@reference("dot_general")
def dot_general(lhs, rhs, *, dimension_numbers, preferred_element_type):
  """An einsum whose output lists batch axes, then lhs free axes, then rhs free axes."""
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  letters = iter(string.ascii_letters)
  lhs_names = [next(letters) for _ in range(lhs.ndim)]
  rhs_names = [next(letters) for _ in range(rhs.ndim)]
  for l, r in zip(lhs_contract + lhs_batch, rhs_contract + rhs_batch):
    rhs_names[r] = lhs_names[l]
  out = ([lhs_names[d] for d in lhs_batch] +
         [n for d, n in enumerate(lhs_names) if d not in lhs_contract + lhs_batch] +
         [n for d, n in enumerate(rhs_names) if d not in rhs_contract + rhs_batch])
  dtype = preferred_element_type or np.result_type(lhs, rhs)
  spec = f"{''.join(lhs_names)},{''.join(rhs_names)}->{''.join(out)}"
  return np.einsum(spec, lhs.astype(dtype), rhs.astype(dtype))
