"""Inlining of call primitives: a `jit` equation is replaced by the equations of its jaxpr (in
every sub-jaxpr too), so the lowered module is one flat `@main` instead of `func.call`s of
private functions. In an open sub-jaxpr, which takes no consts, a callee with consts stays a
call."""
from __future__ import annotations

from typing import Any

from stablejax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, call_primitives,
                             replace_subjaxprs)
from stablejax.passes.traversal import JaxprMap


def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` with every call primitive (recursively) replaced by its callee's equations."""
  return JaxprMap(_inline)(closed)


def _inline(jaxpr: Jaxpr, consts: list | None, jaxpr_map: JaxprMap
            ) -> tuple[Jaxpr, list | None]:
  builder = _Inliner(list(jaxpr.constvars), consts, jaxpr_map)
  env = {v: v for v in jaxpr.constvars + jaxpr.invars}
  outs = builder.inline(jaxpr, env, fresh=False)
  if len(builder.eqns) == len(jaxpr.eqns) and all(a is b for a, b in zip(builder.eqns,
                                                                          jaxpr.eqns)):
    return jaxpr, consts
  return Jaxpr(builder.constvars, jaxpr.invars, outs, builder.eqns), builder.consts


class _Inliner:
  """Accumulates the flat equations, and the consts of inlined callees as new constvars (None
  for an open jaxpr, which can take none)."""

  def __init__(self, constvars: list[Var], consts: list[Any] | None, jaxpr_map: JaxprMap):
    self.constvars = constvars
    self.consts = None if consts is None else list(consts)
    self.jaxpr_map = jaxpr_map
    self.eqns: list[JaxprEqn] = []

  def inline(self, jaxpr: Jaxpr, env: dict, fresh: bool) -> list:
    """Append `jaxpr`'s equations with its variables renamed through `env` (fresh variables
    for a callee, which may be inlined more than once); returns its output atoms."""
    def read(atom):
      return atom if type(atom) is Literal else env[atom]

    for eqn in jaxpr.eqns:
      invars = [read(x) for x in eqn.invars]
      param = call_primitives.get(eqn.primitive)
      callee = None if param is None else eqn.params[param]
      if callee is None or (self.consts is None and callee.consts):
        self._append(eqn, invars, env, fresh)
        continue
      callee_env = dict(zip(callee.jaxpr.invars, invars))
      for v, c in zip(callee.jaxpr.constvars, callee.consts):
        callee_env[v] = new = Var(v.aval)
        self.constvars.append(new)
        self.consts.append(c)
      env.update(zip(eqn.outvars, self.inline(callee.jaxpr, callee_env, fresh=True)))
    return [read(x) for x in jaxpr.outvars]

  def _append(self, eqn: JaxprEqn, invars: list, env: dict, fresh: bool) -> None:
    """Append `eqn` on `invars`, its sub-jaxprs inlined too."""
    outvars = [Var(v.aval) for v in eqn.outvars] if fresh else eqn.outvars
    new = replace_subjaxprs(eqn, self.jaxpr_map)
    if fresh or any(a is not b for a, b in zip(invars, eqn.invars)):
      new = new.replace(invars=invars, outvars=outvars)
    self.eqns.append(new)
    env.update(zip(eqn.outvars, outvars))
