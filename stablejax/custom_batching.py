"""`custom_vmap`: a function with a user-defined batching rule, as `jax.custom_batching`
(the `custom_vmap_call` primitive, stablejax/lax/custom_batching.py)."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from stablejax import core
from stablejax.lax.custom_batching import VmapRule, custom_vmap_call_p
from stablejax.pipeline import trace
from stablejax.tree_util import flatten_fun, tree_flatten, tree_unflatten


class custom_vmap:  # noqa: N801  (JAX's name)
  """A function with a custom vmap rule: decorate it, then give `def_vmap(rule)`, where
  `rule(axis_size, in_batched, *args)` returns `(out, out_batched)`: the batched output and a
  pytree of bools saying which outputs are batched (along axis 0)."""

  def __init__(self, fun: Callable[..., Any]):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.vmap_rule: Callable[..., tuple[Any, Any]] | None = None

  def def_vmap(self, vmap_rule: Callable[..., tuple[Any, Any]]) -> Callable[..., tuple]:
    """Set the vmap rule; returns it unchanged (usable as a decorator)."""
    self.vmap_rule = vmap_rule
    return vmap_rule

  def _positional(self, args: tuple, kwargs: dict) -> tuple:
    try:
      bound = inspect.signature(self.fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
      raise TypeError(f"The input arguments to the custom_vmap-decorated function "
                      f"{self.__name__} could not be resolved to positional-only arguments. "
                      f"Binding failed with the error:\n{e}") from e
    if bound.kwargs:
      raise TypeError(f"The input arguments to the custom_vmap-decorated function "
                      f"{self.__name__} could not be resolved to positional-only arguments "
                      f"(keyword-only: {sorted(bound.kwargs)})")
    return bound.args

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    args = self._positional(args, kwargs) if kwargs else args
    if self.vmap_rule is None:
      raise AttributeError(f"No batching rule defined for custom_vmap function "
                           f"{self.__name__} using def_vmap.")
    flat, in_tree = tree_flatten(args)
    flat_fun, out_tree = flatten_fun(self.fun, tree_flatten((args, {}))[1])
    closed, consts = trace(flat_fun, [core.get_aval(x) for x in flat])
    outs = custom_vmap_call_p.bind(*consts, *flat, call=closed, num_consts=len(consts),
                                   rule=VmapRule(self.vmap_rule), in_tree=in_tree,
                                   out_tree=out_tree())
    return tree_unflatten(out_tree(), outs)


__all__ = ["custom_vmap"]
