"""Dead-code elimination on jaxprs: drop equations whose results are never used and that have
no effect (`jaxpr.eqn_effects`: a host callback printing something, a side-effecting kernel).

Sub-jaxprs in params (of `jit`, `cond`, `while`, `scan`, ...) are cleaned too, keeping all their
outputs; a sub-jaxpr used by several equations is cleaned once, so callers that compare jaxprs
by identity (the lowering's one-function-per-callee cache) still see one callee.
"""
from __future__ import annotations

from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eqn_effects, replace_subjaxprs


def dce_jaxpr(jaxpr: Jaxpr, memo: dict | None = None) -> Jaxpr:
  """`jaxpr` without the equations none of its outputs depend on."""
  memo = {} if memo is None else memo
  live = {v for v in jaxpr.outvars if type(v) is Var}
  kept: list[JaxprEqn] = []
  for eqn in reversed(jaxpr.eqns):
    if not any(v in live for v in eqn.outvars) and not eqn_effects(eqn):
      continue
    live.update(v for v in eqn.invars if type(v) is Var)
    kept.append(replace_subjaxprs(eqn, lambda j: _dce_subjaxpr(j, memo)))
  if len(kept) == len(jaxpr.eqns) and all(a is b for a, b in zip(kept, reversed(jaxpr.eqns))):
    return jaxpr
  return jaxpr.replace(eqns=kept[::-1])


def dce_closed_jaxpr(closed: ClosedJaxpr, memo: dict | None = None) -> ClosedJaxpr:
  """`dce_jaxpr` of a closed jaxpr (the same object when nothing is dead)."""
  return _dce_subjaxpr(closed, {} if memo is None else memo)


def _dce_subjaxpr(j: ClosedJaxpr | Jaxpr, memo: dict) -> ClosedJaxpr | Jaxpr:
  """`j` cleaned once per object: `memo` maps its id to it (keeping the id taken) and the result."""
  key = id(j)
  if key not in memo:
    if type(j) is ClosedJaxpr:
      jaxpr = dce_jaxpr(j.jaxpr, memo)
      memo[key] = (j, j if jaxpr is j.jaxpr else ClosedJaxpr(jaxpr, j.consts))
    else:
      memo[key] = (j, dce_jaxpr(j, memo))
  return memo[key][1]
