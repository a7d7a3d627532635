"""The accuracy requests of JAX's unary functions (`exp(x, accuracy=...)` in JAX): `AccuracyMode`
and `Tolerance`, with JAX's members and checks. stablejax's unary functions take no `accuracy`
yet; these are the values a caller builds."""
from __future__ import annotations

import enum

__all__ = ["AccuracyMode", "Tolerance"]


class AccuracyMode(enum.Enum):
  """The accuracy XLA should reach for a unary function."""
  HIGHEST = 1
  DEFAULT = 2


class Tolerance:
  """Tolerances for computing a unary function: at most two of atol, rtol and ulps are set,
  none negative, at least one nonzero."""

  def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
    if atol < 0.0 or rtol < 0.0 or ulps < 0:
      raise ValueError("Tolerances must be non-negative.")
    if atol == 0.0 and rtol == 0.0 and ulps == 0:
      raise ValueError("At least one of atol, rtol, or ulps must be set.")
    self.atol = atol
    self.rtol = rtol
    self.ulps = ulps
