"""Dead-code elimination on jaxprs (JAX's `pe.dce_jaxpr`): drop equations whose results are never
used and that have no effect (`jaxpr.eqn_effects`: a host callback printing something, a
side-effecting kernel).

A higher-order primitive registers a rule in `dce_rules`, from its family file, that prunes its
own unused outputs and the inputs only those need (`jit`, `cond`, `scan`, `while`, ...). Other
primitives holding jaxprs keep every output, and their jaxprs are cleaned inside. A sub-jaxpr
pruned the same way for several equations is pruned once, so callers that compare jaxprs by
identity (the lowering's one-function-per-callee cache) still see one callee. The `dce` pass
(stablejax.passes.dce) runs this before every lowering.
"""
from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Callable, Iterator, Sequence, TypeVar

from stablejax import core
from stablejax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Var, eqn_effects, has_subjaxprs,
                             replace_subjaxprs)

# rule(used_outputs, eqn) -> (used_inputs, the equation computing the used outputs from the
# used inputs, or None to drop it). Called only for equations with a used output or an effect;
# an effectful equation must be kept (with its effects), even with no output used.
DceRule = Callable[[list[bool], JaxprEqn], tuple[list[bool], JaxprEqn | None]]
dce_rules: dict[core.Primitive, DceRule] = {}

J = TypeVar("J", ClosedJaxpr, Jaxpr)
# The jaxprs that pruning with every output used left unchanged (every input used, not only
# instantiated; nothing dead): pruned again (jit's unused-argument check, then the `dce` pass), they are answered at
# once. Jaxprs are not changed in place.
_clean: weakref.WeakSet = weakref.WeakSet()


def dce_jaxpr(j: J) -> J:
  """`j` without the equations none of its outputs depend on (the same object when nothing
  is dead); its inputs and outputs are unchanged."""
  with _memo_scope():
    return prune_jaxpr(j, [True] * len(_open(j).outvars), True)[0]


def prune_jaxpr(j: J, used_outputs: Sequence[bool], instantiate: bool | Sequence[bool]
                ) -> tuple[J, list[bool]]:
  """`j` computing only its `used_outputs`, taking only the inputs they need (and those marked
  in `instantiate`), and which of its inputs it still takes. Pruned once per (jaxpr, used
  outputs, instantiate) within one pass."""
  n_in = len(_open(j).invars)
  if j in _clean and all(used_outputs):
    return j, [True] * n_in
  inst = (instantiate,) * n_in if isinstance(instantiate, bool) else tuple(instantiate)
  key = (id(j), tuple(used_outputs), inst)
  memo = _memo()
  if key not in memo:
    memo[key] = (j, _prune(j, list(used_outputs), inst))
  return memo[key][1]


def _prune(j: ClosedJaxpr | Jaxpr, used_outputs: list[bool], instantiate: tuple[bool, ...]
           ) -> tuple[ClosedJaxpr | Jaxpr, list[bool]]:
  jaxpr = _open(j)
  all_used = all(used_outputs)
  read = _read_if_all_live(jaxpr) if all_used else None
  live, kept = (read, None) if read is not None else _live_equations(jaxpr, used_outputs)
  used_inputs = [v in live or i for v, i in zip(jaxpr.invars, instantiate)]
  if kept is None and all_used and all(used_inputs):
    if all(v in live for v in jaxpr.invars):  # (used, not only instantiated)
      _clean.add(j)
    return j, used_inputs
  new_jaxpr = jaxpr.replace(invars=keep(jaxpr.invars, used_inputs),
                            outvars=keep(jaxpr.outvars, used_outputs),
                            eqns=jaxpr.eqns if kept is None else kept)
  return (ClosedJaxpr(new_jaxpr, j.consts) if type(j) is ClosedJaxpr else new_jaxpr), used_inputs


