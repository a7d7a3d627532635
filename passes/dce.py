"""Dead-code elimination on jaxprs: drop equations whose results are never used.

Sub-jaxprs in params (of `jit`, `cond`, `while`, `scan`, ...) are cleaned too, keeping all their
outputs; a sub-jaxpr used by several equations is cleaned once, so callers that compare jaxprs
by identity (the lowering's one-function-per-callee cache) still see one callee.
"""
from __future__ import annotations

from typing import Any

from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var


def dce_jaxpr(jaxpr: Jaxpr, memo: dict | None = None) -> Jaxpr:
  """`jaxpr` without the equations none of its outputs depend on."""
  memo = {} if memo is None else memo
  live = {v for v in jaxpr.outvars if type(v) is Var}
  kept: list[JaxprEqn] = []
  for eqn in reversed(jaxpr.eqns):
    if not any(v in live for v in eqn.outvars):
      continue
    live.update(v for v in eqn.invars if type(v) is Var)
    kept.append(_dce_params(eqn, memo))
  if len(kept) == len(jaxpr.eqns) and all(a is b for a, b in zip(kept, reversed(jaxpr.eqns))):
    return jaxpr
  return jaxpr.replace(eqns=kept[::-1])


def dce_closed_jaxpr(closed: ClosedJaxpr, memo: dict | None = None) -> ClosedJaxpr:
  """`dce_jaxpr` of a closed jaxpr (the same object when nothing is dead)."""
  memo = {} if memo is None else memo
  key = id(closed)
  if key not in memo:
    jaxpr = dce_jaxpr(closed.jaxpr, memo)
    memo[key] = (closed, closed if jaxpr is closed.jaxpr else ClosedJaxpr(jaxpr, closed.consts))
  return memo[key][1]


def _dce_param(value: Any, memo: dict) -> Any:
  if type(value) is ClosedJaxpr:
    return dce_closed_jaxpr(value, memo)
  if type(value) is tuple and value and all(type(v) is ClosedJaxpr for v in value):
    return tuple(dce_closed_jaxpr(v, memo) for v in value)
  return value


def _dce_params(eqn: JaxprEqn, memo: dict) -> JaxprEqn:
  params = {k: _dce_param(v, memo) for k, v in eqn.params.items()}
  if all(params[k] is v for k, v in eqn.params.items()):
    return eqn
  return eqn.replace(params=params)
