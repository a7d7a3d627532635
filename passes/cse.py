"""Common subexpression elimination on jaxprs: an equation with the same primitive, the same
params and the same inputs as an earlier one is dropped and its results are read from the
earlier one's. Params compare by value when hashable and by identity otherwise (jaxprs,
callables, arrays), so two calls of the same nested `jit` on the same arguments become one.
Effectful equations (`jaxpr.eqn_effects`) and those asking not to be (`prevent_cse` of
`checkpoint`) are never merged."""
from __future__ import annotations

from typing import Any, Hashable

import numpy as np

from stablejax.jaxpr import (Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eqn_effects)
from stablejax.passes.traversal import JaxprMap, rebuild


def cse(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` with repeated pure equations computed once (in every sub-jaxpr too)."""
  return JaxprMap(_cse)(closed)


def _cse(jaxpr: Jaxpr, consts: list | None, jaxpr_map: JaxprMap) -> tuple[Jaxpr, list | None]:
  env: dict[Var, Atom] = {}
  seen: dict[Hashable, list[Var]] = {}
  eqns: list[JaxprEqn] = []
  for eqn in jaxpr.eqns:
    eqn = jaxpr_map.eqn(eqn, env)
    key = None if eqn_effects(eqn) or eqn.params.get("prevent_cse") else _eqn_key(eqn)
    if key is not None and key in seen:
      env.update(zip(eqn.outvars, seen[key]))
      continue
    if key is not None:
      seen[key] = eqn.outvars
    eqns.append(eqn)
  return rebuild(jaxpr, eqns, env), consts


def _eqn_key(eqn: JaxprEqn) -> Hashable | None:
  """What makes two equations compute the same values (None: never merged)."""
  params = tuple(sorted((k, _param_key(v)) for k, v in eqn.params.items()))
  key = (eqn.primitive, params, tuple(map(_atom_key, eqn.invars)))
  try:
    hash(key)
  except TypeError:
    return None
  return key


def _param_key(v: Any) -> Hashable:
  if isinstance(v, (Jaxpr, ClosedJaxpr)) or (callable(v) and not isinstance(v, type)):
    return ("id", id(v))
  if type(v) is tuple:
    return tuple(map(_param_key, v))
  try:
    hash(v)
  except TypeError:
    return ("id", id(v))
  return (type(v), v)


def _atom_key(x: Atom) -> Hashable:
  if type(x) is Literal:
    return ("literal", x.aval, np.asarray(x.val, x.aval.dtype).tobytes())
  return x
