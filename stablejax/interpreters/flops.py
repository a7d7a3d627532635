"""The FLOPS interpreter: `jaxpr_flops` counts a jaxpr's floating-point operations with each
primitive's rule in `flops_rules`, registered next to the primitive in its family file (as its
other rules are; `out_size`, `in_size`, `free` and `call_rule` are the common ones). The
conventions are `stablejax.flops`'s (`sj.flops(f)(*args)`, the user-facing transformation)."""
from __future__ import annotations

from typing import Any, Callable

from stablejax import core
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal

__all__ = ["FlopsRule", "LiteralAval", "UnknownFlopsError", "call_rule", "eqn_flops", "flops_rules",
           "free", "in_size", "jaxpr_flops", "open_jaxpr", "out_size", "register_flops_rule"]

FlopsRule = Callable[..., float]

# primitive -> rule(avals_in, avals_out, **params) -> number of floating-point operations
flops_rules: dict[core.Primitive, FlopsRule] = {}


class UnknownFlopsError(ValueError):
  """The FLOPS of a program cannot be counted statically."""

  def __init__(self, message: str, located: bool = False):
    super().__init__(message)
    self.located = located  # the message names the equation's source line


class LiteralAval(core.ShapedArray):
  """The aval a rule receives for an operand that is a literal: it also has its `value`."""
  __slots__ = ("value",)

  def __init__(self, aval: core.ShapedArray, value: Any):
    super().__init__(aval.shape, aval.dtype, aval.weak_type)
    self.value = value


def register_flops_rule(prim: core.Primitive, rule: FlopsRule) -> None:
  """Count `prim` with `rule(avals_in, avals_out, **params) -> float` (replacing any rule); the
  avals are ShapedArrays (a `LiteralAval`, with its `value`, for a literal operand)."""
  if not isinstance(prim, core.Primitive):
    raise TypeError(f"register_flops_rule: expected a Primitive, got {prim!r}")
  if not callable(rule):
    raise TypeError(f"register_flops_rule: the rule for {prim.name} must be callable, got "
                    f"{rule!r}")
  flops_rules[prim] = rule


def jaxpr_flops(jaxpr: ClosedJaxpr | Jaxpr) -> float:
  """The estimated floating-point operations of one evaluation of `jaxpr`."""
  return float(sum(map(eqn_flops, open_jaxpr(jaxpr).eqns)))


def open_jaxpr(jaxpr: ClosedJaxpr | Jaxpr) -> Jaxpr:
  return jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr


def eqn_flops(eqn: JaxprEqn) -> float:
  """The estimated floating-point operations of one equation (its sub-jaxprs' included)."""
  rule = flops_rules.get(eqn.primitive)
  if rule is None:
    raise UnknownFlopsError(
        f"flops: no FLOPS rule for primitive '{eqn.primitive.name}'{_where(eqn)}; register one "
        f"with `from stablejax.flops import register_flops_rule`", located=True)
  avals_in = [LiteralAval(x.aval, x.val) if type(x) is Literal else x.aval for x in eqn.invars]
  try:
    return rule(avals_in, [v.aval for v in eqn.outvars], **eqn.params)
  except UnknownFlopsError as e:
    if e.located:
      raise
    raise UnknownFlopsError(f"{e}{_where(eqn)}", located=True) from None


def _where(eqn: JaxprEqn) -> str:
  """` (at file:line)` of the user's code that staged `eqn`, when known."""
  frames = eqn.source_info.frames if eqn.source_info else ()
  return " (at {}:{})".format(*core.frame_position(*frames[0])[:2]) if frames else ""


# ----------------------------------------------------------------------------------------------
# The common rules

def out_size(avals_in, avals_out, **_) -> float:
  """1 per output element (elementwise ops, transcendental ones too)."""
  return sum(a.size for a in avals_out)


def in_size(avals_in, avals_out, **_) -> float:
  """1 per element of the first operand (reductions, reducing collectives)."""
  return avals_in[0].size


def free(avals_in, avals_out, **_) -> float:
  """0: structural ops, data movement, host callbacks."""
  return 0


def call_rule(param: str) -> FlopsRule:
  """The rule of a call-like primitive: its body's count (the jaxpr in `params[param]`)."""
  def rule(avals_in, avals_out, **params) -> float:
    return jaxpr_flops(params[param])
  return rule
