"""numpy's data type routines: result_type, promote_types, can_cast, isdtype, issubdtype, iinfo
and finfo (questions about dtypes that need no computation)."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import core, dtypes
from stablejax.runtime import Array
from stablejax.numpy._manipulation_basics import aval_of
from stablejax.numpy._promotion import dtype as dtype_of


def _dtype_and_weak(x: Any) -> tuple[np.dtype, bool]:
  if isinstance(x, type) and x in (bool, int, float, complex):
    return dtypes.python_scalar_dtype(x()), x is not bool
  if isinstance(x, (str, np.dtype)) or dtypes.is_scalar_type(x):
    return dtypes.canonicalize(np.dtype(x)), False
  aval = aval_of(x)
  return aval.dtype, aval.weak_type


def result_type(*args: Any) -> np.dtype:
  """The dtype JAX's type promotion gives operands (arrays, scalars or dtypes) `args`."""
  if not args:
    raise ValueError("at least one array or dtype is required")
  return dtypes.lattice_join(*map(_dtype_and_weak, args))[0]


def promote_types(a: Any, b: Any) -> np.dtype:
  """The dtype JAX promotes dtypes `a` and `b` to."""
  return dtypes.lattice_join((np.dtype(a), False), (np.dtype(b), False))[0]


issubdtype = dtypes.issubdtype
iinfo = dtypes.iinfo
finfo = dtypes.finfo


_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: Any, kind: Any) -> bool:
  """Whether `dtype` is of `kind`: a dtype, one of the array API's kind names, or a tuple."""
  dt = np.dtype(dtype)
  for k in kind if isinstance(kind, tuple) else (kind,):
    if isinstance(k, str) and k in _KINDS:
      if dtypes.kind(dt) in _KINDS[k]:
        return True
      continue
    try:
      if np.dtype(k) == dt:
        return True
    except TypeError as e:
      if isinstance(k, str):
        raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_KINDS)}, or a "
                         "compatible input for jnp.dtype()") from e
      raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from e
  return False


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
  """Whether `from_` (a dtype or an array) can be cast to `to` under numpy's `casting` rule."""
  if isinstance(from_, (Array, core.Tracer)):
    from_ = dtype_of(from_)
  return np.can_cast(from_, to, casting=casting)
