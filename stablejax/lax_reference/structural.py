"""Reference implementations of the structural, reduction and contraction primitives."""
from __future__ import annotations

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
