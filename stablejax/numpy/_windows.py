"""numpy's window functions: bartlett, blackman, hamming, hanning and kaiser, in the default
float."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._math_arithmetic import absolute, sqrt
from stablejax.numpy._math_transcendental import cos, i0
from stablejax.numpy._promotion import ensure_arraylike


def _length(name: str, M: Any) -> int:  # noqa: N803  (numpy's name)
  if isinstance(M, core.Tracer):
    raise core.ConcretizationTypeError(f"M argument of jnp.{name} must be concrete")
  return int(M)


def _window(name: str, formula: Callable[[Any, int], Any]) -> Callable[[int], Any]:
  def window(M: int) -> Any:  # noqa: N803
    m = _length(name, M)
    dt = dtypes.default_float()
    if m <= 1:
      return lax.full((max(m, 0),), 1, dt)
    return formula(lax.iota(dt, m), m)
  window.__name__ = window.__qualname__ = name
  window.__doc__ = f"The {name} window of M points, as numpy.{name}."
  return window


_cos = cos
bartlett = _window("bartlett", lambda n, m: 1 - absolute(2 * n + 1 - m) / (m - 1))
blackman = _window("blackman", lambda n, m: 0.42 - 0.5 * _cos(2 * np.pi * n / (m - 1))
                   + 0.08 * _cos(4 * np.pi * n / (m - 1)))
hamming = _window("hamming", lambda n, m: 0.54 - 0.46 * _cos(2 * np.pi * n / (m - 1)))
hanning = _window("hanning", lambda n, m: 0.5 * (1 - _cos(2 * np.pi * n / (m - 1))))


def kaiser(M: int, beta: Any) -> Any:  # noqa: N803
  """The Kaiser window of M points with shape parameter `beta`."""
  (beta,) = ensure_arraylike("kaiser", beta)
  alpha = 0.5 * (_length("kaiser", M) - 1)
  return _window("kaiser", lambda n, m: i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2))
                 / i0(beta))(M)
