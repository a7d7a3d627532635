"""1-D convolution and cross-correlation (`convolve`, `correlate`) over
`lax.conv_general_dilated`, as jax.numpy computes them."""
from __future__ import annotations

from typing import Any

from stablejax import lax
from stablejax.numpy._manipulation_elements import flip
from stablejax.numpy._promotion import (
    ensure_arraylike, promote_dtypes, promote_dtypes_inexact, shape)
from stablejax.numpy._ufuncs import conjugate

_PADDINGS = {"valid": lambda n: (0, 0), "same": lambda n: (n // 2, n - n // 2 - 1),
             "full": lambda n: (n - 1, n - 1)}


def _conv1d(name: str, a: Any, v: Any, mode: str, precision: Any,
            preferred_element_type: Any) -> Any:
  """The shorter signal slides over the longer one; correlation conjugates `v` and, when the
  two were swapped, reverses the result."""
  x, y = ensure_arraylike(name, a, v)
  if len(shape(x)) != 1 or len(shape(y)) != 1:
    raise ValueError(f"{name}() only support 1-dimensional inputs.")
  promote = promote_dtypes_inexact if preferred_element_type is None else promote_dtypes
  x, y = promote(x, y)
  if not shape(x)[0] or not shape(y)[0]:
    raise ValueError(f"{name}: inputs cannot be empty, got shapes {shape(x)} and {shape(y)}.")
  if mode not in _PADDINGS:
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  correlating = name == "correlate"
  if correlating:
    y = conjugate(y)
  swapped = shape(x)[0] < shape(y)[0]
  if swapped:
    x, y = y, x
  if not correlating:
    y = flip(y)
  n = shape(y)[0]
  out = lax.conv_general_dilated(
      lax.reshape(x, (1, 1, shape(x)[0])), lax.reshape(y, (1, 1, n)), (1,),
      [_PADDINGS[mode](n)], precision=precision,
      preferred_element_type=preferred_element_type)
  out = lax.reshape(out, shape(out)[2:])
  return lax.rev(out, (0,)) if swapped and correlating else out


def convolve(a: Any, v: Any, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> Any:
  """The discrete linear convolution of two 1-D arrays (numpy's modes full, same, valid)."""
  return _conv1d("convolve", a, v, mode, precision, preferred_element_type)


def correlate(a: Any, v: Any, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
  """The cross-correlation of two 1-D arrays, conjugating `v` (numpy's modes)."""
  return _conv1d("correlate", a, v, mode, precision, preferred_element_type)
