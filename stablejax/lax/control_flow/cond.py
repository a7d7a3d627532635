"""`cond` and `switch`: the `cond` primitive, which applies one of its `branches` (closed jaxprs
of one type) chosen by an int32 index, with its abstract evaluation, JVP, batching,
partial evaluation and transpose rules (its lowering is in
`stablejax.lowering.rules.control_flow.cond`)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.interpreters import ad, batching, dce, flops, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr, jaxpr_as_fun
from stablejax.lax.control_flow.common import (
    broadcast_per_example, check_types, trace_to_jaxpr_with_consts, with_binders)
from stablejax.tree_util import PyTreeDef, tree_flatten, tree_unflatten
from stablejax.util import merge_lists, partition_list

__all__ = ["cond", "cond_p", "switch"]

cond_p = core.Primitive("cond")
cond_p.multiple_results = True


# ----------------------------------------------------------------------------------------------
# The user-facing functions

_NO_OPERAND = object()


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any,
         operand: Any = _NO_OPERAND) -> Any:
  """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, staged as a `cond`. As JAX's,
  it also takes the operand as the keyword `operand`, and the deprecated form
  `cond(pred, true_operand, true_fun, false_operand, false_fun)` (numpyro calls it)."""
  if not (callable(true_fun) and callable(false_fun)):
    if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
      x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
      return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
    raise TypeError("lax.cond: true_fun and false_fun arguments should be callable, got "
                    f"{true_fun!r} and {false_fun!r}")
  if operand is not _NO_OPERAND:
    if operands:
      raise TypeError(f"if 'operand' keyword is passed then no positional operands can be "
                      f"passed, got operand={operand!r} and positional operands {operands}")
    operands = (operand,)
  aval = _scalar_aval("lax.cond", "predicate", pred)
  if dtypes.kind(aval.dtype) not in "biuf":
    raise TypeError(f"lax.cond: the predicate must be a boolean or a number, got "
                    f"{aval.str_short()}")
  if aval.dtype.kind != "b":
    pred = pred != 0
  index = lax.convert_element_type(pred, np.int32)
  return _bind_cond("lax.cond", index, (false_fun, true_fun), ("false_fun", "true_fun"), operands)


def switch(index: Any, branches: Sequence[Callable], *operands: Any) -> Any:
  """`branches[clamp(0, index, len(branches) - 1)](*operands)`, staged as a `cond`."""
  branches = tuple(branches)
  if not branches:
    raise ValueError("lax.switch: branches must be a non-empty sequence of callables")
  if not all(callable(b) for b in branches):
    raise TypeError(f"lax.switch: branches should be a sequence of callables, got {branches!r}")
  aval = _scalar_aval("lax.switch", "index", index)
  if aval.dtype.kind not in "iu":
    raise TypeError(f"lax.switch: the index must be an integer, got {aval.str_short()}")
  if len(branches) == 1:
    return branches[0](*operands)
  index = lax.convert_element_type(index, np.int32)
  index = lax.clamp(np.int32(0), index, np.int32(len(branches) - 1))
  names = tuple(f"branch {i}" for i in range(len(branches)))
  return _bind_cond("lax.switch", index, branches, names, operands)


def _scalar_aval(api: str, what: str, x: Any) -> core.ShapedArray:
  """The type of `x`, which must be a scalar."""
  try:
    aval = core.get_aval(x)
  except TypeError as e:
    raise TypeError(f"{api}: the {what} must be a scalar array, got {x!r}") from e
  if aval.shape:
    raise TypeError(f"{api}: the {what} must be a scalar, got {aval.str_short()}")
  return aval


def _bind_cond(api: str, index: Any, funs: Sequence[Callable], names: Sequence[str],
               operands: tuple) -> Any:
  """Trace each branch on the operands' types, join their closed-over values and bind."""
  flat, in_tree = tree_flatten((operands, {}))
  avals = [core.get_aval(x) for x in flat]
  jaxprs, consts, out_trees = zip(*[trace_to_jaxpr_with_consts(f, in_tree, avals) for f in funs])
  _check_branch_outputs(api, names, jaxprs, out_trees)
  branches, joined_consts = _join_consts(jaxprs, consts)
  outs = cond_p.bind(index, *joined_consts, *flat, branches=branches)
  return tree_unflatten(out_trees[0], outs)


def _check_branch_outputs(api: str, names: Sequence[str], jaxprs: Sequence[ClosedJaxpr],
                          out_trees: Sequence[PyTreeDef]) -> None:
  """Every branch returns the tree and types (weak types aside) of the first."""
  for name, jaxpr, tree in zip(names[1:], jaxprs[1:], out_trees[1:]):
    if tree != out_trees[0]:
      raise TypeError(f"{api}: branches must return the same pytree structure, but {names[0]} "
                      f"returns {out_trees[0]} and {name} returns {tree}")
    for i, (a, b) in enumerate(zip(jaxprs[0].out_avals, jaxpr.out_avals)):
      if a.shape != b.shape or a.dtype != b.dtype:
        raise TypeError(f"{api}: branches must return equal types, but output {i} (a leaf of "
                        f"{tree}) of {names[0]} has type {a.str_short()} and of {name} has "
                        f"type {b.str_short()}")


