"""The call primitives: `jit`, and JAX's plain calls `call` and `closed_call`. Each holds the
traced jaxpr of the called function in a param, which every transformation transforms (`jvp`,
`vmap`, partial evaluation and transposition keep it staged as a new call, with the call rules of
stablejax/lax/call_rules.py). Their lowering, a `func.call` of a private function, is in
lowering/rules/call.py; the user-facing `sj.jit` wrapper is in stablejax/jit.py.

`closed_call` (`call_jaxpr`: a ClosedJaxpr) and `call` (`call_jaxpr`: an open Jaxpr without
constvars) are JAX's `core.closed_call_p` and `core.call_p`: a call with no name, inlined by
interpreters that walk jaxprs (numpyro's provenance tracking reads them)."""
from __future__ import annotations

from stablejax import core
from stablejax.interpreters import flops
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, register_call_primitive
from stablejax.lax.call_rules import CallRules, Change, check_call_types, register_call_rules

__all__ = ["call_p", "closed_call_p", "jit_p"]

jit_p = core.Primitive("jit")
jit_p.multiple_results = True


def _jit_abstract_eval(*avals: core.ShapedArray, jaxpr: ClosedJaxpr, name: str):
  return check_call_types(f"jit of {name}", avals, jaxpr)


jit_p.def_abstract_eval(_jit_abstract_eval)


class _JitRules(CallRules):
  """A transformed call is named for its transformation (`jvp(f)`, `vmap(f)`, `transpose(f)`)."""
  prune_zero_cotangents = True

  def update(self, params: dict, change: Change) -> dict:
    if change.transform in ("jvp", "vmap", "transpose"):
      return {**params, "name": f"{change.transform}({params['name']})"}
    return params


register_call_rules(_JitRules(jit_p))
register_call_primitive(jit_p)
flops.flops_rules[jit_p] = flops.call_rule("jaxpr")

closed_call_p = core.Primitive("closed_call")
closed_call_p.multiple_results = True
call_p = core.Primitive("call")
call_p.multiple_results = True


def _closed_call_abstract_eval(*avals: core.ShapedArray, call_jaxpr: ClosedJaxpr):
  return check_call_types("closed_call", avals, call_jaxpr)


def _call_abstract_eval(*avals: core.ShapedArray, call_jaxpr: Jaxpr):
  if not isinstance(call_jaxpr, Jaxpr) or call_jaxpr.constvars:
    raise TypeError(f"call: call_jaxpr must be a Jaxpr without constvars (JAX's call_p takes "
                    f"its consts as operands), got {type(call_jaxpr).__name__}"
                    + (f" with {len(call_jaxpr.constvars)} constvars"
                       if isinstance(call_jaxpr, Jaxpr) else ""))
  return check_call_types("call", avals, call_jaxpr)


class _ClosedCallRules(CallRules):
  jaxpr_param = "call_jaxpr"


class _OpenCallRules(_ClosedCallRules):
  open_body = True


closed_call_p.def_abstract_eval(_closed_call_abstract_eval)
call_p.def_abstract_eval(_call_abstract_eval)
register_call_rules(_ClosedCallRules(closed_call_p))
register_call_rules(_OpenCallRules(call_p))
for _p in (closed_call_p, call_p):
  register_call_primitive(_p, "call_jaxpr")
  flops.flops_rules[_p] = flops.call_rule("call_jaxpr")
