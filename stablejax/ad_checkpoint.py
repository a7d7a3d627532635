"""`checkpoint` (`remat`): differentiate a function without saving its intermediate values;
they are recomputed in the backward pass (the `remat2` primitive of
stablejax/lax/custom_derivatives.py)."""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, Sequence

from stablejax import core
from stablejax.interpreters import partial_eval as pe
from stablejax.pipeline import close_over_tracers
from stablejax.lax import custom_derivatives as cd
from stablejax.tree_util import flatten_fun, tree_flatten, tree_unflatten

checkpoint_policies = types.SimpleNamespace(
    everything_saveable=cd.everything_saveable, nothing_saveable=cd.nothing_saveable,
    dots_saveable=cd.dots_saveable, checkpoint_dots=cd.dots_saveable)


def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable:
  """`fun`, staged as one `remat2` whose intermediates are recomputed when differentiated
  (`policy=checkpoint_policies.everything_saveable` saves them instead)."""
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
  """`x` (names are only read by name-based policies, which this checkpoint does not have)."""
  return x
