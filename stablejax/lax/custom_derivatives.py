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
from stablejax.interpreters import ad, batching, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr, param_printers
from stablejax.lax.standard import def_reference, standard_primitive
from stablejax.passes import dce_jaxpr
from stablejax.tree_util import tree_map


class Rule:
  """A user rule over flat values, `fn(*flat_args) -> flat list`, printed as `name`;
  `fun_name` names the function it belongs to (printed as the call's `name`)."""
  __slots__ = ("fn", "name", "fun_name")

  def __init__(self, fn: Callable[..., list], name: str, fun_name: str):
    self.fn = fn
    self.name = name
    self.fun_name = fun_name

  def __call__(self, *args: Any) -> list:
    return self.fn(*args)

  def __str__(self) -> str:
    return self.name

  __repr__ = __str__

  def batched(self, size: int) -> Rule:
    """This rule mapped over axis 0 of every argument, giving results batched at axis 0."""
    return Rule(lambda *args: batching.vmap_flat(self.fn, size, [0] * len(args),
                                                 lambda n: [0] * n, args),
                self.name, self.fun_name)


def _check_call_types(what: str, avals: Sequence[core.ShapedArray], jaxpr: ClosedJaxpr
                      ) -> list[core.ShapedArray]:
  expected = jaxpr.in_avals
  if len(avals) != len(expected) or not all(map(core.typematch, avals, expected)):
    raise TypeError(f"{what}: called with {[a.str_short() for a in avals]} but its jaxpr takes "
                    f"{[a.str_short() for a in expected]}")
  return jaxpr.out_avals


def _all_batched_at_front(size: int, args: Sequence, dims: Sequence) -> list:
  """Every argument with its batch axis at 0 (unbatched ones broadcast): the user's rules are
  then mapped uniformly, and cotangents of broadcast inputs are summed by the broadcast's
  transpose."""
  return [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]


def _stage_whole(prim: core.Primitive) -> Callable:
  """The partial-evaluation rule of a custom call: with an unknown input it is staged whole
  (its derivative rules apply to the primal call, which differentiation already replaced)."""
  return lambda trace, args, params: trace.stage(prim, args, params)


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
  return _check_call_types(f"custom_jvp function {jvp_jaxpr_fun.fun_name}", avals, call_jaxpr)


custom_jvp_call_p.def_abstract_eval(_custom_jvp_call_abstract_eval)


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr: ClosedJaxpr, jvp_jaxpr_fun: Rule,
                         num_consts: int, symbolic_zeros: bool):
  """Run the user's rule on the primals and instantiated tangents (closed-over values are
  constants of the rule, as in JAX)."""
  tangents = [ad.instantiate_zeros(t) for t in tangents[num_consts:]]
  outs = jvp_jaxpr_fun(*primals[num_consts:], *tangents)
  n = len(call_jaxpr.out_avals)
  return outs[:n], outs[n:]


ad.primitive_jvps[custom_jvp_call_p] = _custom_jvp_call_jvp


def _custom_jvp_call_batch(axis_data, args, dims, *, call_jaxpr: ClosedJaxpr,
                           jvp_jaxpr_fun: Rule, num_consts: int, symbolic_zeros: bool):
  size = axis_data.size
  args = _all_batched_at_front(size, args, dims)
  batched, out_dims = batching.batch_jaxpr(call_jaxpr, axis_data, [0] * len(args),
                                           instantiate=True)
  outs = custom_jvp_call_p.bind(*args, call_jaxpr=batched,
                                jvp_jaxpr_fun=jvp_jaxpr_fun.batched(size),
                                num_consts=num_consts, symbolic_zeros=symbolic_zeros)
  return outs, out_dims


batching.fancy_primitive_batchers[custom_jvp_call_p] = _custom_jvp_call_batch
pe.partial_eval_rules[custom_jvp_call_p] = _stage_whole(custom_jvp_call_p)
param_printers[custom_jvp_call_p] = _print_custom_call(jvp="jvp_jaxpr_fun")


# ----------------------------------------------------------------------------------------------
# custom_vjp_call and custom_lin

custom_vjp_call_p = core.Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True


def _custom_vjp_call_abstract_eval(*avals, call_jaxpr: ClosedJaxpr, fwd_jaxpr_thunk: Rule,
                                   bwd: Rule, num_consts: int, symbolic_zeros: bool):
  return _check_call_types(f"custom_vjp function {bwd.fun_name}", avals, call_jaxpr)


custom_vjp_call_p.def_abstract_eval(_custom_vjp_call_abstract_eval)


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr: ClosedJaxpr, fwd_jaxpr_thunk: Rule,
                         bwd: Rule, num_consts: int, symbolic_zeros: bool):
  """Run the forward rule; the output tangents are `custom_lin` of its residuals and the
  input tangents, transposed by the backward rule."""
  if any(type(t) is not ad.Zero for t in tangents[:num_consts]):
    raise TypeError(f"custom_vjp function {bwd.fun_name} is differentiated with respect to a "
                    "value it closes over; the custom VJP rule only covers its explicit "
                    "arguments, so pass that value as an argument")
  outs = fwd_jaxpr_thunk(*primals[num_consts:])
  n = len(call_jaxpr.out_avals)
  primals_out, res = outs[:n], outs[n:]
  tangents_out = custom_lin_p.bind(
      *res, *[ad.instantiate_zeros(t) for t in tangents[num_consts:]], num_res=len(res), bwd=bwd,
      out_avals=tuple(ad.tangent_aval(a) for a in call_jaxpr.out_avals),
      symbolic_zeros=symbolic_zeros)
  return primals_out, tangents_out


