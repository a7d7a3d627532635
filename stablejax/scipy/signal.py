"""jax.scipy.signal's direct convolutions: `convolve`, `correlate` (N-d), `convolve2d` and
`correlate2d`, over `lax.conv_general_dilated`."""
from __future__ import annotations

from typing import Any

from stablejax import lax
from stablejax.numpy._manipulation_elements import flip
from stablejax.numpy._promotion import ensure_arraylike, promote_dtypes_inexact, shape
from stablejax.numpy._math_arithmetic import conjugate

_MODES = ("full", "same", "valid")


def _convolve_nd(in1: Any, in2: Any, mode: str, precision: Any) -> Any:
  """The smaller input, flipped, slides over the larger; "same" keeps `in1`'s shape."""
  if mode not in _MODES:
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  if len(shape(in1)) != len(shape(in2)):
    raise ValueError("in1 and in2 must have the same number of dimensions")
  if 0 in shape(in1) or 0 in shape(in2):
    raise ValueError(f"zero-size arrays not supported in convolutions, got shapes "
                     f"{shape(in1)} and {shape(in2)}.")
  in1, in2 = promote_dtypes_inexact(in1, in2)
  no_swap = all(a >= b for a, b in zip(shape(in1), shape(in2)))
  swap = all(a <= b for a, b in zip(shape(in1), shape(in2)))
  if not (no_swap or swap):
    raise ValueError("One input must be smaller than the other in every dimension.")
  out_shape = shape(in2)
  if swap:
    in1, in2 = in2, in1
  kernel = shape(in2)
  if mode == "valid":
    padding = [(0, 0)] * len(kernel)
  elif mode == "same":
    padding = [(k - 1 - (o - 1) // 2, k - o + (o - 1) // 2) for k, o in zip(kernel, out_shape)]
  else:
    padding = [(k - 1, k - 1) for k in kernel]
  out = lax.conv_general_dilated(
      lax.reshape(in1, (1, 1) + shape(in1)), lax.reshape(flip(in2), (1, 1) + kernel),
      (1,) * len(kernel), padding, precision=precision)
  return lax.reshape(out, shape(out)[2:])


def _check_method(method: str) -> None:
  if method not in ("auto", "direct"):
    raise ValueError(f"Got method={method!r}; expected 'auto' or 'direct' (stablejax has no "
                     "'fft' method yet).")


def _check_2d(name: str, in1: Any, in2: Any, boundary: str, fillvalue: Any) -> None:
  if boundary != "fill" or fillvalue != 0:
    raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
  if len(shape(in1)) != 2 or len(shape(in2)) != 2:
    raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto",
             precision: Any = None) -> Any:
  """The N-d convolution of two arrays (modes full, same, valid; direct method)."""
  in1, in2 = ensure_arraylike("convolve", in1, in2)
  _check_method(method)
  return _convolve_nd(in1, in2, mode, precision)


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto",
              precision: Any = None) -> Any:
  """The N-d cross-correlation of two arrays: the convolution with `in2` flipped, conjugated."""
  in1, in2 = ensure_arraylike("correlate", in1, in2)
  return convolve(in1, flip(conjugate(in2)), mode, method, precision)


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
               fillvalue: Any = 0, precision: Any = None) -> Any:
  """The 2-D convolution of two arrays (boundary='fill' with fillvalue 0 only)."""
  in1, in2 = ensure_arraylike("convolve2d", in1, in2)
  _check_2d("convolve2d", in1, in2, boundary, fillvalue)
  return _convolve_nd(in1, in2, mode, precision)


def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
                fillvalue: Any = 0, precision: Any = None) -> Any:
  """The 2-D cross-correlation of two arrays, oriented as scipy's when the second input is the
  larger one (boundary='fill' with fillvalue 0 only)."""
  in1, in2 = ensure_arraylike("correlate2d", in1, in2)
  _check_2d("correlate2d", in1, in2, boundary, fillvalue)
  swap = all(a <= b for a, b in zip(shape(in1), shape(in2)))
  same_shape = shape(in1) == shape(in2)
  if mode == "same" or not swap or (mode == "valid" and same_shape):
    return flip(_convolve_nd(flip(in1), conjugate(in2), mode, precision))
  out = _convolve_nd(flip(in2), conjugate(in1), mode, precision)
  return out if mode == "valid" else conjugate(out)
