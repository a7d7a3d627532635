"""What the control-flow primitives share: tracing a user function into a jaxpr whose
closed-over values become explicit leading operands."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from stablejax import core, dtypes, lax
from stablejax.config import config
from stablejax.interpreters import partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, Var
from stablejax.tree_util import PyTreeDef, flatten_fun, tree_structure
from stablejax.util import weak_cache


def trace_to_jaxpr_with_consts(fun: Callable, in_tree: PyTreeDef,
                               in_avals: Sequence[core.ShapedArray]
                               ) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
  """Trace `fun` (taking the pytree `in_tree` of arguments) on `in_avals`. Returns a jaxpr
  whose first invars stand for the values it closed over, those values (to be passed as
  operands), and the output tree. As in JAX, the trace is cached by the function object (and
  the argument types), so calling `cond` or `while_loop` eagerly again with the same functions
  reuses the jaxprs and thus their compiled executable; a trace that closed over values of an
  enclosing transformation is never reused."""
  key = (in_tree, tuple(in_avals), config.enable_x64)
  try:
    traced = _cached_trace(fun, *key)
  except TypeError:  # `fun` cannot be weakly referenced or hashed: trace it every time
    return _trace(fun, in_tree, in_avals)
  if any(isinstance(c, core.Tracer) for c in traced[1]):
    _cached_trace.forget(fun, *key)
    return _trace(fun, in_tree, in_avals)
  return traced


def _trace(fun: Callable, in_tree: PyTreeDef, in_avals: Sequence[core.ShapedArray]
           ) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
  flat_fun, out_tree = flatten_fun(fun, in_tree)
  jaxpr, consts = pe.trace_to_jaxpr(flat_fun, in_avals)
  return ClosedJaxpr(pe.convert_constvars_jaxpr(jaxpr), []), consts, out_tree()


@weak_cache(maxsize=8)
def _cached_trace(fun: Callable, in_tree: PyTreeDef, in_avals: tuple, x64: bool
                  ) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
  return _trace(fun, in_tree, in_avals)


def tree_args(args: tuple) -> PyTreeDef:
  """The tree of `(args, {})` as `flatten_fun` expects it."""
  return tree_structure((args, {}))


def with_binders(closed: ClosedJaxpr, invars: Sequence[Var] | None = None,
                 outvars: Sequence[Any] | None = None) -> ClosedJaxpr:
  """`closed` with new invars (its own reordered, plus new ones it ignores) and/or outvars."""
  jaxpr = closed.jaxpr
  return ClosedJaxpr(jaxpr.replace(invars=list(jaxpr.invars if invars is None else invars),
                                   outvars=list(jaxpr.outvars if outvars is None else outvars)),
                     closed.consts)


def promote_weak(x: Any, out_aval: core.ShapedArray) -> Any:
  """A weakly typed initial carry (a Python scalar) takes the promotion of its type and the
  type the body gives that carry, when their dtypes differ (as in JAX); else `x` as it is."""
  aval = core.get_aval(x)
  if not aval.weak_type or aval.dtype == out_aval.dtype:
    return x
  dtype, _ = dtypes.lattice_join((aval.dtype, True), (out_aval.dtype, out_aval.weak_type))
  return lax.convert_element_type(x, dtype)


def avals_str(avals: Sequence[core.ShapedArray]) -> str:
  """`[f32[3], i32[]]`, for error messages."""
  return f"[{', '.join(a.str_short() for a in avals)}]"


def broadcast_per_example(x: Any, like: Any) -> Any:
  """`x` of shape `(size,)` (one value per example) broadcast to the shape of batched `like`."""
  shape = core.get_aval(like).shape
  return x if len(shape) == 1 else lax.broadcast_in_dim(x, shape, (0,))


def check_types(what: str, avals: Sequence[core.ShapedArray], what_expected: str,
                expected: Sequence[core.ShapedArray]) -> None:
  """A TypeError `{what} [types] but {what_expected} [types]` unless shapes and dtypes agree."""
  if len(avals) != len(expected) or not all(map(core.typematch, avals, expected)):
    raise TypeError(f"{what} {avals_str(avals)} but {what_expected} {avals_str(expected)}")


def carry_fixpoint(flags: Sequence[bool], step: Callable[[list[bool]], Sequence[bool]]
                   ) -> list[bool]:
  """The least flags of a loop's carry (batched, nonzero tangent, unknown) that include `flags`
  and that the body preserves: `step(flags)` gives the flags of the body's carry outputs."""
  flags = list(flags)
  while True:
    new = [a or b for a, b in zip(flags, step(flags))]
    if new == flags:
      return flags
    flags = new
