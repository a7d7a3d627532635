"""Algebraic simplification of jaxprs: `x * 1`, `x + 0`, `x - 0`, `neg (neg x)`, a `transpose`
of a `transpose` (one transpose by the composed permutation, none if it is the identity), a
`reshape` of a `reshape`, `convert_element_type` to the type `x` has, `broadcast_in_dim` to the
shape `x` has, and `select_n` with a literal predicate. A result is replaced by an operand only
when their types (shape, dtype, weak type) are the same, so no result's type changes.

`x + 0.0` is `x` as in XLA's algebraic simplifier, except that `-0.0 + 0.0` is `0.0`: the two
compare equal. The rules live in `stablejax.simplify_rules`'s table, each registered in its
primitive's family file (`simplify_rules[prim] = rule(eqn, producer)`: it returns an atom that
replaces the result, a new equation, or None; `producer(x)` is the equation defining `x`)."""
from __future__ import annotations

from stablejax.jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eqn_effects
from stablejax.passes.traversal import JaxprMap, rebuild
from stablejax.simplify_rules import simplify_rules


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
