"""Dead-code elimination on jaxprs: drop equations whose results are never used and that have
no effect (`jaxpr.eqn_effects`: a host callback printing something, a side-effecting kernel).

Higher-order primitives have rules in `dce_rules` that prune their own unused outputs and the
inputs only those need: `jit` (the callee's unused outputs), `cond` (the unused outputs of all
branches), `scan` (unused stacked outputs and the carries only they need, to a fixpoint, as JAX
does) and `while` (carries neither the loop's users, the predicate nor another live carry need).
Other primitives holding jaxprs (custom derivative and remat bodies) keep every output, and their
jaxprs are cleaned inside. A sub-jaxpr pruned the same way for several equations is pruned once,
so callers that compare jaxprs by identity (the lowering's one-function-per-callee cache) still
see one callee.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Callable, Iterator, Sequence

from stablejax import core
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eqn_effects, replace_subjaxprs
from stablejax.lax.call import jit_p
from stablejax.lax.control_flow.cond import cond_p
from stablejax.lax.control_flow.scan import scan_p
from stablejax.lax.control_flow.while_loop import while_p

# rule(used_outputs, eqn) -> (used_inputs, the equation computing the used outputs from the
# used inputs, or None to drop it). Called only for equations with a used output or an effect;
# an effectful equation must be kept (with its effects), even with no output used.
DceRule = Callable[[list[bool], JaxprEqn], tuple[list[bool], JaxprEqn | None]]
dce_rules: dict[core.Primitive, DceRule] = {}


def dce_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
  """`jaxpr` without the equations none of its outputs depend on (the same object when nothing
  is dead); its inputs and outputs are unchanged."""
  with _memo_scope():
    return prune_jaxpr(jaxpr, [True] * len(jaxpr.outvars), True)[0]


def dce_closed_jaxpr(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`dce_jaxpr` of a closed jaxpr (the same object when nothing is dead)."""
  with _memo_scope():
    return prune_jaxpr(closed, [True] * len(closed.jaxpr.outvars), True)[0]


def prune_jaxpr(j: ClosedJaxpr | Jaxpr, used_outputs: Sequence[bool],
                instantiate: bool | Sequence[bool]) -> tuple[ClosedJaxpr | Jaxpr, list[bool]]:
  """`j` computing only its `used_outputs`, taking only the inputs they need (and those marked
  in `instantiate`), and which of its inputs it still takes. Pruned once per (jaxpr, used
  outputs, instantiate) within one pass."""
  n_in = len(_open(j).invars)
  inst = (instantiate,) * n_in if isinstance(instantiate, bool) else tuple(instantiate)
  key = (id(j), tuple(used_outputs), inst)
  memo = _memo()
  if key not in memo:
    memo[key] = (j, _prune(j, list(used_outputs), inst))
  return memo[key][1]


def _prune(j: ClosedJaxpr | Jaxpr, used_outputs: list[bool], instantiate: tuple[bool, ...]
           ) -> tuple[ClosedJaxpr | Jaxpr, list[bool]]:
  jaxpr = _open(j)
  live = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is Var}
  kept: list[JaxprEqn] = []
  for eqn in reversed(jaxpr.eqns):
    used = [v in live for v in eqn.outvars]
    if not any(used) and not eqn_effects(eqn):
      continue
    rule = dce_rules.get(eqn.primitive)
    if rule is None and not eqn.params:  # the common case: all inputs used, nothing inside
      live.update([v for v in eqn.invars if type(v) is Var])
      kept.append(eqn)
      continue
    used_inputs, new = (rule or _generic_rule)(used, eqn)
    if new is None:
      continue
    live.update(v for v, u in zip(eqn.invars, used_inputs) if u and type(v) is Var)
    kept.append(new)
  used_inputs = [v in live or i for v, i in zip(jaxpr.invars, instantiate)]
  unchanged = (all(used_outputs) and all(used_inputs) and len(kept) == len(jaxpr.eqns) and
               all(a is b for a, b in zip(kept, reversed(jaxpr.eqns))))
  if unchanged:
    return j, used_inputs
  new_jaxpr = jaxpr.replace(invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u],
                            outvars=[v for v, u in zip(jaxpr.outvars, used_outputs) if u],
                            eqns=kept[::-1])
  return (ClosedJaxpr(new_jaxpr, j.consts) if type(j) is ClosedJaxpr else new_jaxpr), used_inputs


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


def _keep(seq: Sequence, flags: Sequence[bool]) -> list:
  return [x for x, f in zip(seq, flags) if f]


