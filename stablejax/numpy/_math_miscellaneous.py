"""numpy's mathematical functions, "miscellaneous" part: convolve (1-D, over
`lax.conv_general_dilated`, with `correlate` beside it: numpy lists that one under statistics)
and interp; and unwrap (a trigonometric function, here because it is built on differences and
sums). The elementwise miscellaneous functions (clip, sqrt, ...) are in `_math_arithmetic`."""
from __future__ import annotations

from typing import Any

import numpy as np

from stablejax import dtypes, lax
from stablejax.numpy._creation import asarray
from stablejax.numpy._elementwise import where
from stablejax.numpy._manipulation_elements import flip
from stablejax.numpy._manipulation_shape import concatenate
from stablejax.numpy._math_arithmetic import absolute, clip, conjugate, remainder
from stablejax.numpy._math_sums import cumsum, diff
from stablejax.numpy._promotion import (
    dtype as dtype_of, ensure_arraylike, promote_dtypes, promote_dtypes_inexact, scalar_like,
    shape)
from stablejax.numpy._sorting_searching import searchsorted
from stablejax.shape_poly import is_constant_shape

_PADDINGS = {"valid": lambda n: (0, 0), "same": lambda n: (n // 2, n - n // 2 - 1),
             "full": lambda n: (n - 1, n - 1)}


def _conv1d(name: str, a: Any, v: Any, mode: str, precision: Any,
            preferred_element_type: Any) -> Any:
  """The shorter signal slides over the longer one; correlation conjugates `v` and, when the
  two were swapped, reverses the result."""
  x, y = ensure_arraylike(name, a, v)
  if len(shape(x)) != 1 or len(shape(y)) != 1:
    raise ValueError(f"{name}() only support 1-dimensional inputs.")
  if not is_constant_shape((*shape(x), *shape(y))):  # (as JAX's, whose len() refuses them)
    raise TypeError(f"{name}: inputs of symbolic length are not supported, got shapes "
                    f"{shape(x)} and {shape(y)}")
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


def _extrapolates(name: str, value: Any) -> bool:
  if isinstance(value, str):
    if value != "extrapolate":
      raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but got: "
                       f"{value!r}")
    return True
  return False


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:
  """Piecewise-linear interpolation of the points (xp, fp) at x."""
  x, xp, fp = map(asarray, ensure_arraylike("interp", x, xp, fp))
  if shape(xp) != shape(fp) or len(shape(xp)) != 1:
    raise ValueError("xp and fp must be one-dimensional arrays of equal size")
  x, xp = promote_dtypes_inexact(x, xp)
  (fp,) = promote_dtypes_inexact(fp)
  extrapolate_left, extrapolate_right = _extrapolates("left", left), _extrapolates("right", right)
  if dtype_of(x).kind == "c":
    raise ValueError("jnp.interp: complex x values not supported.")
  if period is not None:
    if np.ndim(period) != 0:
      raise ValueError(f"period must be a scalar; got {period}")
    period = absolute(period)
    x, xp = remainder(x, period), remainder(xp, period)
    xp, fp = lax.sort_key_val(xp, fp)
    xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = concatenate([fp[-1:], fp, fp[:1]])
  i = clip(searchsorted(xp, x, side="right"), 1, shape(xp)[0] - 1)
  df = fp[i] - fp[i - 1]
  dx = xp[i] - xp[i - 1]
  delta = x - xp[i - 1]
  eps = np.spacing(dtypes.finfo(dtype_of(xp)).eps)
  dx0 = lax.le(absolute(dx), scalar_like(dx, eps))
  f = where(dx0, fp[i - 1], fp[i - 1] + delta / where(dx0, 1, dx) * df)
  if period is None and not extrapolate_left:
    f = where(x < xp[0], fp[0] if left is None else left, f)
  if period is None and not extrapolate_right:
    f = where(x > xp[-1], fp[-1] if right is None else right, f)
  return f


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
  """p with jumps larger than discont (default period/2) along axis replaced by their
  complement modulo period."""
  p = asarray(*ensure_arraylike("unwrap", p))
  p, period = promote_dtypes(p, period)
  if dtype_of(p).kind == "c":
    raise ValueError("jnp.unwrap does not support complex inputs.")
  if shape(p)[axis] == 0:
    return p
  if discont is None:
    discont = period / 2
  interval = period // 2 if dtypes.is_integer(dtype_of(p)) else period / 2
  dd = diff(p, axis=axis)
  ddmod = remainder(dd + interval, period) - interval
  ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
  correct = where(absolute(dd) < discont, 0, ddmod - dd)
  return concatenate((lax.slice_in_dim(p, 0, 1, axis=axis),
                      lax.slice_in_dim(p, 1, None, axis=axis) + cumsum(correct, axis=axis)),
                     axis=axis)
