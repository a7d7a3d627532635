"""Forward-mode automatic differentiation (JVP), symbolic zeros, and the rule tables for reverse
mode (transposition)."""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes
from stablejax.core import ShapedArray, Trace, Tracer
from stablejax.interpreters import batching, partial_eval as pe, rule_checks
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, eval_jaxpr
from stablejax.util import weak_cache

# primitive -> rule(primals, tangents, **params) -> (primal_out, tangent_out)
primitive_jvps: dict[core.Primitive, Callable] = rule_checks.register_rule_table({})
# primitive -> rule(cotangent, *args, **params) -> cotangents for each arg (None for no cotangent)
primitive_transposes: dict[core.Primitive, Callable] = rule_checks.register_rule_table({})


def tangent_aval(aval: ShapedArray) -> ShapedArray:
  """The type of a tangent: the same for inexact values, float0 for integers and booleans."""
  if dtypes.is_inexact(aval.dtype):
    return aval
  return ShapedArray(aval.shape, dtypes.float0)


class Zero:
  """A symbolic zero tangent or cotangent of type `aval`: costs nothing until instantiated."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  @staticmethod
  def from_primal_value(x: Any) -> Zero:
    return Zero(tangent_aval(core.get_aval(x)))

  def __repr__(self) -> str:
    return f"Zero({self.aval.str_short()})"


# How to build a zero array of an aval type. lax registers it (a `broadcast_in_dim` of a scalar
# zero, staged cheaply under tracing): lax's rules are written with this module, so this module
# cannot import lax (JAX's `ad_util.aval_zeros_likers`).
aval_zeros_likers: dict[type, Callable[[ShapedArray], Any]] = {}


def zeros_like_aval(aval: ShapedArray) -> Any:
  """A zero array of type `aval`."""
  if aval.dtype == dtypes.float0:
    return np.zeros(aval.shape, dtypes.float0)
  return aval_zeros_likers[type(aval)](aval)


def instantiate_zeros(t: Any) -> Any:
  return zeros_like_aval(t.aval) if type(t) is Zero else t


class UndefinedPrimal:
  """A linear input of a jaxpr being transposed: its value is unknown, only its type."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self) -> str:
    return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined_primal(x: Any) -> bool:
  return type(x) is UndefinedPrimal


# add_any: the addition of tangents and cotangents (JAX prints it as `add_any`).
add_jaxvals_p = core.Primitive("add_any")


def add_jaxvals(x: Any, y: Any) -> Any:
  """`x + y` by the `add_any` primitive (JAX's name; symbolic zeros: `add_tangents`)."""
  return add_jaxvals_p.bind(x, y)


def add_tangents(x: Any, y: Any) -> Any:
  if type(x) is Zero:
    return y
  if type(y) is Zero:
    return x
  return add_jaxvals_p.bind(x, y)


def _add_any_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
  if x.shape != y.shape or x.dtype != y.dtype:
    raise TypeError(f"add_any requires equal types, got {x.str_short()} and {y.str_short()}")
  return x  # (the first operand's weak type, as JAX's: it decides the weak type of gradients)


add_jaxvals_p.def_abstract_eval(_add_any_abstract_eval)


def _add_any_jvp(primals, tangents):
  return add_jaxvals_p.bind(*primals), add_tangents(*tangents)


primitive_jvps[add_jaxvals_p] = _add_any_jvp
primitive_transposes[add_jaxvals_p] = lambda ct, x, y: [ct, ct]


def _add_any_batcher(axis_data, args, dims):
  """add_any needs equal types: both operands get the batch axis at the front."""
  (x, y), (dx, dy) = args, dims
  if dx == dy:
    return add_jaxvals_p.bind(x, y), dx
  size = axis_data.size
  return add_jaxvals_p.bind(batching.bdim_at_front(x, dx, size),
                            batching.bdim_at_front(y, dy, size)), 0


batching.fancy_primitive_batchers[add_jaxvals_p] = _add_any_batcher


# ----------------------------------------------------------------------------------------------
# Rule helpers, as in JAX

