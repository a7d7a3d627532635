"""The `custom_vmap_call` primitive (`stablejax.custom_batching.custom_vmap`): a function whose
batching is the user's rule. Evaluated, lowered or differentiated it is its jaxpr `call`; under
`vmap` it is `rule(axis_size, in_batched, *args) -> (out, out_batched)`, as JAX's."""
from __future__ import annotations

from typing import Callable

from stablejax import core
from stablejax.interpreters import ad, batching
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr
from stablejax.lax.primitive_kit import def_reference
from stablejax.tree_util import PyTreeDef, tree_flatten, tree_unflatten

__all__ = ["custom_vmap_call_p"]


class VmapRule:
  """The user's batching rule, printed as its function."""
  __slots__ = ("rule",)

  def __init__(self, rule: Callable):
    self.rule = rule

  def __str__(self) -> str:
    return getattr(self.rule, "__name__", "<unnamed rule>")

  __repr__ = __str__


custom_vmap_call_p = core.Primitive("custom_vmap_call")
custom_vmap_call_p.multiple_results = True


def _impl(*args, call: ClosedJaxpr, num_consts: int, **params):
  return eval_jaxpr(call.jaxpr, call.consts, *args)


def _jvp(primals, tangents, *, call: ClosedJaxpr, **params):
  """Differentiated, the function is its jaxpr (the rule batches the primal function only)."""
  return ad.jvp_flat(lambda *xs: eval_jaxpr(call.jaxpr, call.consts, *xs), primals, tangents,
                     instantiate=False)


def _check_trees(rule: VmapRule, out_tree: PyTreeDef, got: PyTreeDef, batched: PyTreeDef
                 ) -> None:
  if got != batched:
    raise ValueError(f"structure of output value and output batching specification returned "
                     f"by custom vmap rule ({rule}) do not match.\nOutput values: {got}\n"
                     f"Batching spec: {batched}")
  if got != out_tree:
    raise ValueError(f"structure of output returned by custom vmap rule ({rule}) does not "
                     f"match that of original custom-vmapped function.\nOriginal output: "
                     f"{out_tree}\nRule output: {got}")


def _batch(axis_data, args, dims, *, call: ClosedJaxpr, num_consts: int, rule: VmapRule,
           in_tree: PyTreeDef, out_tree: PyTreeDef):
  if any(d is not None for d in dims[:num_consts]):
    raise NotImplementedError(f"custom_vmap function closes over a value batched by this vmap; "
                              f"pass it as an argument (rule {rule})")
  args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
  in_batched = tree_unflatten(in_tree, [d is not None for d in dims[num_consts:]])
  out, out_batched = rule.rule(axis_data.size, list(in_batched),
                               *tree_unflatten(in_tree, args[num_consts:]))
  flat_out, got_tree = tree_flatten(out)
  flat_batched, batched_tree = tree_flatten(out_batched)
  _check_trees(rule, out_tree, got_tree, batched_tree)
  return flat_out, [0 if b else None for b in flat_batched]


custom_vmap_call_p.def_abstract_eval(lambda *avals, call, **params: list(call.out_avals))
custom_vmap_call_p.def_impl(_impl)
ad.primitive_jvps[custom_vmap_call_p] = _jvp
batching.fancy_primitive_batchers[custom_vmap_call_p] = _batch
def_reference(custom_vmap_call_p, _impl)