ad.primitive_jvps[custom_vjp_call_p] = _custom_vjp_call_jvp


def _custom_vjp_call_batch(axis_data, args, dims, *, call_jaxpr: ClosedJaxpr,
                           fwd_jaxpr_thunk: Rule, bwd: Rule, num_consts: int,
                           symbolic_zeros: bool):
  size = axis_data.size
  args = _all_batched_at_front(size, args, dims)
  batched, out_dims = batching.batch_jaxpr(call_jaxpr, axis_data, [0] * len(args),
                                           instantiate=True)
  outs = custom_vjp_call_p.bind(*args, call_jaxpr=batched,
                                fwd_jaxpr_thunk=fwd_jaxpr_thunk.batched(size),
                                bwd=bwd.batched(size), num_consts=num_consts,
                                symbolic_zeros=symbolic_zeros)
  return outs, out_dims


batching.fancy_primitive_batchers[custom_vjp_call_p] = _custom_vjp_call_batch
pe.partial_eval_rules[custom_vjp_call_p] = _stage_whole(custom_vjp_call_p)
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
  cts_in = bwd(*res, *[ad.instantiate_zeros(ct) for ct in cts])
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

# Checkpoint policies, `policy(primitive, *avals, **params) -> bool`: may the output of this
# equation be saved for the backward pass? Any policy other than `everything_saveable` saves
# only the inputs of the checkpointed function (the values computed are the same).

def everything_saveable(*_, **__) -> bool:
  return True


def nothing_saveable(*_, **__) -> bool:
  return False


def dots_saveable(prim: core.Primitive, *_, **__) -> bool:
  return prim.name == "dot_general"


remat_p = core.Primitive("remat2")
remat_p.multiple_results = True


def _remat_abstract_eval(*avals, jaxpr: ClosedJaxpr, prevent_cse: bool, differentiated: bool,
                         policy: Any):
  return _check_call_types("checkpoint", avals, jaxpr)


remat_p.def_abstract_eval(_remat_abstract_eval)


def _remat_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, prevent_cse: bool,
               differentiated: bool, policy: Any):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
  outs = remat_p.bind(*primals, *[t for t in tangents if type(t) is not ad.Zero],
                      jaxpr=jvp_jaxpr, prevent_cse=prevent_cse, differentiated=True,
                      policy=policy)
  n = len(jaxpr.out_avals)
  primals_out, nz_tangents_out = outs[:n], iter(outs[n:])
  return primals_out, [next(nz_tangents_out) if nz else ad.Zero.from_primal_value(p)
                       for p, nz in zip(primals_out, out_nonzeros)]


ad.primitive_jvps[remat_p] = _remat_jvp


def _remat_batch(axis_data, args, dims, *, jaxpr: ClosedJaxpr, **params):
  batched, out_dims = batching.batch_jaxpr(jaxpr, axis_data, dims)
  return remat_p.bind(*args, jaxpr=batched, **params), out_dims


batching.fancy_primitive_batchers[remat_p] = _remat_batch


def _restrict_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
  """`closed` computing only the outputs marked in `keep` (dead equations removed)."""
  jaxpr = closed.jaxpr
  outvars = [v for v, k in zip(jaxpr.outvars, keep) if k]
  return ClosedJaxpr(dce_jaxpr(jaxpr.replace(outvars=outvars)), closed.consts)


def _remat_partial_eval(trace: pe.PartialEvalTrace, args, params):
  """Compute the known outputs now and stage the unknown ones as a `remat2` of the whole
  computation: the residuals are the known inputs only, and everything else is recomputed
  when the unknown part runs (in reverse mode: in the backward pass). With the policy
  `everything_saveable` the body is split as `jit` splits it, saving every residual."""
  jaxpr = params["jaxpr"]
  unknowns = [trace.is_unknown(x) for x in args]
  known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, unknowns, False)
  known_args = [x for x, u in zip(args, unknowns) if not u]
  save_all = params["policy"] is everything_saveable
  keep = [True] * len(known.out_avals) if save_all else (
      [True] * (len(known.out_avals) - num_res) + [False] * num_res)
  known = _restrict_outputs(known, keep)
  with core.set_current_trace(trace.parent):
    known_outs = eval_jaxpr(known.jaxpr, known.consts, *known_args)
  if save_all:
    n_known = len(known_outs) - num_res
    unknown_outs = trace.stage(remat_p, known_outs[n_known:] + [x for x, u in zip(args, unknowns)
                                                                if u],
                               dict(params, jaxpr=unknown, differentiated=True))
  else:
    n_known = len(known_outs)
    unknown_outs = trace.stage(remat_p, list(args), dict(
        params, jaxpr=_restrict_outputs(jaxpr, out_unknowns), differentiated=True))
  known_it, unknown_it = iter(known_outs[:n_known]), iter(unknown_outs)
  return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


pe.partial_eval_rules[remat_p] = _remat_partial_eval


def _remat_transpose(cts, *args, jaxpr: ClosedJaxpr, **params):
  linear = [ad.is_undefined_primal(x) for x in args]
  ct_jaxpr = ad.transpose_jaxpr(jaxpr, linear)
  outs = iter(remat_p.bind(*[x for x, lin in zip(args, linear) if not lin],
                           *[ad.instantiate_zeros(ct) for ct in cts], jaxpr=ct_jaxpr, **params))
  return [next(outs) if lin else None for lin in linear]


ad.primitive_transposes[remat_p] = _remat_transpose


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
