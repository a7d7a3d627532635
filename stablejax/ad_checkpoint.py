"""`checkpoint` (`remat`): differentiate a function without saving its intermediate values;
they are recomputed in the backward pass (the `remat2` primitive of
stablejax/lax/custom_derivatives.py), except those its policy saves; the policies, and
`checkpoint_name`, `saved_residuals` and `print_saved_residuals`."""
from __future__ import annotations

import dataclasses
import functools
import types
from typing import Any, Callable, Sequence

from stablejax import core, lax
from stablejax.interpreters import ad, partial_eval as pe
from stablejax.jaxpr import JaxprEqn, Var
from stablejax.lax import custom_derivatives as cd
from stablejax.lax.call import jit_p
from stablejax.pipeline import close_over_tracers
from stablejax.stages import arg_names_of
from stablejax.tree_util import flatten_fun, tree_flatten, tree_map, tree_unflatten

# ----------------------------------------------------------------------------------------------
# Policies: `policy(primitive, *in_avals, **params) -> bool`, may this equation's output be
# saved for the backward pass (else it is recomputed there)?

def everything_saveable(*_, **__) -> bool:
  """Save every intermediate, as if `checkpoint` were not used."""
  return True


def nothing_saveable(*_, **__) -> bool:
  """Save no intermediate: recompute everything but the checkpointed function's inputs."""
  return False


@dataclasses.dataclass(frozen=True)
class _DotsSaveable:
  """Save the results of dots (and convolutions); `only_if_no_batch_dims`: of dots without
  batch dimensions only."""
  only_if_no_batch_dims: bool

  def __call__(self, prim: core.Primitive, *_, **params) -> bool:
    if self.only_if_no_batch_dims:
      return prim is lax.dot_general_p and not any(params["dimension_numbers"][1])
    return prim in (lax.dot_general_p, lax.conv_general_dilated_p)


dots_saveable = _DotsSaveable(False)
dots_with_no_batch_dims_saveable = _DotsSaveable(True)


@dataclasses.dataclass(frozen=True)
class _SaveNames:
  """Save only values named by `checkpoint_name`: those in `names` (`exclude`: those not)."""
  names: frozenset
  exclude: bool

  def __call__(self, prim: core.Primitive, *_, **params) -> bool:
    return prim is cd.name_p and (params["name"] in self.names) != self.exclude


def save_only_these_names(*names_which_can_be_saved: str) -> Callable:
  """Save only the values named by `checkpoint_name` with one of these names."""
  return _SaveNames(frozenset(names_which_can_be_saved), False)


def save_any_names_but_these(*names_not_to_save: str) -> Callable:
  """Save only the values named by `checkpoint_name`, except those with these names."""
  return _SaveNames(frozenset(names_not_to_save), True)


def save_anything_except_these_names(*names_not_to_save: str) -> Callable:
  """Save every value (as JAX's policy of this name does: the names are not read)."""
  return everything_saveable


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
  """Save what either policy saves."""
  def policy(prim, *args, **params):
    out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
    if not (isinstance(out1, bool) and isinstance(out2, bool)):
      raise ValueError("The return value of the policies should be a boolean. Got: "
                       f"{out1} and {out2}. Please write a custom policy function directly, "
                       "rather than using this helper function.")
    return out1 or out2
  return policy


def offload_dot_with_no_batch_dims(offload_src: str, offload_dst: str) -> Callable:
  """`dots_with_no_batch_dims_saveable`, the saved dots meant for `offload_dst` memory; with
  one memory space per device here, they are saved in place."""
  return dots_with_no_batch_dims_saveable


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src: str, offload_dst: str) -> Callable:
  """`save_only_these_names` of both sets of names (those to offload are saved in place: one
  memory space per device here); the sets must not intersect."""
  saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
  if saved & offloaded:
    raise ValueError("The names should be exclusive and should not intersect in "
                     "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
                     f"names_which_can_be_saved={saved}, names_which_can_be_offloaded="
                     f"{offloaded} and the intersection={saved & offloaded}")
  return save_only_these_names(*saved, *offloaded)


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable, checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names)


# ----------------------------------------------------------------------------------------------
# checkpoint

def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable:
  """`fun`, staged as one `remat2` whose intermediates are recomputed when differentiated
  (except those `policy`, one of `checkpoint_policies`, saves)."""
  static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

  @functools.wraps(fun)
  def fun_remat(*args, **kwargs):
    static_args = {i % len(args): args[i] for i in static}
    dyn = tuple(a for i, a in enumerate(args) if i not in static_args)

    def full(*dyn_args, **kw):
      it = iter(dyn_args)
      return fun(*[static_args[i] if i in static_args else next(it)
                   for i in range(len(args))], **kw)

    flat, in_tree = tree_flatten((dyn, kwargs))
    flat_fun, out_tree = flatten_fun(full, in_tree)
    jaxpr, consts = pe.trace_to_jaxpr(flat_fun, [core.get_aval(x) for x in flat])
    closed, closed_over = close_over_tracers(jaxpr, consts)
    outs = cd.remat_p.bind(*closed_over, *flat, jaxpr=closed, prevent_cse=prevent_cse,
                           differentiated=False, policy=policy)
    return tree_unflatten(out_tree(), outs)

  return fun_remat


remat = checkpoint


def checkpoint_name(x: Any, name: str) -> Any:
  """`x` (a pytree), each leaf named `name` for the checkpoint policies that read names."""
  return tree_map(lambda leaf: cd.name_p.bind(leaf, name=name), x)


# ----------------------------------------------------------------------------------------------
# The residuals reverse mode saves

def saved_residuals(f: Callable, *args, **kwargs) -> list[tuple[core.ShapedArray, str]]:
  """The values `vjp(f, *args)` saves for the backward pass: each one's type and where it comes
  from (an argument, a constant, a named value or an equation), as JAX describes them."""
  flat, in_tree = tree_flatten((args, kwargs))
  flat_f, _ = flatten_fun(f, in_tree)
  jaxpr, _ = pe.trace_to_jaxpr(lambda *xs: ad.linearize_flat(flat_f, xs)[1].consts,
                               [core.get_aval(x) for x in flat])
  names = arg_names_of(f, in_tree)
  res = set(v for v in jaxpr.outvars if type(v) is Var)
  found = [(v.aval, "from a literal") for v in jaxpr.outvars if type(v) is not Var]
  found += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res]
  found += [(v.aval, f"from the argument {names[i]}") for i, v in enumerate(jaxpr.invars)
            if v in res]
  for eqn in jaxpr.eqns:
    for v in eqn.outvars:
      if v in res:
        found.append((v.aval, _residual_source(eqn)))
  return found


def _residual_source(eqn: JaxprEqn) -> str:
  where = "unknown"
  if eqn.source_info is not None and eqn.source_info.frames:
    code, lasti = eqn.source_info.frames[0]
    file, line, col = core.frame_position(code, lasti)[:3]
    where = f"{file}:{line}:{col} ({code.co_name})"
  if eqn.primitive is cd.name_p:
    return f"named '{eqn.params['name']}' from {where}"
  if eqn.primitive is jit_p:
    return f"output of jitted function '{eqn.params['name']}' from {where}"
  return f"output of {eqn.primitive.name} from {where}"


def print_saved_residuals(f: Callable, *args, **kwargs) -> None:
  """Print `saved_residuals(f, *args, **kwargs)`, one residual a line."""
  for aval, src in saved_residuals(f, *args, **kwargs):
    print(f"{aval.str_short()} {src}")
