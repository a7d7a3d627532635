"""The `discharge` pass: a jaxpr that makes, reads and writes refs (stablejax/lax/state.py)
becomes a functional one, each ref replaced by its current value and each access by its
discharge rule, so that no ref reaches the lowering. The pipeline runs it before the other
passes on every jaxpr with ref effects; a jaxpr taking refs as arguments gets their final
values as extra results (`discharge_refs`), which `jit` writes back into the refs."""
from __future__ import annotations

from typing import Any, Sequence

from stablejax import core
from stablejax.interpreters import partial_eval as pe
from stablejax.jaxpr import (ClosedJaxpr, Jaxpr, Literal, Var, call_primitives, eqn_effects,
                             replace_subjaxprs)
from stablejax.lax.control_flow.cond import cond_p
from stablejax.lax.control_flow.scan import scan_p
from stablejax.lax.control_flow.while_loop import while_p
from stablejax.interpreters import ad
from stablejax.lax.state import (AbstractRef, Ref, allocators, discharge_rules, ref_effect,
                                 ref_get)

__all__ = ["discharge_internal", "discharge_linear", "discharge_refs", "discharge_state", "has_refs",
           "hoist_ref_consts"]


class _Box:
  """A ref during discharge: its current value."""
  __slots__ = ("value",)

  def __init__(self, value: Any):
    self.value = value


def has_refs(closed: ClosedJaxpr) -> bool:
  """Whether `closed` takes, makes or uses refs."""
  return (ref_effect in closed.jaxpr.effects or
          any(isinstance(a, AbstractRef) for a in closed.in_avals))


def hoist_ref_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
  """`closed` with the refs it closes over made leading arguments, and those refs."""
  is_ref = [isinstance(c, Ref) for c in closed.consts]
  if not any(is_ref):
    return closed, []
  jaxpr = closed.jaxpr
  ref_vars = [v for v, r in zip(jaxpr.constvars, is_ref) if r]
  jaxpr = jaxpr.replace(constvars=[v for v, r in zip(jaxpr.constvars, is_ref) if not r],
                        invars=ref_vars + jaxpr.invars)
  return (ClosedJaxpr(jaxpr, [c for c, r in zip(closed.consts, is_ref) if not r]),
          [c for c, r in zip(closed.consts, is_ref) if r])


def _sub(j: ClosedJaxpr | Jaxpr) -> ClosedJaxpr | Jaxpr:
  """A sub-jaxpr discharged, its signature kept (its refs are its own)."""
  closed = j if isinstance(j, ClosedJaxpr) else ClosedJaxpr(j, [])
  if not has_refs(closed):
    return j
  out = discharge_state(closed)
  if isinstance(j, ClosedJaxpr):
    return out
  if out.consts:
    raise NotImplementedError("discharging the refs of a sub-jaxpr that needs constants")
  return out.jaxpr


def _apply(eqn: Any, ins: list) -> Any:
  """One equation on values and boxes: a ref primitive runs its discharge rule, a call with
  refs is inlined, any other equation is bound with its sub-jaxprs discharged."""
  p = eqn.primitive
  if p in allocators:
    return _Box(allocators[p](*ins, **eqn.params))
  if p in discharge_rules:
    box = ins[0]
    box.value, out = discharge_rules[p](box.value, *ins[1:], **eqn.params)
    return out
  boxed = any(type(x) is _Box for x in ins)
  if boxed and p in control_flow_rules:
    return control_flow_rules[p](eqn, ins)
  if boxed and p in call_primitives:
    callee = eqn.params[call_primitives[p]]
    jaxpr, consts = (callee.jaxpr, callee.consts) if isinstance(callee, ClosedJaxpr) else (
        callee, [])
    return _run(jaxpr, consts, ins)
  if boxed:
    raise NotImplementedError(f"refs passed to '{p.name}' cannot be discharged yet: use the "
                              "ref's value (ref[...]) there, or write to it outside")
  if ref_effect in eqn_effects(eqn):
    eqn = replace_subjaxprs(eqn, _sub)
  with core.transformed_source(eqn.source_info):
    return p.bind(*ins, **eqn.params)


