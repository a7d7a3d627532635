"""Symbolic dimensions as values: `dim_as_value_p` (JAX's `dim_as_value[dim=b]`), a scalar of the
default int dtype holding a dimension's size, and `dimension_as_value`, which binds it only for a
symbolic dimension (a known one is its int). Its lowering rule lives in
`stablejax.lowering.rules.dimensions`."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import dtypes
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters.batching import not_mapped
from stablejax.lax.elementwise import convert_element_type
from stablejax.lax.structural import broadcast_in_dim, concatenate
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax import shape_poly
from stablejax.shape_poly import DimSize, is_constant_shape, is_symbolic_dim

__all__ = ["dim_as_value_p", "dimension_as_scalar", "dimension_as_value", "dimensions_as_array"]


def dimension_as_value(d: DimSize) -> Any:
  """The size `d` as a value to compute with: a traced int scalar for a symbolic dimension, the
  int itself for a known one."""
  return dim_as_value_p.bind(dim=d) if is_symbolic_dim(d) else d


def dimension_as_scalar(d: DimSize, dtype: Any) -> Any:
  """The size `d` as a scalar of `dtype`: a numpy scalar for a known dimension (a literal when
  staged), a traced one for a symbolic dimension."""
  if is_symbolic_dim(d):
    return convert_element_type(dim_as_value_p.bind(dim=d), dtype)
  return np.asarray(d, dtype)[()]


def dimensions_as_array(dims: Sequence[DimSize], dtype: Any) -> Any:
  """The sizes `dims` as a 1-d array of `dtype`: a numpy array where every size is known, else
  a traced one."""
  if is_constant_shape(dims):
    return np.asarray(dims, dtype)
  return concatenate([broadcast_in_dim(dimension_as_scalar(d, dtype), (1,), ()) for d in dims],
                     0)


def _dim_as_value_abstract_eval(*, dim: DimSize) -> ShapedArray:
  return ShapedArray((), dtypes.default_int(), weak_type=True)


def _dim_as_value_batcher(args, dims, *, dim):
  return dim_as_value_p.bind(dim=dim), not_mapped  # (no operands: never mapped)


dim_as_value_p = standard_primitive("dim_as_value", _dim_as_value_abstract_eval)
def_reference(dim_as_value_p, lambda *, dim: np.asarray(dim, dtypes.default_int()))
batching.primitive_batchers[dim_as_value_p] = _dim_as_value_batcher
ad.defjvp_zero(dim_as_value_p)
flops.flops_rules[dim_as_value_p] = flops.free
shape_poly.as_value_rule.append(dimension_as_value)
