"""`jax.extend.core`: primitives, the jaxpr IR and the trace state, with JAX's names and
signatures, over `stablejax.core`, `stablejax.jaxpr` and the interpreters. `primitives` maps
JAX's primitive names to stablejax's primitives where they are the same primitive."""
from __future__ import annotations

import contextlib
import weakref
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from stablejax import core, dtypes
from stablejax.api_util import DebugInfo
from stablejax.core import Effect, Primitive, ShapedArray
from stablejax.errors import JaxprTypeError
from stablejax.interpreters import ad, batching, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, check_jaxpr, jaxpr_as_fun
from stablejax.extend.core import primitives

__all__ = [
    "ClosedJaxpr", "DebugInfo", "DropVar", "Effect", "Effects", "Jaxpr", "JaxprEqn",
    "JaxprTypeError", "Literal", "Primitive", "Var", "array_types", "check_jaxpr",
    "concrete_or_error", "find_top_trace", "gensym", "get_opaque_trace_state", "jaxpr_as_fun",
    "jaxprs_in_params", "mapped_aval", "new_jaxpr_eqn", "no_effects",
    "nonempty_axis_env_DO_NOT_USE", "primal_dtype_to_tangent_dtype", "primitives",
    "set_current_trace", "subjaxprs", "take_current_trace", "unmapped_aval",
    "unsafe_am_i_under_a_jit_DO_NOT_USE", "unsafe_am_i_under_a_vmap_DO_NOT_USE",
    "unsafe_get_axis_names_DO_NOT_USE", "valid_jaxtype",
]

Effects = frozenset  # a jaxpr's or equation's effects: a set of `Effect`s
no_effects: frozenset[Effect] = core.NO_EFFECTS
array_types: frozenset[type] = frozenset(core.aval_handlers) | {np.generic}


class DropVar(Var):
  """An equation output that nothing reads (JAX prints it `_`); a Var like any other here."""
  __slots__ = ()


def new_jaxpr_eqn(invars: Sequence[Any], outvars: Sequence[Var], primitive: Primitive,
                  params: dict, effects: Any = None, source_info: Any = None,
                  ctx: Any = None) -> JaxprEqn:
  """An equation `outvars = primitive[params] invars` (its effects come from the primitive)."""
  del effects, ctx  # derived from the primitive and its params (`jaxpr.eqn_effects`)
  return JaxprEqn(list(invars), list(outvars), primitive, dict(params),
                  source_info or core.current_source_info())


def gensym(suffix: str = "") -> Callable[[ShapedArray], Var]:
  """A maker of fresh variables: `gensym()(aval)` (names are given when printing)."""
  del suffix
  return Var


def jaxprs_in_params(params: dict) -> Iterator[Jaxpr]:
  """The jaxprs in an equation's params (a ClosedJaxpr's open jaxpr), not recursively."""
  for value in params.values():
    for v in value if isinstance(value, tuple) else (value,):
      if isinstance(v, Jaxpr):
        yield v
      elif isinstance(v, ClosedJaxpr):
        yield v.jaxpr


def subjaxprs(jaxpr: Jaxpr) -> Iterator[Jaxpr]:
  """The jaxprs in the params of `jaxpr`'s equations, not recursively."""
  for eqn in jaxpr.eqns:
    yield from jaxprs_in_params(eqn.params)


def mapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
  """The type of one element of `aval` along `axis` (None: `aval` itself)."""
  if axis is None:
    return aval
  if not 0 <= axis < len(aval.shape) or aval.shape[axis] != size:
    raise ValueError(f"mapped_aval: axis {axis} of {aval.str_short()} is not of size {size}")
  return batching.mapped_aval(aval, axis)


def unmapped_aval(size: int, axis: int | None, aval: ShapedArray,
                  explicit_mesh_axis: Any = None) -> ShapedArray:
  """The type of `size` values of type `aval` stacked along `axis` (None: `aval` itself)."""
  if explicit_mesh_axis is not None:
    raise NotImplementedError("unmapped_aval: explicit_mesh_axis is not supported")
  return aval if axis is None else batching.unmapped_aval(aval, size, axis)


def primal_dtype_to_tangent_dtype(primal_dtype: Any) -> np.dtype:
  """The dtype of tangents of values of `primal_dtype`: itself if inexact, else float0."""
  return ad.tangent_aval(ShapedArray((), primal_dtype)).dtype


def valid_jaxtype(x: Any) -> bool:
  """Whether `x` is a value stablejax can trace (an array, a scalar, a tracer)."""
  try:
    aval = core.get_aval(x)
  except TypeError:
    return False
  return aval.dtype.kind not in "OSUV" or aval.dtype == dtypes.float0


def concrete_or_error(force: Callable | None, val: Any, context: str = "") -> Any:
  """`force(val)` (or `val`) for a concrete value; a ConcretizationTypeError naming `context`
  for an abstract tracer."""
  value = core.concrete_or_error(val, context or "a concrete value")
  return value if force is None else force(value)


# ----------------------------------------------------------------------------------------------
# The trace state

def find_top_trace(_: Any = None) -> core.Trace:
  """The current trace (JAX's traces are no longer ordered by their tracers)."""
  return core.current_trace()


class OpaqueTraceState:
  """An identity of the current trace, comparable but keeping nothing alive."""
  __slots__ = ("_trace_ref",)

  def __init__(self, trace: core.Trace):
    self._trace_ref = weakref.ref(trace)

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, OpaqueTraceState) and self._trace_ref == other._trace_ref

  def __hash__(self) -> int:
    return hash(self._trace_ref)


def get_opaque_trace_state(convention: Any = None) -> OpaqueTraceState:
  """A token equal to another taken under the same current trace."""
  del convention
  return OpaqueTraceState(core.current_trace())


def set_current_trace(trace: core.Trace, check_leaks: bool = False) -> core.set_current_trace:
  """Context manager making `trace` current (JAX's signature; leaks are checked by
  `config.check_tracer_leaks`)."""
  del check_leaks
  return core.set_current_trace(trace)


@contextlib.contextmanager
def take_current_trace() -> Iterator[core.Trace]:
  """Context manager yielding the current trace, for a rule to hand work to it explicitly
  (`with set_current_trace(trace): ...`)."""
  yield core.current_trace()


def _trace_stack() -> Iterator[core.Trace]:
  trace = core.current_trace()
  while trace is not None:
    yield trace
    trace = trace.parent


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:  # noqa: N802  (JAX's name)
  """Whether a jaxpr is being traced on this thread (under jit, make_jaxpr, ...)."""
  return any(isinstance(t, pe.DynamicJaxprTrace) for t in _trace_stack())


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:  # noqa: N802  (JAX's name)
  """Whether a vmap is being traced on this thread."""
  return any(isinstance(t, batching.BatchTrace) for t in _trace_stack())


def unsafe_get_axis_names_DO_NOT_USE() -> list:  # noqa: N802  (JAX's name)
  """The names of the named axes bound now (vmap's axis_name, shard_map's mesh axes)."""
  return [name for name, _ in batching.bound_axes()]


def nonempty_axis_env_DO_NOT_USE() -> bool:  # noqa: N802  (JAX's name)
  """Whether any named axis is bound now."""
  return bool(batching.bound_axes())
