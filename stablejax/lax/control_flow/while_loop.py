"""`while_loop`: the `while` primitive, which applies `body_jaxpr` to a carry while `cond_jaxpr`
holds, with its abstract evaluation, JVP, batching and partial evaluation rules
(its lowering is in `stablejax.lowering.rules.control_flow.while_loop`). Reverse mode through it
is an error, as in JAX."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, lax
from stablejax.interpreters import ad, batching, dce, flops, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, jaxpr_as_fun
from stablejax.lax.control_flow.common import (
    avals_str, broadcast_per_example, carry_fixpoint, check_types, promote_weak,
    trace_to_jaxpr_with_consts, tree_args, with_binders)
from stablejax.tree_util import PyTreeDef, tree_flatten, tree_unflatten
from stablejax.util import merge_lists, split_list

__all__ = ["while_loop", "while_p"]

while_p = core.Primitive("while")
while_p.multiple_results = True

_REVERSE_MODE_ERROR = (
    "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
    "dynamic start/stop values: the number of iterations is unknown when the loop is staged. "
    "Use lax.scan, or lax.fori_loop with static (Python int) start/stop values, instead.")


# ----------------------------------------------------------------------------------------------
# The user-facing function

def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any) -> Any:
  """Apply `body_fun` to the carry, starting from `init_val`, while `cond_fun(carry)` holds."""
  if not (callable(cond_fun) and callable(body_fun)):
    raise TypeError("lax.while_loop: cond_fun and body_fun arguments should be callable, got "
                    f"{cond_fun!r} and {body_fun!r}")
  init_flat, in_tree = tree_flatten(init_val)
  args_tree = tree_args((init_val,))
  body, body_consts, init_flat = _trace_body(body_fun, in_tree, args_tree, init_flat)
  cond, cond_consts, cond_tree = trace_to_jaxpr_with_consts(
      cond_fun, args_tree, [core.get_aval(x) for x in init_flat])
  out = cond.out_avals
  if cond_tree.num_leaves != 1 or not _is_bool_scalar(out):
    raise TypeError(f"lax.while_loop: cond_fun must return a boolean scalar, but got output "
                    f"type(s) {avals_str(out)}")
  moved = _forwarded_carries(cond, len(cond_consts), body, len(body_consts))
  if any(moved):
    cond, body = _move_carries_to_consts(cond, len(cond_consts), body, len(body_consts), moved)
    body_consts = [*(x for x, m in zip(init_flat, moved) if m), *body_consts]
  carry = [x for x, m in zip(init_flat, moved) if not m]
  outs = while_p.bind(*cond_consts, *body_consts, *carry, cond_jaxpr=cond, body_jaxpr=body,
                      cond_nconsts=len(cond_consts), body_nconsts=len(body_consts))
  return tree_unflatten(in_tree, merge_lists(moved, outs, [x for x, m in zip(init_flat, moved)
                                                           if m]))


# A carry the body returns unchanged and the cond does not read becomes a body const, as in
# JAX: the loop's jaxpr is JAX's, and vmap with a batched predicate leaves it unbatched.

def _forwarded_carries(cond: ClosedJaxpr, cond_nconsts: int, body: ClosedJaxpr,
                       body_nconsts: int) -> list[bool]:
  """Which carries the body forwards from input to output and the cond does not read."""
  carry_in = body.jaxpr.invars[body_nconsts:]
  forwarded = [out is v for out, v in zip(body.jaxpr.outvars, carry_in)]
  cond_reads = dce.prune_jaxpr(cond, [True], False)[1][cond_nconsts:]
  return [f and not r for f, r in zip(forwarded, cond_reads)]


def _move_carries_to_consts(cond: ClosedJaxpr, cond_nconsts: int, body: ClosedJaxpr,
                            body_nconsts: int, moved: Sequence[bool]
                            ) -> tuple[ClosedJaxpr, ClosedJaxpr]:
  """The cond without the moved carries, and the body taking them first, before its consts,
  and no longer returning them."""
  cond = dce.prune_jaxpr(cond, [True], [True] * cond_nconsts + [not m for m in moved])[0]
  body = dce.prune_jaxpr(body, [not m for m in moved], True)[0]
  consts, carry = split_list(body.jaxpr.invars, [body_nconsts])
  invars = ([v for v, m in zip(carry, moved) if m] + consts +
            [v for v, m in zip(carry, moved) if not m])
  return cond, ClosedJaxpr(body.jaxpr.replace(invars=invars), body.consts)


def _trace_body(body_fun: Callable, in_tree: PyTreeDef, args_tree: PyTreeDef, init_flat: list
                ) -> tuple[ClosedJaxpr, list, list]:
  """The body's jaxpr and closed-over values, and the initial carry: weakly typed initial
  values the body changes the dtype of are promoted to the dtype it returns (as JAX does)."""
  for _ in range(2):  # the second trace is on the promoted initial values
    avals = [core.get_aval(x) for x in init_flat]
    body, consts, out_tree = trace_to_jaxpr_with_consts(body_fun, args_tree, avals)
    if out_tree != in_tree:
      raise TypeError(f"lax.while_loop: body_fun must return a value of the same pytree "
                      f"structure as its input (the carry), got input {in_tree} and output "
                      f"{out_tree}")
    promoted = [promote_weak(x, o) for x, o in zip(init_flat, body.out_avals)]
    if all(p is x for p, x in zip(promoted, init_flat)):
      break
    init_flat = promoted
  _check_carry(body.out_avals, avals)
  return body, consts, init_flat


def _is_bool_scalar(avals: Sequence[core.ShapedArray]) -> bool:
  return len(avals) == 1 and not avals[0].shape and avals[0].dtype == np.bool_


def _check_carry(out_avals: Sequence[core.ShapedArray], carry: Sequence[core.ShapedArray]
                 ) -> None:
  """The body returns the types of the carry (weak types aside)."""
  check_types("lax.while_loop: body_fun output and input must have identical types: "
              "body_fun returns", out_avals, "the carry has type", carry)


# ----------------------------------------------------------------------------------------------
# Abstract evaluation (evaluated eagerly, a loop is compiled and run on the device)

def _split(args: Sequence, cond_nconsts: int, body_nconsts: int) -> list[list]:
  """(cond consts, body consts, carry)."""
  return split_list(args, [cond_nconsts, body_nconsts])


def _while_abstract_eval(*avals: core.ShapedArray, cond_jaxpr: ClosedJaxpr,
                         body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
                         ) -> list[core.ShapedArray]:
  cond_consts, body_consts, carry = _split(avals, cond_nconsts, body_nconsts)
  for name, jaxpr, ins in (("cond_jaxpr", cond_jaxpr, cond_consts + carry),
                           ("body_jaxpr", body_jaxpr, body_consts + carry)):
    check_types(f"while: {name} takes", jaxpr.in_avals, "its operands are", ins)
  out = cond_jaxpr.out_avals
  if not _is_bool_scalar(out):
    raise TypeError(f"while: cond_jaxpr must return a boolean scalar, got {avals_str(out)}")
  _check_carry(body_jaxpr.out_avals, carry)
  return body_jaxpr.out_avals


while_p.def_abstract_eval(_while_abstract_eval)


# ----------------------------------------------------------------------------------------------
# JVP: the nonzero tangents of the carry become extra carry, body-const tangents extra consts

def _while_jvp(primals, tangents, *, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
               cond_nconsts: int, body_nconsts: int):
  cond_consts, body_consts, carry = _split(primals, cond_nconsts, body_nconsts)
  _, const_tangents, carry_tangents = _split(tangents, cond_nconsts, body_nconsts)
  const_nz = [type(t) is not ad.Zero for t in const_tangents]
  carry_nz = carry_fixpoint(
      [type(t) is not ad.Zero for t in carry_tangents],
      lambda nz: ad.jvp_jaxpr(body_jaxpr, const_nz + nz, nz)[1])
  cond, body = _jvp_jaxprs(cond_jaxpr, body_jaxpr, const_nz, carry_nz)
  nz_const_t = [t for t in const_tangents if type(t) is not ad.Zero]
  carry_t = [ad.instantiate_zeros(t) for t, nz in zip(carry_tangents, carry_nz) if nz]
  outs = while_p.bind(*cond_consts, *body_consts, *nz_const_t, *carry, *carry_t,
                      cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=cond_nconsts,
                      body_nconsts=body_nconsts + len(nz_const_t))
  carry_out, nz_tangents_out = outs[:len(carry)], outs[len(carry):]
  zeros = [ad.Zero.from_primal_value(p) for p, nz in zip(carry_out, carry_nz) if not nz]
  return carry_out, merge_lists(carry_nz, zeros, nz_tangents_out)


def _jvp_jaxprs(cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr, const_nz: list[bool],
                carry_nz: list[bool]) -> tuple[ClosedJaxpr, ClosedJaxpr]:
  """The cond and the JVP of the body over consts, nonzero const tangents, carry and nonzero
  carry tangents (the cond ignores the tangents)."""
  body, _ = ad.jvp_jaxpr(body_jaxpr, const_nz + carry_nz, carry_nz)
  consts, carry, const_t, carry_t = split_list(
      body.jaxpr.invars, [len(const_nz), len(carry_nz), const_nz.count(True)])
  cond = with_binders(cond_jaxpr, cond_jaxpr.jaxpr.invars + [Var(v.aval) for v in carry_t])
  return cond, with_binders(body, consts + const_t + carry + carry_t)


ad.primitive_jvps[while_p] = _while_jvp


# ----------------------------------------------------------------------------------------------
# Batching: batched carries at axis 0; a batched predicate runs until every example is done,
# freezing the carries of the examples already done

def _while_batch(axis_data, args, dims, *, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
                 cond_nconsts: int, body_nconsts: int):
  size = axis_data.size
  cond_consts, body_consts, carry = _split(args, cond_nconsts, body_nconsts)
  cond_dims, body_dims, carry_dims = _split(dims, cond_nconsts, body_nconsts)

  def front(batched):
    return [0 if b else batching.not_mapped for b in batched]

  carry_b = carry_fixpoint(
      [d is not batching.not_mapped for d in carry_dims],
      lambda b: [d is not batching.not_mapped for d in
                 batching.batch_jaxpr(body_jaxpr, axis_data, body_dims + front(b), b)[1]])
  pred_dim, = batching.batch_jaxpr(cond_jaxpr, axis_data, cond_dims + front(carry_b))[1]
  if pred_dim is not batching.not_mapped:
    carry_b = [True] * len(carry)
  carry = [batching.bdim_at_front(x, d, size) if b else x
           for x, d, b in zip(carry, carry_dims, carry_b)]
  cond, _ = batching.batch_jaxpr(cond_jaxpr, axis_data, cond_dims + front(carry_b))
  body, _ = batching.batch_jaxpr(body_jaxpr, axis_data, body_dims + front(carry_b), carry_b)
  if pred_dim is batching.not_mapped:
    outs = while_p.bind(*cond_consts, *body_consts, *carry, cond_jaxpr=cond, body_jaxpr=body,
                        cond_nconsts=cond_nconsts, body_nconsts=body_nconsts)
  else:
    cond, body = _until_all_done(cond, body, cond_nconsts)
    outs = while_p.bind(*cond_consts, *cond_consts, *body_consts, *carry, cond_jaxpr=cond,
                        body_jaxpr=body, cond_nconsts=cond_nconsts,
                        body_nconsts=cond_nconsts + body_nconsts)
  return outs, front(carry_b)


def _until_all_done(cond: ClosedJaxpr, body: ClosedJaxpr, cond_nconsts: int
                    ) -> tuple[ClosedJaxpr, ClosedJaxpr]:
  """From a cond with a per-example predicate: a cond that holds while any example's does, and
  a body (taking the cond's consts first) that leaves the carry of finished examples as is."""
  def any_cond(*args):
    return [lax.reduce_max(jaxpr_as_fun(cond)(*args)[0], (0,))]

  def masked_body(*args):
    cond_consts, rest = args[:cond_nconsts], args[cond_nconsts:]
    carry = rest[len(rest) - len(body.out_avals):]
    pred, = jaxpr_as_fun(cond)(*cond_consts, *carry)
    new = jaxpr_as_fun(body)(*rest)
    return [lax.select_n(broadcast_per_example(pred, x), x, y) for x, y in zip(carry, new)]

  body_avals = cond.in_avals[:cond_nconsts] + body.in_avals
  return (pe.trace_to_closed_jaxpr(any_cond, cond.in_avals),
          pe.trace_to_closed_jaxpr(masked_body, body_avals))


batching.fancy_primitive_batchers[while_p] = _while_batch


# ----------------------------------------------------------------------------------------------
# Partial evaluation: a loop whose carries stay known runs now. With unknown carries (and a
# known predicate), the known carries are computed now by a loop of their own, and the whole
# loop is staged for the unknown ones, recomputing the known part (as JAX does): it cannot be
# split into a known loop and a staged one, which would need every iteration's residuals. So
# reverse mode through it is an error, raised by its transpose: only if a cotangent reaches it.

def _while_partial_eval(trace: pe.PartialEvalTrace, args, params):
  cond_nconsts, body_nconsts = params["cond_nconsts"], params["body_nconsts"]
  unknowns = [trace.is_unknown(x) for x in args]
  cond_uk, body_uk, carry_uk = _split(unknowns, cond_nconsts, body_nconsts)
  carry_uk = carry_fixpoint(
      carry_uk, lambda uk: pe.partial_eval_jaxpr(params["body_jaxpr"], body_uk + uk, False)[2])
  pred_uk, = pe.partial_eval_jaxpr(params["cond_jaxpr"], cond_uk + carry_uk, False)[2]
  if pred_uk:
    raise ValueError(_REVERSE_MODE_ERROR)
  known_outs = _known_loop(trace, args, params, cond_uk, body_uk, carry_uk)
  if not any(carry_uk):
    return known_outs
  staged = trace.stage(while_p, args, params)
  return [s if uk else k for s, k, uk in zip(staged, known_outs, carry_uk)]


def _known_loop(trace: pe.PartialEvalTrace, args: Sequence, params: dict, cond_uk: list[bool],
                body_uk: list[bool], carry_uk: list[bool]) -> list:
  """The known carries of the loop, computed now (None for the unknown ones): a loop over
  them alone, the cond and body restricted to the known values."""
  cond_consts, body_consts, carry = _split(args, params["cond_nconsts"], params["body_nconsts"])
  cond = _known_part(params["cond_jaxpr"], cond_uk + carry_uk, 1)
  body = _known_part(params["body_jaxpr"], body_uk + carry_uk, carry_uk.count(False))
  known = lambda xs, uk: [x for x, u in zip(xs, uk) if not u]
  with core.set_current_trace(trace.parent):
    outs = while_p.bind(*known(cond_consts, cond_uk), *known(body_consts, body_uk),
                        *known(carry, carry_uk), cond_jaxpr=cond, body_jaxpr=body,
                        cond_nconsts=cond_uk.count(False), body_nconsts=body_uk.count(False))
  return merge_lists(carry_uk, outs, [None] * carry_uk.count(True))


def _known_part(closed: ClosedJaxpr, unknowns: list[bool], num_outs: int) -> ClosedJaxpr:
  """The jaxpr computing the first `num_outs` known outputs of `closed` from its known inputs
  (its residual outputs dropped)."""
  known = pe.partial_eval_jaxpr(closed, unknowns, False)[0]
  return ClosedJaxpr(known.jaxpr.replace(outvars=known.jaxpr.outvars[:num_outs]), known.consts)


def _while_transpose(cts, *args, **params):
  raise ValueError(_REVERSE_MODE_ERROR)


ad.primitive_transposes[while_p] = _while_transpose
pe.partial_eval_rules[while_p] = _while_partial_eval


# ----------------------------------------------------------------------------------------------
# Dead-code elimination: the carries neither the loop's users, the predicate nor another live
# carry need

def _while_dce(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  params = eqn.params
  cond, body = params["cond_jaxpr"], params["body_jaxpr"]
  n_cond, n_body = params["cond_nconsts"], params["body_nconsts"]
  pred_needs = dce.prune_jaxpr(cond, [True], False)[1][n_cond:]
  used_carry = dce.used_fixpoint([a or b for a, b in zip(used_outputs, pred_needs)],
                                 lambda carry: dce.prune_jaxpr(body, carry, False)[1][n_body:])
  new_cond, cond_used = dce.prune_jaxpr(cond, [True], [False] * n_cond + used_carry)
  new_body, body_used = dce.prune_jaxpr(body, used_carry, [False] * n_body + used_carry)
  used_inputs = cond_used[:n_cond] + body_used[:n_body] + used_carry
  if all(used_inputs):
    return used_inputs, dce.rebuild_eqn(eqn, used_inputs, used_carry, cond_jaxpr=new_cond,
                                        body_jaxpr=new_body)
  return used_inputs, dce.rebuild_eqn(
      eqn, used_inputs, used_carry, cond_jaxpr=new_cond, body_jaxpr=new_body,
      cond_nconsts=sum(cond_used[:n_cond]), body_nconsts=sum(body_used[:n_body]))


dce.dce_rules[while_p] = _while_dce


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _while_flops(avals_in, avals_out, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts,
                 **_) -> float:
  trips = _while_trip_count(avals_in, flops.open_jaxpr(cond_jaxpr),
                            flops.open_jaxpr(body_jaxpr), cond_nconsts, body_nconsts)
  if trips is None:
    raise flops.UnknownFlopsError(
        "flops: a while_loop with a dynamic trip count has no static FLOPS count (use fori_loop "
        "with static bounds or scan, or register a rule for lax.while_p)")
  cond = flops.jaxpr_flops(cond_jaxpr)
  return trips * (flops.jaxpr_flops(body_jaxpr) + cond) + cond


def _while_trip_count(avals_in: list, cond: Jaxpr, body: Jaxpr, cond_nconsts: int,
                      body_nconsts: int) -> int | None:
  """The trip count of the loop `fori_loop` stages (`i < n` in `cond`, `i + 1` in `body`, `n`
  unchanged), when `i` and `n` start from literals; None for any other loop."""
  carry = avals_in[cond_nconsts + body_nconsts:]
  if len(cond.eqns) != 1 or cond.eqns[0].primitive is not lax.lt_p:
    return None
  index, bound = cond.eqns[0].invars
  cond_carry = cond.invars[cond_nconsts:]
  if index not in cond_carry:
    return None
  i = cond_carry.index(index)
  if not _is_increment(body, body.invars[body_nconsts + i], body.outvars[i]):
    return None
  start = carry[i]
  if type(bound) is Literal:
    stop = bound.val
  elif bound in cond_carry:
    n = cond_carry.index(bound)
    stop = carry[n].value if isinstance(carry[n], flops.LiteralAval) else None
    if body.outvars[n] is not body.invars[body_nconsts + n]:
      return None
  else:
    return None
  if not isinstance(start, flops.LiteralAval) or stop is None:
    return None
  return max(int(stop) - int(start.value), 0)


def _is_increment(body: Jaxpr, var_in: Any, var_out: Any) -> bool:
  """Whether `body` computes `var_out = var_in + 1`."""
  for eqn in body.eqns:
    if eqn.outvars[0] is var_out:
      if eqn.primitive is not lax.add_p:
        return False
      others = [x for x in eqn.invars if x is not var_in]
      return len(others) == 1 and type(others[0]) is Literal and others[0].val == 1
  return False


flops.flops_rules[while_p] = _while_flops