def _join_consts(jaxprs: Sequence[ClosedJaxpr], consts: Sequence[list]
                 ) -> tuple[tuple[ClosedJaxpr, ...], list]:
  """Every branch takes all branches' closed-over values (each once) as leading operands."""
  if not any(consts):
    return tuple(jaxprs), []  # the branches as traced (cached: `trace_to_jaxpr_with_consts`)
  joined_consts = list({id(c): c for cs in consts for c in cs}.values())
  joined = []
  for jaxpr, cs in zip(jaxprs, consts):
    own = {id(c): v for c, v in zip(cs, jaxpr.jaxpr.invars)}
    lead = [own[id(c)] if id(c) in own else Var(core.get_aval(c)) for c in joined_consts]
    joined.append(with_binders(jaxpr, lead + jaxpr.jaxpr.invars[len(cs):]))
  return tuple(joined), joined_consts


# ----------------------------------------------------------------------------------------------
# Abstract evaluation (evaluated eagerly, a cond is compiled and run on the device)

def _cond_abstract_eval(index: core.ShapedArray, *avals: core.ShapedArray,
                        branches: tuple[ClosedJaxpr, ...]) -> list[core.ShapedArray]:
  if index.shape or index.dtype != np.int32:
    raise TypeError(f"cond: the branch index must be an i32[] scalar, got {index.str_short()}")
  for i, branch in enumerate(branches):
    check_types(f"cond: branch {i} takes", branch.in_avals, "its operands are", avals)
    check_types(f"cond: branch {i} returns", branch.out_avals, "branch 0 returns",
                branches[0].out_avals)
  return branches[0].out_avals


cond_p.def_abstract_eval(_cond_abstract_eval)


# ----------------------------------------------------------------------------------------------
# JVP: every branch pushes forward the union of the tangents any branch makes nonzero

def _any(flags: Sequence[Sequence[bool]]) -> list[bool]:
  """Elementwise `or` of lists of flags."""
  return [any(fs) for fs in zip(*flags)]


def _cond_jvp(primals, tangents, *, branches: tuple[ClosedJaxpr, ...]):
  index, *operands = primals
  nonzeros = [type(t) is not ad.Zero for t in tangents[1:]]
  out_nonzeros = _any([ad.jvp_jaxpr(b, nonzeros, False)[1] for b in branches])
  jvp_branches = tuple(ad.jvp_jaxpr(b, nonzeros, out_nonzeros)[0] for b in branches)
  outs = cond_p.bind(index, *operands, *[t for t in tangents[1:] if type(t) is not ad.Zero],
                     branches=jvp_branches)
  primals_out, nz_tangents_out = outs[:len(out_nonzeros)], outs[len(out_nonzeros):]
  zeros = [ad.Zero.from_primal_value(p) for p, nz in zip(primals_out, out_nonzeros) if not nz]
  return primals_out, merge_lists(out_nonzeros, zeros, nz_tangents_out)


ad.primitive_jvps[cond_p] = _cond_jvp


# ----------------------------------------------------------------------------------------------
# Batching: a batched index runs every branch and selects per example

def _cond_batch(axis_data, args, dims, *, branches: tuple[ClosedJaxpr, ...]):
  (index, *operands), (index_dim, *op_dims) = args, dims
  if index_dim is not batching.not_mapped:
    index = batching.bdim_at_front(index, index_dim, axis_data.size)
    return _select_branches(index, operands, op_dims, axis_data, branches)
  out_batched = _any([[d is not batching.not_mapped for d in
                       batching.batch_jaxpr(b, axis_data, op_dims)[1]] for b in branches])
  batched = tuple(batching.batch_jaxpr(b, axis_data, op_dims, out_batched)[0]
                  for b in branches)
  return (cond_p.bind(index, *operands, branches=batched),
          [0 if b else batching.not_mapped for b in out_batched])


def _select_branches(index: Any, operands: Sequence, op_dims: Sequence,
                     axis_data: batching.AxisData, branches: tuple[ClosedJaxpr, ...]):
  """Every branch's results, batched at axis 0, chosen per example by `index` (`select_n`).
  Each branch sees its operands through a gradient stop where it is not chosen, as in JAX: a
  NaN or inf derivative of a branch not taken (`sqrt` at 0) then stays out of reverse mode."""
  operands = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(operands, op_dims)]
  results = []
  for i, branch in enumerate(branches):
    chosen = lax.eq(index, np.int32(i))
    masked = [lax.select(broadcast_per_example(chosen, x), x, lax.stop_gradient(x))
              for x in operands]
    batched = batching.batch_jaxpr(branch, axis_data, [0] * len(operands), True)[0]
    results.append(jaxpr_as_fun(batched)(*masked))
  outs = [lax.select_n(broadcast_per_example(index, cases[0]), *cases)
          for cases in zip(*results)]
  return outs, [0] * len(outs)


