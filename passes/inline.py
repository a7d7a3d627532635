"""Inlining of call primitives: a `jit` equation is replaced by the equations of its jaxpr, so
the lowered module is one flat `@main` instead of `func.call`s of private functions."""
from __future__ import annotations

from typing import Any

from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, call_primitives


def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` with every call primitive (recursively) replaced by its callee's equations."""
  jaxpr = closed.jaxpr
  if not _has_calls(jaxpr):
    return closed
  builder = _Inliner(list(jaxpr.constvars), list(closed.consts))
  env = {v: v for v in jaxpr.constvars + jaxpr.invars}
  outs = builder.inline(jaxpr, env, fresh=False)
  return ClosedJaxpr(Jaxpr(builder.constvars, jaxpr.invars, outs, builder.eqns), builder.consts)


def _has_calls(jaxpr: Jaxpr) -> bool:
  return any(e.primitive in call_primitives for e in jaxpr.eqns)


class _Inliner:
  """Accumulates the flat equations, and the consts of inlined callees as new constvars."""

  def __init__(self, constvars: list[Var], consts: list[Any]):
    self.constvars = constvars
    self.consts = consts
    self.eqns: list[JaxprEqn] = []

  def inline(self, jaxpr: Jaxpr, env: dict, fresh: bool) -> list:
    """Append `jaxpr`'s equations with its variables renamed through `env` (fresh variables
    for a callee, which may be inlined more than once); returns its output atoms."""
    def read(atom):
      return atom if type(atom) is Literal else env[atom]

    for eqn in jaxpr.eqns:
      invars = [read(x) for x in eqn.invars]
      param = call_primitives.get(eqn.primitive)
      if param is None:
        outvars = [Var(v.aval) for v in eqn.outvars] if fresh else eqn.outvars
        self.eqns.append(eqn.replace(invars=invars, outvars=outvars))
        env.update(zip(eqn.outvars, outvars))
        continue
      callee = eqn.params[param]
      callee_env = dict(zip(callee.jaxpr.invars, invars))
      for v, c in zip(callee.jaxpr.constvars, callee.consts):
        callee_env[v] = new = Var(v.aval)
        self.constvars.append(new)
        self.consts.append(c)
      env.update(zip(eqn.outvars, self.inline(callee.jaxpr, callee_env, fresh=True)))
    return [read(x) for x in jaxpr.outvars]