def _live_equations(jaxpr: Jaxpr, used_outputs: list[bool]
                    ) -> tuple[set[Var], list[JaxprEqn] | None]:
  """The variables the equations computing `used_outputs` read, and those equations (None:
  all of them, unchanged)."""
  live = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is Var}
  kept: list[JaxprEqn] = []
  for eqn in reversed(jaxpr.eqns):
    used = [v in live for v in eqn.outvars]
    if not any(used) and not eqn_effects(eqn):
      continue
    rule = dce_rules.get(eqn.primitive)
    if rule is None and (not eqn.params or not has_subjaxprs(eqn)):  # all inputs used
      live.update([v for v in eqn.invars if type(v) is Var])
      kept.append(eqn)
      continue
    used_inputs, new = (rule or _generic_rule)(used, eqn)
    if new is None:
      continue
    live.update(v for v, u in zip(eqn.invars, used_inputs) if u and type(v) is Var)
    kept.append(new)
  if len(kept) == len(jaxpr.eqns) and all(a is b for a, b in zip(kept, reversed(jaxpr.eqns))):
    return live, None
  return live, kept[::-1]


def _read_if_all_live(jaxpr: Jaxpr) -> set | None:
  """The atoms `jaxpr`'s equations and outputs read, if every output of every equation is
  among them and no equation has a rule or jaxprs to prune; else None. Then nothing is dead:
  each equation's outputs are read by a later one or by the jaxpr's outputs, so by induction
  from the last, every equation is live. Most programs are so, and this check takes a third
  of the time of the pass that would find out."""
  read = set(jaxpr.outvars)
  for eqn in jaxpr.eqns:
    if not eqn.outvars or eqn.primitive in dce_rules or eqn.params and has_subjaxprs(eqn):
      return None  # (an equation without outputs is live only by its effects)
    read.update(eqn.invars)
  for eqn in jaxpr.eqns:
    for v in eqn.outvars:
      if v not in read:
        return None
  return read


def _open(j: ClosedJaxpr | Jaxpr) -> Jaxpr:
  return j.jaxpr if type(j) is ClosedJaxpr else j


_state = threading.local()


def _memo() -> dict:
  memo = getattr(_state, "memo", None)
  return {} if memo is None else memo


@contextlib.contextmanager
def _memo_scope() -> Iterator[None]:
  """One memo of pruned sub-jaxprs for one pass (the outermost scope's)."""
  outer = getattr(_state, "memo", None)
  _state.memo = {} if outer is None else outer
  try:
    yield
  finally:
    _state.memo = outer


def _generic_rule(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  """Every input used, every output kept; jaxprs in params cleaned keeping their outputs."""
  def clean(j):
    return prune_jaxpr(j, [True] * len(_open(j).outvars), True)[0]
  return [True] * len(eqn.invars), replace_subjaxprs(eqn, clean)


# ----------------------------------------------------------------------------------------------
# Helpers for the rules

def keep(seq: Sequence, flags: Sequence[bool]) -> list:
  """The items of `seq` whose flag is set."""
  return [x for x, f in zip(seq, flags) if f]


def rebuild_eqn(eqn: JaxprEqn, used_inputs: Sequence[bool], used_outputs: Sequence[bool],
                **params) -> JaxprEqn:
  """`eqn` with only the used inputs and outputs and the new `params` (`eqn` itself when
  nothing changed)."""
  if all(used_inputs) and all(used_outputs) and all(eqn.params[k] is v for k, v in params.items()):
    return eqn
  return eqn.replace(invars=keep(eqn.invars, used_inputs),
                     outvars=keep(eqn.outvars, used_outputs), params={**eqn.params, **params})


def used_fixpoint(used: list[bool], needs: Callable[[list[bool]], list[bool]]) -> list[bool]:
  """The least superset of `used` closed under `needs` (a loop's carries that live ones read)."""
  while True:
    grown = [a or b for a, b in zip(used, needs(used))]
    if grown == used:
      return used
    used = grown
