"""`composite` (JAX's): a function staged as the `composite` primitive, which lowers to a
`stablehlo.composite` op named `name`, with the function as its decomposition and its keyword
arguments as the op's attributes (lowering: `stablejax.lowering.rules.composite`). As in JAX it
has no derivative rules (wrap it in `custom_jvp`/`custom_vjp` for them) and no batching rule."""
from __future__ import annotations

import functools
from typing import Any, Callable

from stablejax import core
from stablejax.interpreters import ad, flops, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, register_call_primitive
from stablejax.lax.call_rules import CallRules, check_call_types, register_call_rules
from stablejax.tree_util import tree_flatten, tree_unflatten

__all__ = ["composite"]

_ATTRIBUTE_TYPES = (bool, int, float, str)


def composite(decomposition: Callable, name: str, version: int = 0) -> Callable:
  """`decomposition` as one `stablehlo.composite` op named `name` (keyword arguments of a call
  become the op's attributes: Python bools, ints, floats and strings)."""
  @functools.wraps(decomposition)
  def call(*args: Any, **kwargs: Any) -> Any:
    for key, value in kwargs.items():
      if not isinstance(value, _ATTRIBUTE_TYPES):
        raise TypeError(f"composite '{name}': the attribute {key}={value!r} must be a Python "
                        f"bool, int, float or str")
    flat, in_tree = tree_flatten(args)
    out_tree = []

    def flat_fn(*xs):
      out_flat, tree = tree_flatten(decomposition(*tree_unflatten(in_tree, xs), **kwargs))
      out_tree.append(tree)
      return out_flat
    jaxpr = pe.trace_to_closed_jaxpr(flat_fn, [core.get_aval(x) for x in flat])
    outs = composite_p.bind(*flat, name=name, attributes=tuple(sorted(kwargs.items())),
                            version=int(version), jaxpr=jaxpr)
    return tree_unflatten(out_tree[0], outs)
  return call


def _composite_abstract_eval(*avals: core.ShapedArray, jaxpr: ClosedJaxpr, name: str, **_):
  return check_call_types(f"composite {name}", avals, jaxpr)


def _composite_jvp(*_, **__):
  raise ValueError("JVP rule for composite not implemented. You can use `jax.custom_jvp` to add "
                   "support.")


def _composite_transpose(*_, **__):
  raise ValueError("Transpose rule for composite not implemented. You can use `jax.custom_jvp` "
                   "or `jax.custom_vjp` to add support.")


composite_p = core.Primitive("composite")
composite_p.multiple_results = True
composite_p.def_abstract_eval(_composite_abstract_eval)
ad.primitive_jvps[composite_p] = _composite_jvp
ad.primitive_transposes[composite_p] = _composite_transpose
register_call_rules(CallRules(composite_p), "stage_whole")
register_call_primitive(composite_p)
flops.flops_rules[composite_p] = flops.call_rule("jaxpr")