def _rebuild(eqn: JaxprEqn, used_inputs: list[bool], used_outputs: list[bool], **params
             ) -> JaxprEqn:
  """`eqn` with only the used inputs and outputs and the new `params` (`eqn` itself when
  nothing changed)."""
  if all(used_inputs) and all(used_outputs) and all(eqn.params[k] is v for k, v in params.items()):
    return eqn
  return eqn.replace(invars=_keep(eqn.invars, used_inputs),
                     outvars=_keep(eqn.outvars, used_outputs), params={**eqn.params, **params})


# ----------------------------------------------------------------------------------------------
# Rules


def _generic_rule(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  """Every input used, every output kept; jaxprs in params cleaned keeping their outputs."""
  def clean(j):
    return prune_jaxpr(j, [True] * len(_open(j).outvars), True)[0]
  return [True] * len(eqn.invars), replace_subjaxprs(eqn, clean)


def _jit_rule(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  callee, used_inputs = prune_jaxpr(eqn.params["jaxpr"], used_outputs, False)
  return used_inputs, _rebuild(eqn, used_inputs, used_outputs, jaxpr=callee)


def _cond_rule(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  branches = eqn.params["branches"]
  used_ops = [False] * (len(eqn.invars) - 1)
  for b in branches:
    used_ops = [a or u for a, u in zip(used_ops, prune_jaxpr(b, used_outputs, False)[1])]
  new_branches = tuple(prune_jaxpr(b, used_outputs, used_ops)[0] for b in branches)
  if all(a is b for a, b in zip(new_branches, branches)):
    new_branches = branches
  used_inputs = [True] + used_ops
  return used_inputs, _rebuild(eqn, used_inputs, used_outputs, branches=new_branches)


def _fixpoint(used: list[bool], needs: Callable[[list[bool]], list[bool]]) -> list[bool]:
  """The least superset of `used` closed under `needs` (the carries live ones read)."""
  while True:
    grown = [a or b for a, b in zip(used, needs(used))]
    if grown == used:
      return used
    used = grown


def _scan_rule(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  params = eqn.params
  body, n_consts, n_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
  used_ys = used_outputs[n_carry:]
  n_xs = len(eqn.invars) - n_consts - n_carry

  def needs(carry: list[bool]) -> list[bool]:
    return prune_jaxpr(body, carry + used_ys, False)[1][n_consts:n_consts + n_carry]

  used_carry = _fixpoint(used_outputs[:n_carry], needs)
  new_body, used_inputs = prune_jaxpr(body, used_carry + used_ys,
                                      [False] * n_consts + used_carry + [False] * n_xs)
  if all(used_inputs) and all(used_ys):
    return used_inputs, _rebuild(eqn, used_inputs, used_carry + used_ys, jaxpr=new_body)
  return used_inputs, _rebuild(
      eqn, used_inputs, used_carry + used_ys, jaxpr=new_body,
      num_consts=sum(used_inputs[:n_consts]), num_carry=sum(used_carry),
      linear=tuple(_keep(params["linear"], used_inputs)))


def _while_rule(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  params = eqn.params
  cond, body = params["cond_jaxpr"], params["body_jaxpr"]
  n_cond, n_body = params["cond_nconsts"], params["body_nconsts"]
  pred_needs = prune_jaxpr(cond, [True], False)[1][n_cond:]
  used_carry = _fixpoint([a or b for a, b in zip(used_outputs, pred_needs)],
                         lambda carry: prune_jaxpr(body, carry, False)[1][n_body:])
  new_cond, cond_used = prune_jaxpr(cond, [True], [False] * n_cond + used_carry)
  new_body, body_used = prune_jaxpr(body, used_carry, [False] * n_body + used_carry)
  used_inputs = cond_used[:n_cond] + body_used[:n_body] + used_carry
  if all(used_inputs):
    return used_inputs, _rebuild(eqn, used_inputs, used_carry, cond_jaxpr=new_cond,
                                 body_jaxpr=new_body)
  return used_inputs, _rebuild(
      eqn, used_inputs, used_carry, cond_jaxpr=new_cond, body_jaxpr=new_body,
      cond_nconsts=sum(cond_used[:n_cond]), body_nconsts=sum(body_used[:n_body]))


dce_rules[jit_p] = _jit_rule
dce_rules[cond_p] = _cond_rule
dce_rules[scan_p] = _scan_rule
dce_rules[while_p] = _while_rule
