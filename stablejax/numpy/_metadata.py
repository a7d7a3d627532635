"""Questions about arrays and dtypes that need no computation: `ndim`, `shape`, `size`,
`result_type`, `promote_types`, `issubdtype`, `iinfo`, `finfo`, and `ndarray` for isinstance
checks (Arrays and traced values alike)."""
from __future__ import annotations

import abc
from typing import Any

import numpy as np

from stablejax import core, dtypes
from stablejax.runtime import Array


class ndarray(metaclass=abc.ABCMeta):  # noqa: N801  (numpy's name)
  """The array type: `isinstance(x, jnp.ndarray)` holds for Arrays and for traced values."""


ndarray.register(Array)
ndarray.register(core.Tracer)


def _aval(a: Any) -> core.ShapedArray:
  if isinstance(a, (list, tuple)):
    a = np.asarray(a)
  return core.get_aval(a)


def ndim(a: Any) -> int:
  """The number of axes of `a`."""
  return _aval(a).ndim


def shape(a: Any) -> tuple[int, ...]:
  """The shape of `a`."""
  return _aval(a).shape


def size(a: Any, axis: int | None = None) -> int:
  """The number of elements of `a` (along `axis` if given)."""
  aval = _aval(a)
  return aval.size if axis is None else aval.shape[axis]


def _dtype_and_weak(x: Any) -> tuple[np.dtype, bool]:
  if isinstance(x, type) and x in (bool, int, float, complex):
    return dtypes.python_scalar_dtype(x()), x is not bool
  if isinstance(x, (str, np.dtype)) or dtypes.is_scalar_type(x):
    return dtypes.canonicalize(np.dtype(x)), False
  aval = _aval(x)
  return aval.dtype, aval.weak_type


def result_type(*args: Any) -> np.dtype:
  """The dtype JAX's type promotion gives operands (arrays, scalars or dtypes) `args`."""
  if not args:
    raise ValueError("at least one array or dtype is required")
  return dtypes.result_type(*map(_dtype_and_weak, args))[0]


def promote_types(a: Any, b: Any) -> np.dtype:
  """The dtype JAX promotes dtypes `a` and `b` to."""
  return dtypes.result_type((np.dtype(a), False), (np.dtype(b), False))[0]


issubdtype = dtypes.issubdtype
iinfo = dtypes.iinfo
finfo = dtypes.finfo
