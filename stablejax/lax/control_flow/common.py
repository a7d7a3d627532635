"""What the control-flow primitives share: tracing a user function into a jaxpr whose
closed-over values become explicit leading operands."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from stablejax import core
from stablejax.interpreters import partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr
from stablejax.tree_util import PyTreeDef, flatten_fun, tree_structure


def trace_to_jaxpr_with_consts(fun: Callable, in_tree: PyTreeDef,
                               in_avals: Sequence[core.ShapedArray]
                               ) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
  """Trace `fun` (taking the pytree `in_tree` of arguments) on `in_avals`. Returns a jaxpr
  whose first invars stand for the values it closed over, those values (to be passed as
  operands), and the output tree."""
  flat_fun, out_tree = flatten_fun(fun, in_tree)
  jaxpr, consts = pe.trace_to_jaxpr(flat_fun, in_avals)
  return ClosedJaxpr(pe.convert_constvars_jaxpr(jaxpr), []), consts, out_tree()


def tree_args(args: tuple) -> PyTreeDef:
  """The tree of `(args, {})` as `flatten_fun` expects it."""
  return tree_structure((args, {}))
