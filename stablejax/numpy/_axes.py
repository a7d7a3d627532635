"""Axis helpers shared by the jax.numpy sections (infrastructure, no numpy function): axes
checked and made non-negative, and the transposes, squeezes and size-1 axes that skip
themselves when they would change nothing (as JAX stages them)."""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from stablejax import lax
from stablejax.numpy._promotion import shape, unchanged
from stablejax.util import canonicalize_axis


def canonicalize_axes(name: str, axis: int | Sequence[int], ndim: int) -> tuple[int, ...]:
  """`axis` (an int or a sequence) as non-negative ints, checked against `ndim`."""
  axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
  out = tuple(canonicalize_axis(operator.index(a), ndim) for a in axes)
  if len(set(out)) != len(out):
    raise ValueError(f"{name}: repeated axis in {axis}")
  return out


def transpose_if_needed(x: Any, perm: Sequence[int]) -> Any:
  """lax.transpose, skipped for the identity permutation (as JAX does)."""
  perm = tuple(int(p) for p in perm)
  return unchanged(x) if perm == tuple(range(len(perm))) else lax.transpose(x, perm)


def squeeze_if_needed(x: Any, dims: Sequence[int]) -> Any:
  return lax.squeeze(x, tuple(dims)) if len(dims) else unchanged(x)


def expand_axes(x: Any, dims: Sequence[int]) -> Any:
  """`x` with size-1 axes at result positions `dims` (a broadcast_in_dim, as JAX stages it)."""
  x_shape = shape(x)
  out_ndim = len(x_shape) + len(dims)
  kept = [i for i in range(out_ndim) if i not in dims]
  out_shape = [1] * out_ndim
  for i, d in zip(kept, x_shape):
    out_shape[i] = d
  return lax.broadcast_in_dim(x, out_shape, kept)
