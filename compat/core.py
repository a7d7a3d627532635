"""`jax._src.core`: stablejax's core objects under JAX's private names."""
from __future__ import annotations

from stablejax.core import ShapedArray, is_evaluating, physical_aval

__all__ = ["ShapedArray", "physical_aval", "trace_state_clean"]


def trace_state_clean() -> bool:
  """Whether no transformation is tracing on this thread (JAX: the trace state is at top level)."""
  return is_evaluating()