batching.fancy_primitive_batchers[cond_p] = _cond_batch


# ----------------------------------------------------------------------------------------------
# Partial evaluation: with a known index, the known part of every branch runs now as one cond
# and the rest is staged as another, the residuals of all branches passed between them

def _cond_partial_eval(trace: pe.PartialEvalTrace, args, params):
  index, *operands = args
  branches = params["branches"]
  if trace.is_unknown(index):
    return trace.stage(cond_p, args, params)
  unknowns = [trace.is_unknown(x) for x in operands]
  out_unknowns = _any([pe.partial_eval_jaxpr(b, unknowns, False)[2] for b in branches])
  n_known = out_unknowns.count(False)
  splits = [pe.partial_eval_jaxpr(b, unknowns, out_unknowns) for b in branches]
  knowns, staged = _join_residuals(splits, n_known)
  known_ops, unknown_ops = partition_list(unknowns, operands)
  with core.set_current_trace(trace.parent):
    known_outs = cond_p.bind(index, *known_ops, branches=knowns)
  unknown_outs = trace.stage(cond_p, [index, *known_outs[n_known:], *unknown_ops],
                             dict(branches=staged))
  return merge_lists(out_unknowns, known_outs[:n_known], unknown_outs)


def _join_residuals(splits: Sequence[tuple], n_known: int
                    ) -> tuple[tuple[ClosedJaxpr, ...], tuple[ClosedJaxpr, ...]]:
  """Known branches that all output every branch's residuals (zeros for other branches'), and
  unknown branches that all take them."""
  res_avals = [known.out_avals[n_known:] for known, *_ in splits]
  knowns, staged = [], []
  for i, (known, unknown, _, num_res) in enumerate(splits):
    knowns.append(pe.trace_to_closed_jaxpr(_residuals_of(known, i, res_avals, n_known),
                                           known.in_avals))
    lead = [v for j, avals in enumerate(res_avals) for v in
            (unknown.jaxpr.invars[:num_res] if j == i else [Var(a) for a in avals])]
    staged.append(with_binders(unknown, lead + unknown.jaxpr.invars[num_res:]))
  return tuple(knowns), tuple(staged)


def _residuals_of(known: ClosedJaxpr, i: int, res_avals: Sequence[Sequence[core.ShapedArray]],
                  n_known: int) -> Callable[..., list]:
  """Branch `i`'s known part, outputting zeros in the other branches' residual slots."""
  def f(*args):
    outs = eval_jaxpr(known.jaxpr, known.consts, *args)
    residuals = [r for j, avals in enumerate(res_avals) for r in
                 (outs[n_known:] if j == i else [ad.zeros_like_aval(a) for a in avals])]
    return outs[:n_known] + residuals
  return f


pe.partial_eval_rules[cond_p] = _cond_partial_eval


# ----------------------------------------------------------------------------------------------
# Transpose: each branch is transposed with respect to the linear operands

def _cond_transpose(cts, index, *operands, branches: tuple[ClosedJaxpr, ...]):
  if ad.is_undefined_primal(index):
    raise ValueError("cond is not linear in its branch index and cannot be transposed with "
                     "respect to it")
  linear = [ad.is_undefined_primal(x) for x in operands]
  cts = list(map(ad.instantiate_zeros, cts))
  ct_avals = [core.get_aval(ct) for ct in cts]
  ct_branches = tuple(ad.transpose_jaxpr(b, linear, ct_avals) for b in branches)
  nonlinear = [x for x, lin in zip(operands, linear) if not lin]
  cts_in = cond_p.bind(index, *nonlinear, *cts, branches=ct_branches)
  return [None] + merge_lists(linear, [None] * len(nonlinear), cts_in)


ad.primitive_transposes[cond_p] = _cond_transpose


# ----------------------------------------------------------------------------------------------
# Dead-code elimination: the unused outputs of all branches, and the operands no branch needs

def _cond_dce(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
  branches = eqn.params["branches"]
  used_ops = [False] * (len(eqn.invars) - 1)
  for b in branches:
    used_ops = [a or u for a, u in zip(used_ops, dce.prune_jaxpr(b, used_outputs, False)[1])]
  new_branches = tuple(dce.prune_jaxpr(b, used_outputs, used_ops)[0] for b in branches)
  if all(a is b for a, b in zip(new_branches, branches)):
    new_branches = branches
  used_inputs = [True] + used_ops
  return used_inputs, dce.rebuild_eqn(eqn, used_inputs, used_outputs, branches=new_branches)


dce.dce_rules[cond_p] = _cond_dce


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _cond_flops(avals_in, avals_out, *, branches, **_) -> float:
  return max(map(flops.jaxpr_flops, branches))


flops.flops_rules[cond_p] = _cond_flops
