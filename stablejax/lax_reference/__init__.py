"""numpy reference implementations of every built-in primitive, keyed by primitive name.

Each takes numpy arrays already in the primitive's input dtypes and the primitive's params, and
returns what the primitive computes (the caller casts to the output dtype). They evaluate
primitives eagerly until a device runtime exists and are the oracle that lowerings are tested
against.
"""
from __future__ import annotations

from typing import Callable

impls: dict[str, Callable] = {}


def reference(name: str) -> Callable[[Callable], Callable]:
  """Register the decorated function as the reference implementation of primitive `name`."""
  def register(fn: Callable) -> Callable:
    impls[name] = fn
    return fn
  return register


from stablejax.lax_reference import elementwise, structural  # noqa: E402,F401  (registration)