def defjvp(primitive: core.Primitive, *jvp_rules: Callable | None) -> None:
  """Define the JVP of `primitive` by one rule per operand: `rule(tangent, *primals, **params)`
  gives that operand's contribution to the output tangent (broadcast to the output's shape, as
  an elementwise primitive broadcasts its operands); None marks a non-differentiable operand."""
  primitive_jvps[primitive] = lambda primals, tangents, **params: _standard_jvp(
      jvp_rules, False, primitive, primals, tangents, **params)


def defjvp2(primitive: core.Primitive, *jvp_rules: Callable | None) -> None:
  """`defjvp` with rules `rule(tangent, primal_out, *primals, **params)` that also see the
  primal output."""
  primitive_jvps[primitive] = lambda primals, tangents, **params: _standard_jvp(
      jvp_rules, True, primitive, primals, tangents, **params)


def broadcast_elementwise(x: Any, shape: tuple[int, ...]) -> Any:
  """Broadcast `x` (rank 0, or `shape`'s rank with size-1 axes) to `shape`, as an elementwise
  primitive broadcasts its operands."""
  x_shape = core.get_aval(x).shape
  if x_shape == shape:
    return x
  dims = tuple(range(len(shape))) if x_shape else ()
  return batching.axis_ops.broadcast_in_dim(x, shape, dims)


def _standard_jvp(jvp_rules, with_ans, primitive, primals, tangents, **params):
  primal_out = primitive.bind(*primals, **params)
  shape = core.get_aval(primal_out).shape
  tangent_out = None
  for rule, t in zip(jvp_rules, tangents):
    if rule is not None and type(t) is not Zero:
      contribution = (rule(t, primal_out, *primals, **params) if with_ans
                      else rule(t, *primals, **params))
      contribution = broadcast_elementwise(contribution, shape)
      tangent_out = contribution if tangent_out is None else add_tangents(tangent_out,
                                                                          contribution)
  if tangent_out is None:
    tangent_out = Zero.from_primal_value(primal_out)
  return primal_out, tangent_out


def defjvp_zero(primitive: core.Primitive) -> None:
  """The output of `primitive` has a zero tangent (comparisons, integer ops, ...)."""
  def jvp(primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    if primitive.multiple_results:
      return out, [Zero.from_primal_value(o) for o in out]
    return out, Zero.from_primal_value(out)
  primitive_jvps[primitive] = jvp


def _linear_jvp(primitive, primals, tangents, **params):
  out = primitive.bind(*primals, **params)
  if all(type(t) is Zero for t in tangents):
    return out, Zero.from_primal_value(out)
  return out, primitive.bind(*map(instantiate_zeros, tangents), **params)


def zero_ct_aware(rule: Callable) -> Callable:
  """Wrap transpose `rule(ct, *args, **params)` so a symbolic zero cotangent gives symbolic
  zeros for the linear arguments without calling it."""
  @functools.wraps(rule)  # (errors about the rule's results name `rule`)
  def transpose(ct, *args, **params):
    if type(ct) is Zero:
      return [Zero(x.aval) if type(x) is UndefinedPrimal else None for x in args]
    return rule(ct, *args, **params)
  return transpose


def deflinear(primitive: core.Primitive, transpose_rule: Callable) -> None:
  """`primitive` is linear in all its arguments: its JVP applies it to the tangents, and
  `transpose_rule(ct, **params)` gives the cotangents of its arguments."""
  deflinear2(primitive, functools.wraps(transpose_rule)(
      lambda ct, *args, **params: transpose_rule(ct, **params)))


def deflinear2(primitive: core.Primitive, transpose_rule: Callable) -> None:
  """Like `deflinear`, with `transpose_rule(ct, *args, **params)` also seeing the arguments."""
  primitive_jvps[primitive] = lambda primals, tangents, **params: _linear_jvp(
      primitive, primals, tangents, **params)
  primitive_transposes[primitive] = zero_ct_aware(transpose_rule)


def defbilinear(primitive: core.Primitive, lhs_rule: Callable, rhs_rule: Callable) -> None:
  """`primitive(x, y)` is linear in each argument separately (a product): its JVP applies it
  to one tangent at a time, and `lhs_rule(ct, x, y, **params)` (x undefined) or
  `rhs_rule(ct, x, y, **params)` (y undefined) gives the cotangent of the linear argument."""
  defjvp(primitive, lambda g, x, y, **params: primitive.bind(g, y, **params),
         lambda g, x, y, **params: primitive.bind(x, g, **params))

  def transpose(ct, x, y, **params):
    if is_undefined_primal(x) == is_undefined_primal(y):
      raise ValueError(f"transpose of bilinear '{primitive.name}': exactly one argument must be "
                       f"linear (undefined), got {x!r} and {y!r}")
    if is_undefined_primal(x):
      out = lhs_rule(ct, x, y, **params)
      return [Zero(x.aval) if type(out) is Zero else out, None]
    out = rhs_rule(ct, x, y, **params)
    return [None, Zero(y.aval) if type(out) is Zero else out]
  primitive_transposes[primitive] = zero_ct_aware(transpose)


def get_primitive_transpose(primitive: core.Primitive) -> Callable:
  """The transpose rule of `primitive`; NotImplementedError (as JAX) if it has none."""
  try:
    return primitive_transposes[primitive]
  except KeyError:
    raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                              f"'{primitive.name}' not implemented") from None


