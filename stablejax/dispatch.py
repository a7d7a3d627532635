"""`stablejax.dispatch`, as JAX's `dispatch`: `apply_primitive`, the eager evaluation that
compiles a primitive for its argument types and runs it. A user's primitive without an impl
cannot be evaluated eagerly; `p.def_impl(functools.partial(dispatch.apply_primitive, p))` makes
it compile through its lowering rule, as stablejax's own primitives do."""
from __future__ import annotations

from typing import Any

from stablejax import core, pipeline

__all__ = ["apply_primitive"]


def apply_primitive(prim: core.Primitive, *args: Any, **params: Any) -> Any:
  """Evaluate `prim` on concrete `args`: compiled once for their types, run on a device."""
  return pipeline.apply_primitive(prim, args, params, any_primitive=True)
