"""The call primitive `jit`: its param is the traced jaxpr of the called function, which every
transformation transforms (`jvp`, `vmap`, partial evaluation and transposition keep it staged as a
new `jit`, with the call rules of stablejax/lax/call_rules.py). Its lowering, a `func.call` of a
private function, is in lowering/rules/call.py; the user-facing `sj.jit` wrapper is in
stablejax/jit.py."""
from __future__ import annotations

from stablejax import core
from stablejax.interpreters import flops
from stablejax.jaxpr import ClosedJaxpr, register_call_primitive
from stablejax.lax.call_rules import CallRules, Change, check_call_types, register_call_rules

__all__ = ["jit_p"]

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