# ----------------------------------------------------------------------------------------------
# The JVP trace

class JVPTracer(Tracer):
  __slots__ = ("primal", "tangent")

  def __init__(self, trace: JVPTrace, primal: Any, tangent: Any):
    self._trace = trace
    self.primal = primal
    self.tangent = tangent

  @property
  def aval(self) -> ShapedArray:
    return core.get_aval(self.primal)

  def to_concrete_value(self):
    p = self.primal
    return p.to_concrete_value() if isinstance(p, Tracer) else p


# The primitives given their JVP even when every tangent is zero, their tangent always staged
# under `linearize`: those allocating refs (a ref made under grad has a tangent ref, as JAX's).
always_differentiated: set[core.Primitive] = set()

# Rewrites of the linear jaxpr `linearize_flat` stages, before it is evaluated or transposed,
# registered from above: the discharge of tangent refs into arrays (passes/discharge.py).
linear_jaxpr_rewrites: list[Callable[[ClosedJaxpr], ClosedJaxpr]] = []


# Rewrites of a jaxpr keeping its signature, before `jvp_jaxpr` differentiates it (a `jit`'s,
# a loop body), registered from above: the discharge of the refs it makes.
jvp_jaxpr_rewrites: list[Callable[[ClosedJaxpr], ClosedJaxpr]] = []


class JVPTrace(Trace):
  """Pushes tangents forward. Under `linearize`, `tangent_trace` is the partial-eval trace
  whose unknowns the input tangents are: a tangent it knows does not depend on them, so (as
  tangents are linear in them) it is zero, and it becomes a symbolic `Zero` (as JAX's
  linearize treats it; primitives after it then need no JVP rule)."""

  def __init__(self, parent: Trace, tangent_trace: pe.PartialEvalTrace | None = None):
    super().__init__(parent)
    self.tangent_trace = tangent_trace

  def primal_tangent(self, x: Any) -> tuple[Any, Any]:
    if type(x) is JVPTracer and x._trace is self:
      return x.primal, x.tangent
    return x, Zero.from_primal_value(x)

  def process_primitive(self, primitive, args, params):
    primals, tangents, all_zero = [], [], True
    for x in args:
      if type(x) is JVPTracer and x._trace is self:
        primals.append(x.primal)
        tangents.append(x.tangent)
        all_zero = all_zero and type(x.tangent) is Zero
      else:
        primals.append(x)
        tangents.append(Zero.from_primal_value(x))
    with core.set_current_trace(self.parent):
      if all_zero and primitive not in always_differentiated:
        out = primitive.bind(*primals, **params)
        if primitive.multiple_results:
          return [JVPTracer(self, o, Zero.from_primal_value(o)) for o in out]
        return JVPTracer(self, out, Zero.from_primal_value(out))
      rule = primitive_jvps.get(primitive)
      if rule is None:
        raise NotImplementedError(f"Differentiation rule for '{primitive.name}' not implemented "
                                  "(register one in ad.primitive_jvps)")
      primal_out, tangent_out = rule(primals, tangents, **params)
    if rule_checks.is_checked(rule):
      _check_jvp_result(primitive, rule, primal_out, tangent_out)
    alloc = primitive in always_differentiated
    if primitive.multiple_results:
      return [JVPTracer(self, p, self._linear(p, t, alloc))
              for p, t in zip(primal_out, tangent_out)]
    return JVPTracer(self, primal_out, self._linear(primal_out, tangent_out, alloc))

  def _linear(self, primal: Any, tangent: Any, alloc: bool = False) -> Any:
    known = (self.tangent_trace is not None and type(tangent) is not Zero
             and not self.tangent_trace.is_unknown(tangent))
    if known and alloc:  # a tangent ref: its reads and writes are staged, as the tangents are
      return self.tangent_trace.stage_value(tangent)
    return Zero.from_primal_value(primal) if known else tangent


