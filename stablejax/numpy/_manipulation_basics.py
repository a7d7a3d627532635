"""numpy's array manipulation, basic operations: ndim, shape and size (of arrays, scalars and
nested lists alike, without computing anything), and `ndarray`, the array type for isinstance
checks (Arrays and traced values alike)."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import core
from stablejax.basearray import Array


ndarray = Array  # (as JAX's jnp.ndarray: the array type of Arrays and traced values alike)


def aval_of(a: Any) -> core.ShapedArray:
  if isinstance(a, (list, tuple)):
    a = np.asarray(a)
  return core.get_aval(a)


def ndim(a: Any) -> int:
  """The number of axes of `a`."""
  return aval_of(a).ndim


def shape(a: Any) -> tuple[int, ...]:
  """The shape of `a`."""
  return aval_of(a).shape


def size(a: Any, axis: int | None = None) -> int:
  """The number of elements of `a` (along `axis` if given)."""
  aval = aval_of(a)
  return aval.size if axis is None else aval.shape[axis]
