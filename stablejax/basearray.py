"""`Array`: the public array type (JAX's `jax.Array`), for isinstance checks and annotations.

Both the concrete array on a device (`stablejax.runtime.Array`) and every traced value
(`core.Tracer`) subclass it, so `isinstance(x, sj.Array)` holds inside and outside
transformations. Library code that needs the concrete class checks `stablejax.runtime.Array`.
(A plain base class, not an ABC: `isinstance(x, core.Tracer)` stays a fast type check.)
"""
from __future__ import annotations


class Array:
  """The array type of stablejax: concrete Arrays and traced values alike. Create arrays with
  `stablejax.numpy` (`jnp.array`, `jnp.zeros`, ...), not with this class."""
  __slots__ = ()
  __hash__ = None  # arrays are not hashable


Array.__module__ = "stablejax"

__all__ = ["Array"]
