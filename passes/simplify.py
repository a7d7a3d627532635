"""Algebraic simplification of jaxprs: `x * 1`, `x + 0`, `x - 0`, `neg (neg x)`, a `transpose`
of a `transpose` (one transpose by the composed permutation, none if it is the identity), a
`reshape` of a `reshape`, `convert_element_type` to the type `x` has, `broadcast_in_dim` to the
shape `x` has, and `select_n` with a literal predicate. A result is replaced by an operand only
when their types (shape, dtype, weak type) are the same, so no result's type changes.

`x + 0.0` is `x` as in XLA's algebraic simplifier, except that `-0.0 + 0.0` is `0.0`: the two
compare equal. `simplify_rules[prim] = rule(eqn, producer)` adds a rule: it returns an atom that
replaces the result, a new equation, or None; `producer(x)` is the equation defining `x`."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core
from stablejax.jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eqn_effects
from stablejax.lax.elementwise import (add_p, convert_element_type_p, mul_p, neg_p, select_n_p,
                                       sub_p)
from stablejax.lax.structural import broadcast_in_dim_p, reshape_p, transpose_p
from stablejax.passes.traversal import JaxprMap, rebuild

Producer = Callable[[Atom], JaxprEqn | None]
SimplifyRule = Callable[[JaxprEqn, Producer], Atom | JaxprEqn | None]
simplify_rules: dict[core.Primitive, SimplifyRule] = {}


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` with the identities above applied (in every sub-jaxpr too); equations left dead
  are removed by `dce`."""
  return JaxprMap(_simplify)(closed)


def _simplify(jaxpr: Jaxpr, consts: list | None, jaxpr_map: JaxprMap
              ) -> tuple[Jaxpr, list | None]:
  env: dict[Var, Atom] = {}
  producers: dict[Var, JaxprEqn] = {}
  eqns: list[JaxprEqn] = []
  for eqn in jaxpr.eqns:
    eqn = jaxpr_map.eqn(eqn, env)
    rule = simplify_rules.get(eqn.primitive)
    out = None if rule is None or eqn_effects(eqn) else rule(eqn, lambda x: producers.get(x))
    if isinstance(out, (Var, Literal)):
      env[eqn.outvars[0]] = out
      continue
    eqn = out or eqn
    producers.update((v, eqn) for v in eqn.outvars)
    eqns.append(eqn)
  return rebuild(jaxpr, eqns, env), consts


def _same_type(x: Atom, eqn: JaxprEqn) -> bool:
  return x.aval == eqn.outvars[0].aval


def _is_scalar_literal(x: Atom, value: Any) -> bool:
  return type(x) is Literal and np.shape(x.val) == () and bool(np.asarray(x.val) == value)


def _identity_element(value: int, commutes: bool) -> SimplifyRule:
  """`x op value` is `x` (and `value op x` if `op` commutes)."""
  def rule(eqn: JaxprEqn, producer: Producer) -> Atom | None:
    x, y = eqn.invars
    pairs = ((x, y), (y, x)) if commutes else ((x, y),)
    for a, b in pairs:
      if _is_scalar_literal(b, value) and _same_type(a, eqn):
        return a
    return None
  return rule


def _neg_rule(eqn: JaxprEqn, producer: Producer) -> Atom | None:
  inner = producer(eqn.invars[0])
  if inner is not None and inner.primitive is neg_p and _same_type(inner.invars[0], eqn):
    return inner.invars[0]
  return None


def _transpose_rule(eqn: JaxprEqn, producer: Producer) -> Atom | JaxprEqn | None:
  x, perm = eqn.invars[0], tuple(eqn.params["permutation"])
  inner = producer(x)
  if inner is not None and inner.primitive is transpose_p:
    x, perm = inner.invars[0], tuple(inner.params["permutation"][p] for p in perm)
  if perm == tuple(range(len(perm))):
    return x if _same_type(x, eqn) else None
  if x is eqn.invars[0]:
    return None
  return eqn.replace(invars=[x], params={**eqn.params, "permutation": perm})


def _reshape_rule(eqn: JaxprEqn, producer: Producer) -> Atom | JaxprEqn | None:
  x = eqn.invars[0]
  inner = producer(x)
  if inner is not None and inner.primitive is reshape_p and inner.params["dimensions"] is None:
    x = inner.invars[0]
  if eqn.params["dimensions"] is not None:
    return None
  if _same_type(x, eqn):
    return x
  return None if x is eqn.invars[0] else eqn.replace(invars=[x])


def _same_type_rule(eqn: JaxprEqn, producer: Producer) -> Atom | None:
  """The result is the operand when it has the operand's type (a no-op conversion or
  broadcast)."""
  x = eqn.invars[0]
  return x if len(eqn.invars) == 1 and _same_type(x, eqn) else None


def _select_n_rule(eqn: JaxprEqn, producer: Producer) -> Atom | None:
  which, *cases = eqn.invars
  if type(which) is not Literal or np.shape(which.val) != ():
    return None
  i = int(np.asarray(which.val))
  if 0 <= i < len(cases) and _same_type(cases[i], eqn):
    return cases[i]
  return None


simplify_rules[mul_p] = _identity_element(1, commutes=True)
simplify_rules[add_p] = _identity_element(0, commutes=True)
simplify_rules[sub_p] = _identity_element(0, commutes=False)
simplify_rules[neg_p] = _neg_rule
simplify_rules[transpose_p] = _transpose_rule
simplify_rules[reshape_p] = _reshape_rule
simplify_rules[convert_element_type_p] = _same_type_rule
simplify_rules[broadcast_in_dim_p] = _same_type_rule
simplify_rules[select_n_p] = _select_n_rule