# ----------------------------------------------------------------------------------------------
# Control flow taking refs (closed over by a branch or a loop body): each discharged body takes
# the refs' values and returns their final values, which a loop carries

def _discharged_body(closed: ClosedJaxpr, at: Sequence[int]) -> tuple[Jaxpr, list]:
  """`closed` discharged (its refs at invar positions `at`), with its invars and outvars put
  in the order [ref values, the rest] (the final ref values first among the outputs)."""
  d = discharge_refs(closed)
  j, k = d.jaxpr, len(at)
  rest = [v for i, v in enumerate(j.invars) if i not in at]
  n = len(j.outvars) - k
  return j.replace(invars=[j.invars[i] for i in at] + rest,
                   outvars=j.outvars[n:] + j.outvars[:n]), list(d.consts)


def _write_back(boxes: Sequence[_Box], outs: Sequence) -> list:
  for box, value in zip(boxes, outs):
    box.value = value
  return list(outs[len(boxes):])


def _cond_rule(eqn: Any, ins: list) -> list:
  index, ops = ins[0], ins[1:]
  at = [i for i, x in enumerate(ops) if type(x) is _Box]
  branches = tuple(ClosedJaxpr(*_discharged_body(b, at)) for b in eqn.params["branches"])
  boxes = [ops[i] for i in at]
  rest = [x for i, x in enumerate(ops) if i not in at]
  outs = eqn.primitive.bind(index, *[b.value for b in boxes], *rest,
                            **{**eqn.params, "branches": branches})
  return _write_back(boxes, outs)


def _loop_operands(ins: list, nconsts: int, what: str) -> tuple[list, list, list]:
  """(the refs among a loop body's `nconsts` leading consts, the other consts, the rest)."""
  if any(type(x) is _Box for x in ins[nconsts:]):
    raise NotImplementedError(f"a Ref in a {what}'s carry or scanned operands")
  consts = ins[:nconsts]
  return ([x for x in consts if type(x) is _Box], [x for x in consts if type(x) is not _Box],
          ins[nconsts:])


def _scan_rule(eqn: Any, ins: list) -> list:
  params = dict(eqn.params)
  nc = params["num_consts"]
  boxes, consts, rest = _loop_operands(ins, nc, "scan")
  at = [i for i, x in enumerate(ins[:nc]) if type(x) is _Box]
  body, body_consts = _discharged_body(params["jaxpr"], at)
  k, linear = len(boxes), params["linear"]
  # the body takes [ref values, consts, carry, xs]: the ref values move after the consts
  body = body.replace(invars=body.invars[k:k + nc - k] + body.invars[:k] + body.invars[nc:])
  params.update(jaxpr=ClosedJaxpr(body, body_consts), num_consts=nc - k,
                num_carry=params["num_carry"] + k,
                linear=(*[f for i, f in enumerate(linear[:nc]) if i not in at], *(False,) * k,
                        *linear[nc:]))
  return _write_back(boxes, eqn.primitive.bind(*consts, *[b.value for b in boxes], *rest,
                                               **params))


def _while_rule(eqn: Any, ins: list) -> list:
  params = dict(eqn.params)
  cn, bn = params["cond_nconsts"], params["body_nconsts"]
  if any(type(x) is _Box for x in ins[:cn]):
    raise NotImplementedError("a Ref read in a while loop's condition")
  boxes, consts, rest = _loop_operands(ins[cn:], bn, "while loop")
  at = [i for i, x in enumerate(ins[cn:cn + bn]) if type(x) is _Box]
  body, body_consts = _discharged_body(params["body_jaxpr"], at)
  k = len(boxes)
  body = body.replace(invars=body.invars[k:k + bn - k] + body.invars[:k] + body.invars[bn:])
  cond = params["cond_jaxpr"]
  extra = [Var(core.get_aval(b.value)) for b in boxes]
  cond = ClosedJaxpr(cond.jaxpr.replace(invars=cond.jaxpr.invars[:cn] + extra +
                                        cond.jaxpr.invars[cn:]), cond.consts)
  params.update(body_jaxpr=ClosedJaxpr(body, body_consts), cond_jaxpr=cond,
                body_nconsts=bn - k)
  return _write_back(boxes, eqn.primitive.bind(*ins[:cn], *consts, *[b.value for b in boxes],
                                               *rest, **params))


