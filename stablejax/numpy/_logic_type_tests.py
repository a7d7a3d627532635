"""numpy's logic functions, array type testing part: iscomplex, isreal, iscomplexobj,
isrealobj, isscalar and iterable (the rest of the logic functions are in `_logic`)."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import core, lax
from stablejax.runtime import Array
from stablejax.numpy._elementwise import constant_like
from stablejax.numpy._math_arithmetic import imag


def iscomplexobj(x: Any) -> bool:
  """Whether `x` has a complex dtype."""
  if isinstance(x, (complex, np.complexfloating)):
    return True
  if x is None or isinstance(x, (bool, int, float, str, np.generic)):
    return False
  dt = getattr(x, "dtype", None)
  return np.dtype(dt if dt is not None else np.asarray(x).dtype).kind == "c"


def isrealobj(x: Any) -> bool:
  """Whether `x` does not have a complex dtype."""
  return not iscomplexobj(x)


def isscalar(element: Any) -> bool:
  """Whether `element` is a scalar: a Python or numpy scalar, or a 0-d array."""
  if np.isscalar(element):
    return True
  if isinstance(element, (np.ndarray, Array, core.Tracer)):
    return element.ndim == 0
  return False


def iscomplex(x: Any) -> Any:
  """Elementwise: whether the imaginary part is nonzero."""
  i = imag(x)
  return lax.ne(i, constant_like(i, 0))


def isreal(x: Any) -> Any:
  """Elementwise: whether the imaginary part is zero."""
  i = imag(x)
  return lax.eq(i, constant_like(i, 0))


iterable = np.iterable
