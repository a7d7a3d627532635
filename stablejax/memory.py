"""JAX's memory spaces (`jax.memory.Space`): where an array's buffer lives."""
from __future__ import annotations

import enum


class MemorySpace(enum.Enum):
  """The memory an array lives in: the device's, the host's, or any."""
  Device = enum.auto()
  Host = enum.auto()
  Any = enum.auto()

  def __repr__(self) -> str:
    return f"MemorySpace.{self.name}"

  # Enum.__hash__ hashes the name; members are singletons, so identity is enough (as JAX).
  __hash__ = object.__hash__


Space = MemorySpace