def _result_aval(x: Any) -> ShapedArray | None:
  """The type of a tangent or cotangent a rule returned (None if it is not an array)."""
  if type(x) is Zero:
    return x.aval
  try:
    return core.get_aval(x)
  except TypeError:
    return None


def _tangent_mismatch(value: Any, want: ShapedArray) -> str | None:
  """How tangent or cotangent `value` is not of type `want`'s tangent type (None: it is)."""
  got = _result_aval(value)
  if got is None:
    return f"{value!r}, not an array"
  expected = tangent_aval(want)
  if got.shape == expected.shape and got.dtype == expected.dtype:
    return None
  return f"{got.str_short()}, not {expected.str_short()}"


def _check_jvp_result(primitive: core.Primitive, rule: Callable, primal_out: Any,
                      tangent_out: Any) -> None:
  """Each output tangent has the tangent type of its primal."""
  if primitive.multiple_results:
    if not isinstance(tangent_out, (list, tuple)) or len(tangent_out) != len(primal_out):
      raise rule_checks.bad_result("JVP", primitive, rule, f"tangents {tangent_out!r} for "
                                   f"{len(primal_out)} primal outputs; it returns a list of "
                                   "one tangent per output")
    pairs = zip(primal_out, tangent_out)
  else:
    pairs = ((primal_out, tangent_out),)
  for i, (p, t) in enumerate(pairs):
    wrong = _tangent_mismatch(t, core.get_aval(p))
    if wrong is not None:
      raise rule_checks.bad_result("JVP", primitive, rule, f"a tangent for output {i} of "
                                   f"type {wrong} (the tangent type of the primal output)")


def _check_transpose_result(primitive: core.Primitive, rule: Callable, args: Sequence,
                            cts_in: Any) -> None:
  """One cotangent (or None) per argument, each linear one's of the argument's tangent type."""
  if not isinstance(cts_in, (list, tuple)) or len(cts_in) != len(args):
    raise rule_checks.bad_result("transpose", primitive, rule, f"{cts_in!r}; it returns a "
                                 f"list of {len(args)} cotangents (None for no cotangent), one "
                                 "per argument")
  for i, (x, ct) in enumerate(zip(args, cts_in)):
    if type(x) is UndefinedPrimal and ct is not None:
      wrong = _tangent_mismatch(ct, x.aval)
      if wrong is not None:
        raise rule_checks.bad_result("transpose", primitive, rule, f"a cotangent for "
                                     f"argument {i} of type {wrong} (the tangent type of the "
                                     "argument)")


def _check_tangent(primal: Any, tangent: Any, i: int) -> None:
  p_aval = core.get_aval(primal)
  if type(tangent) is Zero:
    return
  t_aval = core.get_aval(tangent)
  expected = tangent_aval(p_aval)
  if t_aval.shape != p_aval.shape:
    raise ValueError(f"jvp: primal and tangent arguments must have equal shapes; argument {i} "
                     f"has primal {p_aval.str_short()} and tangent {t_aval.str_short()}")
  if expected.dtype == dtypes.float0:
    return  # integer primals: any tangent is treated as zero
  if t_aval.dtype != expected.dtype:
    raise TypeError(f"jvp: primal and tangent arguments must have equal dtypes; argument {i} "
                    f"has primal {p_aval.str_short()} and tangent {t_aval.str_short()}")


