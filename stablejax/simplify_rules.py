"""The table of algebraic simplification rules (`simplify_rules[prim] = rule(eqn, producer)`),
low enough that each family file in `stablejax.lax` registers its primitives' rules next to their
other rules; the pass that applies them is `stablejax.passes.simplify`. A rule returns an atom
that replaces the equation's result, a new equation, or None; `producer(x)` is the equation
defining `x`. A result is replaced by an operand only when their types (shape, dtype, weak type)
are the same, so no result's type changes."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core
from stablejax.jaxpr import Atom, JaxprEqn, Literal

__all__ = ["Producer", "SimplifyRule", "identity_element", "is_scalar_literal", "same_type",
           "same_type_rule", "simplify_rules"]

Producer = Callable[[Atom], JaxprEqn | None]
SimplifyRule = Callable[[JaxprEqn, Producer], Atom | JaxprEqn | None]
simplify_rules: dict[core.Primitive, SimplifyRule] = {}


def same_type(x: Atom, eqn: JaxprEqn) -> bool:
  """Whether `x` has the type of `eqn`'s (first) result."""
  return x.aval == eqn.outvars[0].aval


def is_scalar_literal(x: Atom, value: Any) -> bool:
  """Whether `x` is a rank-0 literal equal to `value`."""
  return type(x) is Literal and np.shape(x.val) == () and bool(np.asarray(x.val) == value)


def identity_element(value: int, commutes: bool) -> SimplifyRule:
  """`x op value` is `x` (and `value op x` if `op` commutes)."""
  def rule(eqn: JaxprEqn, producer: Producer) -> Atom | None:
    x, y = eqn.invars
    pairs = ((x, y), (y, x)) if commutes else ((x, y),)
    for a, b in pairs:
      if is_scalar_literal(b, value) and same_type(a, eqn):
        return a
    return None
  return rule


def same_type_rule(eqn: JaxprEqn, producer: Producer) -> Atom | None:
  """The result is the operand when it has the operand's type (a no-op conversion or
  broadcast)."""
  x = eqn.invars[0]
  return x if len(eqn.invars) == 1 and same_type(x, eqn) else None
