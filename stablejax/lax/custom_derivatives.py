"""Custom derivatives and rematerialization, as JAX stages them:

- `custom_jvp_call`: calls `call_jaxpr`; its JVP runs the user's rule (`jvp_jaxpr_fun`) instead.
- `custom_vjp_call`: calls `call_jaxpr`; its JVP runs the user's forward rule and emits the
  linear `custom_lin`, whose transpose runs the user's backward rule (so `grad` uses it).
- `remat2` (`checkpoint`): under partial evaluation it saves only its inputs and recomputes the
  rest in the backward pass.
- `stop_gradient`: the identity with a zero derivative.

The first `num_consts` operands of the custom calls are values the function closed over. The user
API is stablejax/custom_derivatives.py and stablejax/ad_checkpoint.py; the lowerings are in
lowering/rules/custom_derivatives.py.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from stablejax import core, dtypes
from stablejax.interpreters import ad, batching, dce, flops, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr, param_printers
from stablejax.lax.call_rules import CallRules, Change, check_call_types, register_call_rules
from stablejax.lax.primitive_kit import def_reference, standard_primitive
from stablejax.tree_util import tree_map
from stablejax.util import merge_lists, weak_cache

__all__ = ["custom_jvp_call_p", "custom_vjp_call_p", "remat_p", "stop_gradient", "stop_gradient_p"]


class Rule:
  """A user rule over flat values, `fn(*flat_args, **static) -> flat list`, printed as `name`;
  `fun_name` names the function it belongs to (printed as the call's `name`). The keyword
  arguments are static (which tangents are symbolic zeros), never mapped or pruned."""
  __slots__ = ("fn", "name", "fun_name")

  def __init__(self, fn: Callable[..., list], name: str, fun_name: str):
    self.fn = fn
    self.name = name
    self.fun_name = fun_name

  def __call__(self, *args: Any, **static: Any) -> list:
    return self.fn(*args, **static)

  def __str__(self) -> str:
    return self.name

  __repr__ = __str__

  def batched(self, size: int) -> Rule:
    """This rule mapped over axis 0 of every argument, giving results batched at axis 0."""
    return Rule(lambda *args, **static: batching.vmap_flat(
        lambda *a: self.fn(*a, **static), size, [0] * len(args), lambda n: [0] * n, args),
        self.name, self.fun_name)


class _CustomCallRules(CallRules):
  """The call rules a custom-derivative call shares with `jit` (batching and DCE); each rule
  the user gave follows its jaxpr: mapped over the batch (all operands and results at axis 0,
  so the rules are mapped uniformly), and pruned of unused outputs (keeping every operand,
  which the rules may read). Under partial evaluation the call is staged whole: its derivative
  rules apply to the primal call, which differentiation already replaced."""
  jaxpr_param = "call_jaxpr"
  batch_uniformly = True
  dce_keeps_inputs = True
  rule_params: tuple[str, ...] = ()

  def update(self, params: dict, change: Change) -> dict:
    if change.transform == "vmap":
      return {**params, **{k: params[k].batched(change.axis_size) for k in self.rule_params}}
    if change.transform == "dce":
      used = [False] * len(params["call_jaxpr"].out_avals)
      for slot in change.outs:
        used[slot.index] = True
      return {**params, **self.pruned_rules(params, used)}
    return params

  def pruned_rules(self, params: dict, used: list[bool]) -> dict:
    """The rules of the call computing only its `used` outputs."""
    raise NotImplementedError


def _print_custom_call(**rules: str) -> Callable[[dict], list[tuple[str, Any]]]:
  """Print as JAX does: `name` (the function's), then the jaxpr, the rules (`rules` maps each
  printed name to its param; a rule prints as its function's name) and symbolic_zeros, sorted
  by name."""
  def printer(params: dict) -> list[tuple[str, Any]]:
    shown = {"call_jaxpr": params["call_jaxpr"], "symbolic_zeros": params["symbolic_zeros"]}
    shown.update((shown_name, params[param]) for shown_name, param in rules.items())
    return [("name", params[next(iter(rules.values()))].fun_name)] + sorted(shown.items())
  return printer


# ----------------------------------------------------------------------------------------------
# custom_jvp_call

custom_jvp_call_p = core.Primitive("custom_jvp_call")
custom_jvp_call_p.multiple_results = True


def _custom_jvp_call_abstract_eval(*avals, call_jaxpr: ClosedJaxpr, jvp_jaxpr_fun: Rule,
                                   num_consts: int, symbolic_zeros: bool):
  return check_call_types(f"custom_jvp function {jvp_jaxpr_fun.fun_name}", avals, call_jaxpr)


custom_jvp_call_p.def_abstract_eval(_custom_jvp_call_abstract_eval)


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr: ClosedJaxpr, jvp_jaxpr_fun: Rule,
                         num_consts: int, symbolic_zeros: bool):
  """Run the user's rule on the primals and the tangents (closed-over values are constants of
  the rule, as in JAX): with `symbolic_zeros`, the rule takes only the nonzero tangents and
  `zeros`, which of them are zero; otherwise every tangent, instantiated."""
  tangents = tangents[num_consts:]
  if symbolic_zeros:
    zeros = tuple(type(t) is ad.Zero for t in tangents)
    outs = jvp_jaxpr_fun(*primals[num_consts:], *[t for t in tangents if type(t) is not ad.Zero],
                         zeros=zeros)
  else:
    outs = jvp_jaxpr_fun(*primals[num_consts:], *map(ad.instantiate_zeros, tangents))
  n = len(call_jaxpr.out_avals)
  return outs[:n], outs[n:]


ad.primitive_jvps[custom_jvp_call_p] = _custom_jvp_call_jvp


class _CustomJvpCallRules(_CustomCallRules):
  rule_params = ("jvp_jaxpr_fun",)

  def pruned_rules(self, params: dict, used: list[bool]) -> dict:
    rule, n = params["jvp_jaxpr_fun"], len(used)

    def jvp(*args):
      outs = rule(*args)
      return dce.keep(outs[:n], used) + dce.keep(outs[n:], used)
    return {"jvp_jaxpr_fun": Rule(jvp, rule.name, rule.fun_name)}


register_call_rules(_CustomJvpCallRules(custom_jvp_call_p), "batching", "stage_whole", "dce")


def _custom_jvp_call_transpose(cts, *args, call_jaxpr: ClosedJaxpr, **_):
  """A custom_jvp function applied to tangents (linear in them, as a custom root's tangent
  solve) transposes as its body: as JAX, the custom rule is no longer needed there."""
  linear = [ad.is_undefined_primal(x) for x in args]
  cts = [ad.instantiate_zeros(ct) for ct in cts]
  ct_jaxpr = ad.transpose_jaxpr(call_jaxpr, linear, [core.get_aval(ct) for ct in cts])
  outs = iter(eval_jaxpr(ct_jaxpr.jaxpr, ct_jaxpr.consts,
                         *[x for x, lin in zip(args, linear) if not lin], *cts))
  return [next(outs) if lin else None for lin in linear]


ad.primitive_transposes[custom_jvp_call_p] = _custom_jvp_call_transpose
param_printers[custom_jvp_call_p] = _print_custom_call(jvp="jvp_jaxpr_fun")


# ----------------------------------------------------------------------------------------------
# custom_vjp_call and custom_lin

custom_vjp_call_p = core.Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True


def _custom_vjp_call_abstract_eval(*avals, call_jaxpr: ClosedJaxpr, fwd_jaxpr_thunk: Rule,
                                   bwd: Rule, num_consts: int, symbolic_zeros: bool):
  return check_call_types(f"custom_vjp function {bwd.fun_name}", avals, call_jaxpr)


custom_vjp_call_p.def_abstract_eval(_custom_vjp_call_abstract_eval)


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr: ClosedJaxpr, fwd_jaxpr_thunk: Rule,
                         bwd: Rule, num_consts: int, symbolic_zeros: bool):
  """Run the forward rule; the output tangents are `custom_lin` of its residuals and the
  input tangents, transposed by the backward rule."""
  if any(type(t) is not ad.Zero for t in tangents[:num_consts]):
    raise TypeError(f"custom_vjp function {bwd.fun_name} is differentiated with respect to a "
                    "value it closes over; the custom VJP rule only covers its explicit "
                    "arguments, so pass that value as an argument")
  perturbed = tuple(type(t) is not ad.Zero for t in tangents[num_consts:])
  outs = fwd_jaxpr_thunk(*primals[num_consts:], perturbed=perturbed)
  n = len(call_jaxpr.out_avals)
  primals_out, res = outs[:n], outs[n:]
  tangents_out = custom_lin_p.bind(
      *res, *[ad.instantiate_zeros(t) for t in tangents[num_consts:]], num_res=len(res), bwd=bwd,
      out_avals=tuple(ad.tangent_aval(a) for a in call_jaxpr.out_avals),
      symbolic_zeros=symbolic_zeros)
  return primals_out, tangents_out


ad.primitive_jvps[custom_vjp_call_p] = _custom_vjp_call_jvp


class _CustomVjpCallRules(_CustomCallRules):
  rule_params = ("fwd_jaxpr_thunk", "bwd")

  def pruned_rules(self, params: dict, used: list[bool]) -> dict:
    """The forward rule gives only the used outputs (and every residual); the backward rule
    takes the nonzero cotangents of those only (the others are zeros)."""
    fwd, bwd, n = params["fwd_jaxpr_thunk"], params["bwd"], len(used)

    def pruned_fwd(*args, perturbed):
      outs = fwd(*args, perturbed=perturbed)
      return dce.keep(outs[:n], used) + list(outs[n:])

    def pruned_bwd(*args, zeros):
      used_zeros = iter(zeros)
      return bwd(*args, zeros=tuple(next(used_zeros) if u else True for u in used))
    return {"fwd_jaxpr_thunk": Rule(pruned_fwd, fwd.name, fwd.fun_name),
            "bwd": Rule(pruned_bwd, bwd.name, bwd.fun_name)}


register_call_rules(_CustomVjpCallRules(custom_vjp_call_p), "batching", "stage_whole", "dce")
param_printers[custom_vjp_call_p] = _print_custom_call(bwd="bwd", fwd="fwd_jaxpr_thunk")

# custom_lin: residuals, then tangents -> output tangents. Linear in the tangents, it is only
# ever transposed (reverse mode); evaluating it means forward mode, which a custom VJP lacks.
custom_lin_p = core.Primitive("custom_lin")
custom_lin_p.multiple_results = True


def _custom_lin_abstract_eval(*avals, num_res: int, bwd: Rule, out_avals: tuple,
                              symbolic_zeros: bool):
  return list(out_avals)


def forward_mode_error(bwd: Rule) -> TypeError:
  return TypeError(f"can't apply forward-mode autodiff (jvp) to a custom_vjp function "
                   f"({bwd.fun_name}).")


def _raise_forward_mode(*args, bwd: Rule, **params):
  raise forward_mode_error(bwd)


def _custom_lin_transpose(cts, *args, num_res: int, bwd: Rule, out_avals: tuple,
                          symbolic_zeros: bool):
  res, lin = args[:num_res], args[num_res:]
  cts_in = bwd(*res, *[ct for ct in cts if type(ct) is not ad.Zero],
               zeros=tuple(type(ct) is ad.Zero for ct in cts))
  return [None] * num_res + [_linear_cotangent(x, ct) for x, ct in zip(lin, cts_in)]


def _linear_cotangent(x: Any, ct: Any) -> Any:
  """The cotangent of a `custom_lin` tangent operand: None for a known (zero) tangent, a
  symbolic zero for an integer input's float0 tangent."""
  if not ad.is_undefined_primal(x):
    return None
  return ad.Zero(x.aval) if x.aval.dtype == dtypes.float0 else ct


custom_lin_p.def_abstract_eval(_custom_lin_abstract_eval)
custom_lin_p.def_impl(_raise_forward_mode)
ad.primitive_jvps[custom_lin_p] = lambda primals, tangents, **params: _raise_forward_mode(
    **params)
ad.primitive_transposes[custom_lin_p] = _custom_lin_transpose


# ----------------------------------------------------------------------------------------------
# remat2 (checkpoint)

# A checkpoint policy is `policy(primitive, *in_avals, **params) -> bool`: may the output of
# this equation be saved for the backward pass (else it is recomputed there)? The policies are
# in stablejax/ad_checkpoint.py; None saves nothing but the checkpointed function's inputs.

def _save_nothing(*_, **__) -> bool:
  return False


remat_p = core.Primitive("remat2")
remat_p.multiple_results = True


def _remat_abstract_eval(*avals, jaxpr: ClosedJaxpr, prevent_cse: bool, differentiated: bool,
                         policy: Any):
  return check_call_types("checkpoint", avals, jaxpr)


remat_p.def_abstract_eval(_remat_abstract_eval)


class _RematRules(CallRules):
  """A differentiated `remat2` is marked so; under partial evaluation it saves only what its
  policy allows, and its transpose recomputes the rest."""

  def update(self, params: dict, change: Change) -> dict:
    if change.transform in ("jvp", "unknown"):
      return {**params, "differentiated": True}
    return params

  def partial_eval(self, trace: pe.PartialEvalTrace, args: Sequence, params: dict) -> list:
    """Compute the known outputs and the residuals the policy saves now, and stage the unknown
    outputs as a `remat2` recomputing the other known values it needs (in reverse mode: in the
    backward pass)."""
    unknowns = [trace.is_unknown(x) for x in args]
    known, staged, out_unknowns, num_res = pe.partial_eval_jaxpr_saving(
        params["jaxpr"], unknowns, params["policy"] or _save_nothing)
    known = dce.prune_jaxpr(known, [True] * len(known.out_avals), True)[0]
    with core.set_current_trace(trace.parent):
      known_outs = eval_jaxpr(known.jaxpr, known.consts, *[x for x, u in zip(args, unknowns)
                                                             if not u])
    n_known = len(known_outs) - num_res
    unknown_outs = trace.stage(remat_p, known_outs[n_known:] + [x for x, u in zip(args, unknowns)
                                                                 if u],
                               dict(params, jaxpr=staged, differentiated=True))
    return merge_lists(out_unknowns, known_outs[:n_known], unknown_outs)

  def transpose(self, cts: Sequence, *args: Any, **params: Any) -> list:
    """A `remat2` that recomputes the non-linear part of the body from the non-linear operands,
    then transposes the linear rest (the body may mix both: the JVP of a nested checkpoint)."""
    linear = tuple(ad.is_undefined_primal(x) for x in args)
    cts = [ad.instantiate_zeros(ct) for ct in cts]
    ct_jaxpr = _remat_transpose_jaxpr(params["jaxpr"], linear,
                                      tuple(core.get_aval(ct) for ct in cts))
    outs = iter(remat_p.bind(*[x for x, lin in zip(args, linear) if not lin], *cts,
                             **dict(params, jaxpr=ct_jaxpr)))
    return [next(outs) if lin else None for lin in linear]


@weak_cache(maxsize=64)
def _remat_transpose_jaxpr(closed: ClosedJaxpr, linear: tuple[bool, ...], ct_avals: tuple
                           ) -> ClosedJaxpr:
  n_nonlinear = linear.count(False)

  def transposed(*args):
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(closed, linear, False)
    known_outs = eval_jaxpr(known.jaxpr, known.consts, *args[:n_nonlinear])
    res = known_outs[len(known_outs) - num_res:]
    cts = [ct for ct, u in zip(args[n_nonlinear:], out_unknowns) if u]
    lin_args = [ad.UndefinedPrimal(a) for a, lin in zip(closed.in_avals, linear) if lin]
    cts_in = ad.backward_pass(unknown.jaxpr, unknown.consts, res + lin_args, cts)
    return [ad.instantiate_zeros(ct) for ct in cts_in[num_res:]]

  in_avals = [a for a, lin in zip(closed.in_avals, linear) if not lin] + list(ct_avals)
  return pe.trace_to_closed_jaxpr(transposed, in_avals)


register_call_rules(_RematRules(remat_p))


# name (`checkpoint_name`): the identity, naming its value for the checkpoint policies

name_p = standard_primitive("name", lambda x, *, name: x)
batching.defvectorized(name_p)
def_reference(name_p, lambda x, *, name: x)


def _name_jvp(primals, tangents, *, name: str):
  return name_p.bind(primals[0], name=name), tangents[0]  # the tangent is not named


ad.primitive_jvps[name_p] = _name_jvp


# ----------------------------------------------------------------------------------------------
# stop_gradient

stop_gradient_p = standard_primitive("stop_gradient", lambda x: x)
ad.defjvp_zero(stop_gradient_p)
batching.defvectorized(stop_gradient_p)
def_reference(stop_gradient_p, lambda x: x)


def stop_gradient(x: Any) -> Any:
  """`x` (a pytree) with a zero derivative: its inexact leaves go through `stop_gradient`."""
  def stop(leaf):
    if dtypes.is_inexact(core.get_aval(leaf).dtype):
      return stop_gradient_p.bind(leaf)
    return leaf
  return tree_map(stop, x)

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

flops.flops_rules[stop_gradient_p] = flops.free
flops.flops_rules[name_p] = flops.free
flops.flops_rules[custom_jvp_call_p] = flops.call_rule("call_jaxpr")
flops.flops_rules[custom_vjp_call_p] = flops.call_rule("call_jaxpr")
flops.flops_rules[remat_p] = flops.call_rule("jaxpr")