def jvp_flat(f: Callable[..., Sequence], primals: Sequence, tangents: Sequence,
             instantiate: bool = True, tangent_trace: pe.PartialEvalTrace | None = None
             ) -> tuple[list, list]:
  """Push `tangents` forward through flat-in, flat-out `f` (`tangent_trace`: see JVPTrace)."""
  for i, (p, t) in enumerate(zip(primals, tangents)):
    _check_tangent(p, t, i)
  parent = core.current_trace()
  trace = JVPTrace(parent, tangent_trace)
  tracers = [JVPTracer(trace, p, t if tangent_aval(core.get_aval(p)).dtype != dtypes.float0
                       else Zero.from_primal_value(p)) for p, t in zip(primals, tangents)]
  try:
    with core.set_current_trace(trace), core.extend_name_stack("jvp", transform=True):
      outs = f(*tracers)
    primals_out, tangents_out = [], []
    for o in outs:
      p, t = trace.primal_tangent(o)
      primals_out.append(p)
      tangents_out.append(instantiate_zeros(t) if instantiate else t)
  finally:
    trace.invalidate()
  return primals_out, tangents_out


# ----------------------------------------------------------------------------------------------
# JVP of a whole jaxpr (for higher-order primitives such as jit)

def jvp_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool],
              instantiate: bool | Sequence[bool]) -> tuple[ClosedJaxpr, list[bool]]:
  """A jaxpr computing `(*primals_out, *nonzero_tangents_out)` from
  `(*primals, *nonzero_tangents)`, and which output tangents are nonzero."""
  if isinstance(instantiate, bool):
    instantiate = (instantiate,) * len(closed.out_avals)
  return _jvp_jaxpr_cached(closed, tuple(nonzeros), tuple(instantiate))


@weak_cache(maxsize=64)
def _jvp_jaxpr_cached(closed, nonzeros, instantiate):
  n = len(closed.in_avals)
  out_nonzeros: list[bool] = []
  body = closed
  for rewrite in jvp_jaxpr_rewrites:
    body = rewrite(body)

  def f(*args):
    primals, nz_tangents = args[:n], iter(args[n:])
    tangents = [next(nz_tangents) if nz else Zero(tangent_aval(a))
                for nz, a in zip(nonzeros, closed.in_avals)]
    primals_out, tangents_out = jvp_flat(
        lambda *xs: eval_jaxpr(body.jaxpr, body.consts, *xs), primals, tangents,
        instantiate=False)
    tangents_out = [instantiate_zeros(t) if inst else t
                    for t, inst in zip(tangents_out, instantiate)]
    out_nonzeros[:] = [type(t) is not Zero for t in tangents_out]
    return list(primals_out) + [t for t in tangents_out if type(t) is not Zero]

  tangent_avals = [tangent_aval(a) for a, nz in zip(closed.in_avals, nonzeros) if nz]
  jaxpr = pe.trace_to_closed_jaxpr(f, list(closed.in_avals) + tangent_avals)
  return jaxpr, out_nonzeros


# ----------------------------------------------------------------------------------------------
# Reverse mode: linearize (JVP + partial evaluation) and transposition

def linearize_flat(f: Callable[..., Sequence], primals: Sequence
                   ) -> tuple[list, ClosedJaxpr]:
  """Evaluate flat `f` at `primals` and stage its JVP's linear part: a jaxpr from input
  tangents to output tangents whose consts are the residuals."""
  trace = pe.PartialEvalTrace(core.current_trace())
  tangents = [trace.new_arg(tangent_aval(core.get_aval(p))) for p in primals]
  try:
    with core.set_current_trace(trace):
      primals_out, tangents_out = jvp_flat(f, primals, tangents, tangent_trace=trace)
    jaxpr, residuals = trace.to_jaxpr(tangents_out)
  finally:
    trace.invalidate()
  linear = ClosedJaxpr(jaxpr, residuals)
  for rewrite in linear_jaxpr_rewrites:
    linear = rewrite(linear)
  return primals_out, linear


