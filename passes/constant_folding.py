"""Constant folding of jaxprs: an equation whose inputs are all known (literals, consts of the
closed jaxpr, results folded before) is evaluated now with its primitive's numpy reference
(`stablejax.lax.primitive_kit.evaluate_reference`). A scalar result becomes a literal; a larger one a
new const of the top-level jaxpr (if something reads it). Only results of at most `max_size`
elements are made (default `sj.config.constant_folding_max_size`, 1024), so no large constant
is materialized; effectful equations and those holding jaxprs (control flow, calls) are never
folded. The references agree with XLA to within rounding, not bit for bit: a program whose
control flow turns on the last bit of a value (an iteration count of a convergence loop) may
change with folding, so the default pipeline leaves it out."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablejax import core
from stablejax.config import config
from stablejax.jaxpr import (Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eqn_effects,
                             subjaxprs)
from stablejax.lax.primitive_kit import evaluate_reference, reference_impls
from stablejax.passes.traversal import JaxprMap, rebuild


def fold_constants(closed: ClosedJaxpr, max_size: int | None = None) -> ClosedJaxpr:
  """`closed` with its equations on known values evaluated (in every sub-jaxpr too, where only
  scalar results are folded: a sub-jaxpr takes no new consts)."""
  limit = config.constant_folding_max_size if max_size is None else max_size
  top = closed.jaxpr

  def rewrite(jaxpr: Jaxpr, consts: list | None, jaxpr_map: JaxprMap):
    return _Folder(limit, consts if jaxpr is top else None).run(jaxpr, jaxpr_map, consts)
  return JaxprMap(rewrite)(closed)


class _Folder:
  """The known values of one jaxpr, and the consts it gains (None: it can gain none)."""

  def __init__(self, limit: int, new_consts: list | None):
    self.limit = limit
    self.new_consts = None if new_consts is None else []
    self.new_constvars: list[Var] = []
    self.known: dict[Var, Any] = {}

  def run(self, jaxpr: Jaxpr, jaxpr_map: JaxprMap, consts: list | None
          ) -> tuple[Jaxpr, list | None]:
    if consts is not None:
      self.known.update((v, c) for v, c in zip(jaxpr.constvars, consts)
                        if math.prod(v.aval.shape) <= self.limit)
    env: dict[Var, Atom] = {}
    eqns: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
      eqn = jaxpr_map.eqn(eqn, env)
      folded = self._fold(eqn) if self._foldable(eqn) else None
      if folded is None:
        eqns.append(eqn)
      else:
        env.update(zip(eqn.outvars, folded))
    new = rebuild(jaxpr, eqns, env)
    used = {x for e in new.eqns for x in e.invars} | set(new.outvars)
    kept = [(v, c) for v, c in zip(self.new_constvars, self.new_consts or []) if v in used]
    if not kept:
      return new, consts
    return (new.replace(constvars=jaxpr.constvars + [v for v, _ in kept]),
            consts + [c for _, c in kept])

  def _foldable(self, eqn: JaxprEqn) -> bool:
    return (eqn.primitive in reference_impls and
            all(type(x) is Literal or x in self.known for x in eqn.invars) and
            all(math.prod(v.aval.shape) <= self.limit for v in eqn.outvars) and
            (self.new_consts is not None or all(v.aval.shape == () for v in eqn.outvars)) and
            not eqn_effects(eqn) and next(subjaxprs(eqn), None) is None)

  def _fold(self, eqn: JaxprEqn) -> list[Atom]:
    args = [x.val if type(x) is Literal else self.known[x] for x in eqn.invars]
    args = [np.asarray(a, x.aval.dtype) for a, x in zip(args, eqn.invars)]
    outs = evaluate_reference(eqn.primitive, *args, **eqn.params)
    outs = outs if eqn.primitive.multiple_results else [outs]
    return [self._atom(v.aval, np.asarray(val, v.aval.dtype)) for v, val in zip(eqn.outvars, outs)]

  def _atom(self, aval: core.ShapedArray, val: np.ndarray) -> Atom:
    if aval.shape == ():
      return Literal(val[()], aval)
    var = Var(aval)
    self.new_constvars.append(var)
    self.new_consts.append(val)
    self.known[var] = val
    return var
