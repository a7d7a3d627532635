"""`pure_callback` and `io_callback`: call a Python function on the host from traced code (jit,
vmap, ...), with results of declared types (the `pure_callback` and `io_callback` primitives,
stablejax/lax/callback.py)."""
from __future__ import annotations

from typing import Any, Callable

from stablejax import core
from stablejax.lax.callback import HostCallback, io_callback_p, pure_callback_p
from stablejax.runtime.array import put
from stablejax.tree_util import tree_flatten, tree_unflatten

VMAP_METHODS = ("sequential", "expand_dims", "broadcast_all", "legacy_vectorized")


def _name(f: Callable) -> str:
  return getattr(f, "__name__", None) or type(f).__name__


def to_device(outs: list) -> list:
  """Eager results (numpy arrays from the host) as Arrays."""
  return [o if isinstance(o, core.Tracer) else put(o) for o in outs]


def pure_callback(callback: Callable, result_shape_dtypes: Any, *args: Any,
                  vmap_method: str | None = None, **kwargs: Any) -> Any:
  """`callback(*args, **kwargs)` called on the host with numpy arrays; it must return arrays
  of the shapes and dtypes of `result_shape_dtypes` (a pytree of ShapeDtypeStructs or
  arrays). It is assumed pure: not differentiable, and it may be skipped when unused."""
  if vmap_method is not None and vmap_method not in VMAP_METHODS:
    raise ValueError(f"pure_callback: vmap_method must be one of {VMAP_METHODS} or None, got "
                     f"{vmap_method!r}")
  flat, in_tree = tree_flatten((args, kwargs))
  result_avals, out_tree = _result_avals(result_shape_dtypes)

  def flat_callback(*xs):
    a, kw = tree_unflatten(in_tree, xs)
    return tree_flatten(callback(*a, **kw))[0]

  outs = pure_callback_p.bind(*flat, callback=HostCallback(flat_callback, result_avals,
                                                           _name(callback)),
                              result_avals=tuple(result_avals), vmap_method=vmap_method)
  return tree_unflatten(out_tree, to_device(outs))


def _result_avals(result_shape_dtypes: Any) -> tuple[list, Any]:
  leaves, tree = tree_flatten(result_shape_dtypes)
  return [core.ShapedArray(r.shape, core.get_aval(r).dtype if isinstance(r, core.Tracer)
                           else r.dtype) for r in leaves], tree


def io_callback(callback: Callable, result_shape_dtypes: Any, *args: Any, sharding: Any = None,
                ordered: bool = False, **kwargs: Any) -> Any:
  """`callback(*args, **kwargs)` called on the host with numpy arrays, for its effects (it is
  never dropped; `ordered` ones run in program order); it must return arrays of the shapes
  and dtypes of `result_shape_dtypes`. Not differentiable; an ordered one cannot be vmapped."""
  flat, in_tree = tree_flatten((args, kwargs))
  result_avals, out_tree = _result_avals(result_shape_dtypes)

  def flat_callback(*xs):
    a, kw = tree_unflatten(in_tree, xs)
    return tree_flatten(callback(*a, **kw))[0]

  outs = io_callback_p.bind(*flat, callback=HostCallback(flat_callback, result_avals,
                                                         _name(callback)),
                            result_avals=tuple(result_avals), sharding=sharding,
                            ordered=ordered)
  return tree_unflatten(out_tree, to_device(outs))
