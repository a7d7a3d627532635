"""`jax.extend.backend`: the PJRT clients stablejax runs on (jaxlib's, as JAX's)."""
from __future__ import annotations

from typing import Any

from stablejax.runtime import pjrt
from stablejax.runtime.pjrt import default_device as get_default_device

__all__ = ["backends", "get_backend", "get_default_device"]


def get_backend(platform: str | None = None) -> Any:
  """The PJRT client of `platform` (default: the default platform)."""
  return pjrt.client(platform or pjrt.default_platform())


def backends() -> dict[str, Any]:
  """The PJRT client of each available platform."""
  return {p: pjrt.client(p) for p in pjrt.available_platforms()}