def backward_pass(jaxpr: Jaxpr, consts: Sequence, args: Sequence, cts_out: Sequence
                  ) -> list:
  """Transpose `jaxpr` with respect to its `UndefinedPrimal` arguments: given cotangents of
  its outputs, return cotangents (possibly `Zero`) of every argument (None for defined ones).
  Equations with no undefined input are evaluated forward first."""
  env: dict = {}

  def read(x):
    return x.val if type(x) is Literal else env[x]

  for v, x in zip(jaxpr.constvars, consts):
    env[v] = x
  for v, x in zip(jaxpr.invars, args):
    env[v] = x
  linear_eqns = []
  for eqn in jaxpr.eqns:
    ins = [read(x) for x in eqn.invars]
    if any(type(x) is UndefinedPrimal for x in ins):
      linear_eqns.append(eqn)
      for v in eqn.outvars:
        env[v] = UndefinedPrimal(v.aval)
      continue
    with core.transformed_source(eqn.source_info):
      outs = eqn.primitive.bind(*ins, **eqn.params)
    for v, x in zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]):
      env[v] = x

  ct_env: dict = {}

  def add_ct(v, ct):
    if type(v) is Var and type(ct) is not Zero and ct is not None:
      ct_env[v] = add_tangents(ct_env[v], ct) if v in ct_env else ct

  for v, ct in zip(jaxpr.outvars, cts_out):
    add_ct(v, ct)
  for eqn in reversed(linear_eqns):
    cts = [ct_env.pop(v) if v in ct_env else Zero(v.aval) for v in eqn.outvars]
    if all(type(ct) is Zero for ct in cts):
      continue
    rule = primitive_transposes.get(eqn.primitive)
    if rule is None:
      raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                f"'{eqn.primitive.name}' not implemented")
    ins = [read(x) for x in eqn.invars]
    with core.transformed_source(eqn.source_info, "transpose"):
      cts_in = rule(cts if eqn.primitive.multiple_results else cts[0], *ins, **eqn.params)
    if rule_checks.is_checked(rule):
      _check_transpose_result(eqn.primitive, rule, ins, cts_in)
    for v, x, ct in zip(eqn.invars, ins, cts_in):
      if type(x) is UndefinedPrimal:
        add_ct(v, ct)
  return [ct_env.get(v, Zero(v.aval)) if type(x) is UndefinedPrimal else None
          for v, x in zip(jaxpr.invars, args)]


def transpose_jaxpr(closed: ClosedJaxpr, linear: Sequence[bool],
                    ct_avals: Sequence[core.ShapedArray] | None = None,
                    zero_cts: Sequence[bool] | None = None) -> ClosedJaxpr:
  """A jaxpr taking `(*nonlinear_args, *output_cotangents)` to the (instantiated) cotangents
  of the linear arguments; the cotangents are of `ct_avals` (default: `closed`'s outputs', but
  as in JAX those of the actual cotangents decide the weak types of the results). The outputs
  flagged in `zero_cts` have symbolic zero cotangents: the jaxpr takes none for them (as JAX's
  pjit transpose prunes them, so that no 0 * inf of an unused output's rule makes a NaN)."""
  zero_cts = tuple(zero_cts or (False,) * len(closed.out_avals))
  return _transpose_jaxpr_cached(closed, tuple(linear),
                                 tuple(closed.out_avals if ct_avals is None else ct_avals),
                                 zero_cts)


@weak_cache(maxsize=64)
def _transpose_jaxpr_cached(closed, linear, ct_avals, zero_cts):
  n_nonlinear = linear.count(False)

  def f(*args):
    nonlinear, given = iter(args[:n_nonlinear]), iter(args[n_nonlinear:])
    primals = [UndefinedPrimal(a) if lin else next(nonlinear)
               for a, lin in zip(closed.in_avals, linear)]
    cts = [Zero(a) if zero else next(given) for a, zero in zip(closed.out_avals, zero_cts)]
    cts_in = backward_pass(closed.jaxpr, closed.consts, primals, cts)
    return [instantiate_zeros(ct) for ct, lin in zip(cts_in, linear) if lin]

  nonlinear_avals = [a for a, lin in zip(closed.in_avals, linear) if not lin]
  given_avals = [a for a, zero in zip(ct_avals, zero_cts) if not zero]
  return pe.trace_to_closed_jaxpr(f, nonlinear_avals + given_avals)
