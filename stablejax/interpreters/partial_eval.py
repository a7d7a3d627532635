"""Building jaxprs by tracing (the jaxpr trace; omnistaging: every bind is staged)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core
from stablejax.core import ShapedArray, Trace, Tracer
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var


class DynamicJaxprTracer(Tracer):
  __slots__ = ("aval", "var")

  def __init__(self, trace: DynamicJaxprTrace, aval: ShapedArray, var: Var):
    self._trace = trace
    self.aval = aval
    self.var = var


def _is_literalable(x: Any) -> bool:
  t = type(x)
  if t in (bool, int, float, complex):
    return True
  return (t is np.ndarray or isinstance(x, np.generic)) and x.ndim == 0


class DynamicJaxprTrace(Trace):
  """Stages every primitive applied under it as an equation of a new jaxpr."""

  def __init__(self, parent: Trace):
    super().__init__(parent)
    self.invars: list[Var] = []
    self.eqns: list[JaxprEqn] = []
    self.constvars: dict[int, Var] = {}  # id(const) -> its constvar
    self.consts: list[Any] = []

  def new_arg(self, aval: ShapedArray) -> DynamicJaxprTracer:
    var = Var(aval)
    self.invars.append(var)
    return DynamicJaxprTracer(self, aval, var)

  def to_atom(self, x: Any) -> Var | Literal:
    if type(x) is DynamicJaxprTracer and x._trace is self:
      return x.var
    if isinstance(x, Tracer):
      core.check_valid(x)  # a live outer tracer: closed over, becomes a constvar
    elif _is_literalable(x):
      return Literal(x, core.get_aval(x))
    var = self.constvars.get(id(x))
    if var is None:
      var = self.constvars[id(x)] = Var(core.get_aval(x))
      self.consts.append(x)
    return var

  def process_primitive(self, primitive, args, params):
    invars = [self.to_atom(x) for x in args]
    out_avals = primitive.out_avals([v.aval for v in invars], params)
    outvars = [Var(a) for a in out_avals]
    self.eqns.append(JaxprEqn(invars, outvars, primitive, params, core.user_frame()))
    outs = [DynamicJaxprTracer(self, a, v) for a, v in zip(out_avals, outvars)]
    return outs if primitive.multiple_results else outs[0]

  def to_jaxpr(self, outs: Sequence[Any]) -> tuple[Jaxpr, list[Any]]:
    """The jaxpr staged so far, returning `outs`, and the values of its constvars (which may
    be tracers of an enclosing trace when the traced function closed over them)."""
    outvars = [self.to_atom(x) for x in outs]
    constvars = list(self.constvars.values())
    return Jaxpr(constvars, self.invars, outvars, self.eqns), list(self.consts)


def trace_to_jaxpr(fun: Callable[..., Sequence], in_avals: Sequence[ShapedArray]
                   ) -> tuple[Jaxpr, list[Any]]:
  """Trace flat-in, flat-out `fun` on arguments of types `in_avals` into a jaxpr and consts."""
  trace = DynamicJaxprTrace(core.current_trace())
  args = [trace.new_arg(a) for a in in_avals]
  try:
    with core.set_current_trace(trace):
      outs = fun(*args)
    return trace.to_jaxpr(outs)
  finally:
    trace.invalidate()


def trace_to_closed_jaxpr(fun: Callable[..., Sequence], in_avals: Sequence[ShapedArray]
                          ) -> ClosedJaxpr:
  jaxpr, consts = trace_to_jaxpr(fun, in_avals)
  return ClosedJaxpr(jaxpr, consts)


def convert_constvars_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
  """Turn the constvars of `jaxpr` into leading invars."""
  return jaxpr.replace(constvars=[], invars=jaxpr.constvars + jaxpr.invars)
