"""Building jaxprs by tracing (the jaxpr trace; omnistaging: every bind is staged)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core
from stablejax.core import ShapedArray, Trace, Tracer, current_source_info
from stablejax.interpreters import dce
from stablejax.interpreters.dce import dce_rules
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eqn_effects, eval_jaxpr
from stablejax.util import gc_paused, weak_cache


class DynamicJaxprTracer(Tracer):
  __slots__ = ("aval", "_var")

  def __init__(self, trace: DynamicJaxprTrace, aval: ShapedArray, var: Var):
    self._trace = trace
    self.aval = aval
    self._var = var


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
      return x._var
    if isinstance(x, Tracer):
      core.check_valid(x)  # a live outer tracer: closed over, becomes a constvar
    elif _is_literalable(x):
      return Literal(x, core.get_aval(x))
    var = self.constvars.get(id(x))
    if var is None:
      var = self.constvars[id(x)] = Var(core.get_aval(x))
      self.consts.append(x)
    return var

  def stage_value(self, x: Any) -> DynamicJaxprTracer:
    """`x` as a tracer of this trace, with no equation (a literal or a constvar; JAX's stage)."""
    if type(x) is DynamicJaxprTracer and x._trace is self:
      return x
    atom = self.to_atom(x)
    return DynamicJaxprTracer(self, atom.aval, atom)

  def process_primitive(self, primitive, args, params):
    invars, avals = [], []  # (one loop: faster than two comprehensions for a few operands)
    for x in args:
      v = x._var if type(x) is DynamicJaxprTracer and x._trace is self else self.to_atom(x)
      invars.append(v)
      avals.append(v.aval)
    if primitive.multiple_results:
      out_avals = primitive.out_avals(avals, params)
      outvars = [Var(a) for a in out_avals]
      self.eqns.append(JaxprEqn(invars, outvars, primitive, params, current_source_info()))
      return [DynamicJaxprTracer(self, a, v) for a, v in zip(out_avals, outvars)]
    (aval,) = primitive.out_avals(avals, params)
    var = Var(aval)
    self.eqns.append(JaxprEqn(invars, [var], primitive, params, current_source_info()))
    return DynamicJaxprTracer(self, aval, var)

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
    with core.set_current_trace(trace), core.new_name_stack(), gc_paused():
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


# ----------------------------------------------------------------------------------------------
# Partial evaluation: evaluate what is known now, stage what depends on unknowns

# primitive -> rule(trace, args, params) -> outputs, for primitives whose known part should be
# split off rather than staged whole (higher-order primitives such as jit and control flow).
partial_eval_rules: dict[core.Primitive, Callable] = {}


class PartialEvalTrace(DynamicJaxprTrace):
  """Known values are plain values (or tracers of an enclosing trace) and are computed at
  once by the parent trace; unknown values are tracers of this trace, and every primitive
  applied to one is staged into this trace's jaxpr, its known inputs becoming constvars (the
  residuals)."""

  def is_unknown(self, x: Any) -> bool:
    return type(x) is DynamicJaxprTracer and x._trace is self

  def process_primitive(self, primitive, args, params):
    for x in args:
      if type(x) is DynamicJaxprTracer and x._trace is self:
        break
    else:  # all known
      with core.set_current_trace(self.parent):
        return primitive.bind(*args, **params)
    rule = partial_eval_rules.get(primitive)
    if rule is not None:
      return rule(self, args, params)
    return self.stage(primitive, args, params)

  def stage(self, primitive: core.Primitive, args: Sequence, params: dict) -> Any:
    """Stage `primitive` as an equation of the unknown jaxpr."""
    return DynamicJaxprTrace.process_primitive(self, primitive, args, params)


def partial_eval_jaxpr(closed: ClosedJaxpr, unknowns: Sequence[bool],
                       instantiate: bool | Sequence[bool]
                       ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
  """Split `closed` into a known jaxpr (known inputs -> known outputs + residuals) and an
  unknown jaxpr (residuals + unknown inputs -> unknown outputs). Returns both, which outputs
  are unknown, and the number of residuals. Outputs with `instantiate` set are unknown."""
  if isinstance(instantiate, bool):
    instantiate = (instantiate,) * len(closed.out_avals)
  return _partial_eval_jaxpr_cached(closed, tuple(unknowns), tuple(instantiate))


@weak_cache(maxsize=64)
def _partial_eval_jaxpr_cached(closed, unknowns, instantiate):
  out_unknowns: list[bool] = []
  staged: list = []

  def known_fun(*known_args):
    trace = PartialEvalTrace(core.current_trace())
    known_it = iter(known_args)
    args = [trace.new_arg(a) if u else next(known_it)
            for a, u in zip(closed.in_avals, unknowns)]
    try:
      with core.set_current_trace(trace):
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
      out_unknowns[:] = [trace.is_unknown(o) or inst for o, inst in zip(outs, instantiate)]
      jaxpr, residuals = trace.to_jaxpr([o for o, u in zip(outs, out_unknowns) if u])
    finally:
      trace.invalidate()
    staged[:] = [jaxpr]
    return [o for o, u in zip(outs, out_unknowns) if not u] + residuals

  known_avals = [a for a, u in zip(closed.in_avals, unknowns) if not u]
  known = trace_to_closed_jaxpr(known_fun, known_avals)
  (unknown_jaxpr,) = staged
  num_res = len(unknown_jaxpr.constvars)
  unknown = ClosedJaxpr(convert_constvars_jaxpr(unknown_jaxpr), [])
  return known, unknown, list(out_unknowns), num_res


def partial_eval_jaxpr_saving(closed: ClosedJaxpr, unknowns: Sequence[bool],
                              saveable: Callable[..., Any]
                              ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
  """`partial_eval_jaxpr` (no output instantiated) whose residuals are only the known inputs
  and the known values that `saveable(primitive, *in_avals, **params)` allows to save (a
  checkpoint policy); the unknown jaxpr recomputes the other known values it needs."""
  return _partial_eval_saving_cached(closed, tuple(unknowns), saveable)


@weak_cache(maxsize=64)
def _partial_eval_saving_cached(closed, unknowns, saveable):
  known, unknown, out_unknowns, num_res = partial_eval_jaxpr(closed, unknowns, False)
  k = known.jaxpr
  n_known_outs = len(k.outvars) - num_res
  residuals = k.outvars[n_known_outs:]
  saved = set(k.invars)
  for eqn in k.eqns:
    if eqn_effects(eqn) or saveable(eqn.primitive, *[x.aval for x in eqn.invars], **eqn.params):
      saved.update(eqn.outvars)
  # the equations recomputing the residuals that are not saved, from the saved values
  needed = {v for v in residuals if type(v) is Var}
  recompute = []
  for eqn in reversed(k.eqns):
    if any(v in needed and v not in saved for v in eqn.outvars):
      recompute.append(eqn)
      needed.update(x for x in eqn.invars if type(x) is Var)
  kept = [v for v in k.invars if v in needed]
  kept += [v for eqn in k.eqns for v in eqn.outvars if v in needed and v in saved
           and v not in k.invars]
  recompute_jaxpr = ClosedJaxpr(Jaxpr(k.constvars, kept, residuals, recompute[::-1]),
                                known.consts)

  def staged(*args):
    res = eval_jaxpr(recompute_jaxpr.jaxpr, recompute_jaxpr.consts, *args[:len(kept)])
    return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *args[len(kept):])

  unknown_avals = [a for a, u in zip(closed.in_avals, unknowns) if u]
  new_unknown = trace_to_closed_jaxpr(staged, [v.aval for v in kept] + unknown_avals)
  new_known = ClosedJaxpr(k.replace(outvars=k.outvars[:n_known_outs] + kept), known.consts)
  return new_known, new_unknown, out_unknowns, len(kept)


# ----------------------------------------------------------------------------------------------
# JAX's partial-value interface (`pe.PartialVal`, `pe.trace_to_jaxpr_nounits`) over the
# partial-evaluation trace

class PartialVal(tuple):
  """A known value `(None, const)` or an unknown one `(aval, None)`, as JAX's."""

  def __new__(cls, xs: tuple[ShapedArray | None, Any]):
    aval, const = xs
    if (aval is None) == (const is None):
      raise ValueError(f"PartialVal: exactly one of an aval and a known value, got {xs!r}")
    return tuple.__new__(cls, xs)

  @classmethod
  def known(cls, const: Any) -> PartialVal:
    return PartialVal((None, const))

  @classmethod
  def unknown(cls, aval: ShapedArray) -> PartialVal:
    return PartialVal((aval, None))

  def is_known(self) -> bool:
    return self[0] is None

  def get_known(self) -> Any:
    """The known value, or None when unknown."""
    return self[1] if self[0] is None else None

  def get_aval(self) -> ShapedArray:
    """The aval: given when unknown, of the value when known."""
    return core.get_aval(self[1]) if self[0] is None else self[0]


def trace_to_jaxpr_nounits(fun: Any, pvals: Sequence[PartialVal],
                           instantiate: bool | Sequence[bool] = False
                           ) -> tuple[Jaxpr, list[PartialVal], list[Any]]:
  """Run `fun` (a `linear_util.WrappedFun`, flat in and out) on known values and unknown
  types: what depends only on the known values is computed now, the rest is staged. Returns
  the staged jaxpr (constvars: the residuals; invars: the unknown inputs), the outputs as
  PartialVals (unknown where they depend on an unknown input or `instantiate` says so), and the
  residuals' values."""
  trace = PartialEvalTrace(core.current_trace())
  args = [pv.get_known() if pv.is_known() else trace.new_arg(pv.get_aval()) for pv in pvals]
  try:
    with core.set_current_trace(trace):
      outs = list(fun.call_wrapped(*args))
    if isinstance(instantiate, bool):
      instantiate = [instantiate] * len(outs)
    unknown = [trace.is_unknown(o) or bool(i) for o, i in zip(outs, instantiate)]
    jaxpr, consts = trace.to_jaxpr([o for o, u in zip(outs, unknown) if u])
  finally:
    trace.invalidate()
  out_pvals = [PartialVal.unknown(core.get_aval(o)) if u else PartialVal.known(o)
               for o, u in zip(outs, unknown)]
  return jaxpr, out_pvals, consts


def trace_to_jaxpr_dynamic(fun: Any, in_avals: Sequence[ShapedArray]
                           ) -> tuple[Jaxpr, list[ShapedArray], list[Any]]:
  """Trace `fun` (a `linear_util.WrappedFun`, flat in and out) on `in_avals`: the jaxpr, its
  output types and its constvars' values, as JAX's."""
  jaxpr, consts = trace_to_jaxpr(lambda *xs: list(fun.call_wrapped(*xs)), in_avals)
  return jaxpr, jaxpr.out_avals, consts


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: bool | Sequence[bool],
              instantiate: bool | Sequence[bool] = False) -> tuple[Jaxpr, list[bool]]:
  """`jaxpr` computing only its `used_outputs` from the inputs they need (and those marked in
  `instantiate`), and which inputs it takes (JAX's `pe.dce_jaxpr`; the rules: `dce_rules`)."""
  if isinstance(used_outputs, bool):
    used_outputs = [used_outputs] * len(jaxpr.outvars)
  return dce.prune_jaxpr(jaxpr, used_outputs, instantiate)