def _run(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any]) -> list:
  """Evaluate `jaxpr` under the current trace, refs as boxes."""
  env: dict = dict(zip(jaxpr.constvars, consts))
  env.update(zip(jaxpr.invars, args))
  read = lambda x: x.val if type(x) is Literal else env[x]
  for eqn in jaxpr.eqns:
    out = _apply(eqn, [read(x) for x in eqn.invars])
    if eqn.primitive.multiple_results:
      env.update(zip(eqn.outvars, out))
    else:
      env[eqn.outvars[0]] = out
  return [read(x) for x in jaxpr.outvars]


def discharge_refs(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` without refs: each Ref-typed argument taken as its array, and its final value
  returned after the results."""
  if any(isinstance(c, Ref) for c in closed.consts):
    raise TypeError("discharge: a jaxpr closing over Refs (hoist them with hoist_ref_consts)")
  in_avals = [a.inner_aval if isinstance(a, AbstractRef) else a for a in closed.in_avals]

  def fun(*args: Any) -> list:
    boxes = [_Box(x) if isinstance(a, AbstractRef) else x
             for x, a in zip(args, closed.in_avals)]
    outs = _run(closed.jaxpr, closed.consts, boxes)
    if any(type(x) is _Box for x in outs):
      raise ValueError("a traced function returned a mutable array reference (Ref), but "
                       "mutable array references cannot be returned; return freeze(ref) or "
                       "ref[...]")
    return outs + [b.value for b in boxes if type(b) is _Box]
  jaxpr, consts = pe.trace_to_jaxpr(fun, in_avals)
  return ClosedJaxpr(jaxpr, consts)


def discharge_linear(closed: ClosedJaxpr) -> ClosedJaxpr:
  """A linearized jaxpr (`ad.linearize_flat`) without its tangent refs, its signature kept: the
  refs among its residuals are read now, their values its residuals instead."""
  if not has_refs(closed):
    return closed
  hoisted, refs = hoist_ref_consts(closed)
  discharged = discharge_refs(hoisted)
  out = discharged.jaxpr
  values = [r._buf if type(r) is Ref else ref_get(r) for r in refs]
  k, n = len(refs), len(closed.jaxpr.outvars)
  jaxpr = out.replace(constvars=out.constvars + out.invars[:k], invars=out.invars[k:],
                      outvars=out.outvars[:n])
  return ClosedJaxpr(jaxpr, [*discharged.consts, *values])


def discharge_state(closed: ClosedJaxpr) -> ClosedJaxpr:
  """The `discharge` pass: `closed` without the refs it makes (its signature kept)."""
  if not has_refs(closed):
    return closed
  if any(isinstance(a, AbstractRef) for a in closed.in_avals):
    raise NotImplementedError("lowering a function that takes Refs as arguments: call it with "
                              "jit, which passes the refs' values and writes them back")
  return discharge_refs(closed)


def discharge_internal(closed: ClosedJaxpr) -> ClosedJaxpr:
  """`closed` without the refs it makes, if it takes none (else as it is)."""
  if any(isinstance(a, AbstractRef) for a in closed.in_avals):
    return closed
  return discharge_state(closed)


# higher-order primitive -> rule(eqn, values and boxes) -> outputs, for those taking refs
control_flow_rules: dict[core.Primitive, Any] = {cond_p: _cond_rule, scan_p: _scan_rule,
                                                 while_p: _while_rule}
for _p in (*control_flow_rules, *call_primitives):  # (the calls are inlined by `_apply`)
  _p.takes_refs = True
ad.linear_jaxpr_rewrites.append(discharge_linear)
ad.jvp_jaxpr_rewrites.append(discharge_internal)
