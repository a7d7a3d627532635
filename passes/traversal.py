"""How a jaxpr pass reaches every sub-jaxpr: `JaxprMap` applies a rewrite of one jaxpr's
equations to a jaxpr and, once per object, to every jaxpr held in its equations' params (`jit`
callees, `cond` branches, `while` cond and body, `scan` bodies, custom derivative and remat
bodies), so a callee shared by several equations stays one object after the pass."""
from __future__ import annotations

from typing import Any, Callable

from stablejax.jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Var, replace_subjaxprs

# rewrite(jaxpr, consts, jaxpr_map) -> (new jaxpr, new consts). `consts` is the list of a closed
# jaxpr's consts, None for an open jaxpr (which can take no new consts).
Rewrite = Callable[[Jaxpr, list | None, "JaxprMap"], tuple[Jaxpr, list | None]]


class JaxprMap:
  """`rewrite` applied to jaxprs, memoized by object."""

  def __init__(self, rewrite: Rewrite):
    self.rewrite = rewrite
    self.memo: dict[int, tuple[Any, Any]] = {}

  def __call__(self, j: ClosedJaxpr | Jaxpr) -> ClosedJaxpr | Jaxpr:
    key = id(j)
    if key not in self.memo:
      self.memo[key] = (j, self._apply(j))
    return self.memo[key][1]

  def _apply(self, j: ClosedJaxpr | Jaxpr) -> ClosedJaxpr | Jaxpr:
    if type(j) is ClosedJaxpr:
      jaxpr, consts = self.rewrite(j.jaxpr, list(j.consts), self)
      unchanged = jaxpr is j.jaxpr and len(consts) == len(j.consts)
      return j if unchanged else ClosedJaxpr(jaxpr, consts)
    return self.rewrite(j, None, self)[0]

  def eqn(self, eqn: JaxprEqn, env: dict[Var, Atom]) -> JaxprEqn:
    """`eqn` with its sub-jaxprs rewritten and its inputs renamed through `env`."""
    eqn = replace_subjaxprs(eqn, self)
    invars = [env.get(x, x) if type(x) is Var else x for x in eqn.invars]
    if any(a is not b for a, b in zip(invars, eqn.invars)):
      eqn = eqn.replace(invars=invars)
    return eqn


def rebuild(jaxpr: Jaxpr, eqns: list[JaxprEqn], env: dict[Var, Atom], **fields: Any) -> Jaxpr:
  """`jaxpr` with `eqns` and its outputs renamed through `env` (`jaxpr` itself when its
  equations are the same objects and nothing is renamed)."""
  outvars = [env.get(x, x) if type(x) is Var else x for x in jaxpr.outvars]
  same = (not fields and len(eqns) == len(jaxpr.eqns) and
          all(a is b for a, b in zip(eqns, jaxpr.eqns)) and
          all(a is b for a, b in zip(outvars, jaxpr.outvars)))
  return jaxpr if same else jaxpr.replace(eqns=eqns, outvars=outvars, **fields)
