"""`jax.api_util`: the helpers libraries use to build transformations on wrapped functions
(`linear_util.WrappedFun`): flattening their arguments and results, partial application of
static arguments, donation vectors, debug info."""
from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Callable, Sequence

from stablejax import core
from stablejax.linear_util import WrappedFun
from stablejax.tree_util import (PyTreeDef, broadcast_prefix, keystr, tree_flatten,
                                 tree_flatten_with_path, tree_structure, tree_unflatten)

__all__ = ["argnums_partial", "debug_info", "donation_vector", "flatten_axes", "flatten_fun",
           "flatten_fun_nokwargs", "rebase_donate_argnums", "safe_map", "shaped_abstractify"]


def safe_map(f: Callable, *args: Sequence) -> list:
  """`map` that raises when the sequences differ in length."""
  n = len(args[0])
  for arg in args[1:]:
    if len(arg) != n:
      raise ValueError(f"length mismatch: {list(map(len, args))}")
  return list(map(f, *args))


def shaped_abstractify(x: Any) -> core.ShapedArray:
  """The abstract value (shape, dtype, weak type) of an array, scalar or ShapeDtypeStruct."""
  if type(x) in core.aval_handlers:
    return core.get_aval(x)
  if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(x, "__array__"):
    return core.ShapedArray(tuple(x.shape), x.dtype, getattr(x, "weak_type", False))
  return core.get_aval(x)


def _flattened(fun: WrappedFun, in_tree: PyTreeDef, with_kwargs: bool
               ) -> tuple[WrappedFun, Callable[[], PyTreeDef]]:
  store: list = []

  def wrapper(call: Callable) -> Callable:
    def flat_call(*leaves: Any) -> list:
      unflat = tree_unflatten(in_tree, leaves)
      args, kwargs = unflat if with_kwargs else (unflat, {})
      out_leaves, out_tree = tree_flatten(call(*args, **kwargs))
      store[:] = [out_tree]
      return out_leaves
    return flat_call

  def out_tree() -> PyTreeDef:
    if not store:
      raise ValueError("the output tree is known once the flattened function has been called")
    return store[0]
  return fun.wrap(wrapper), out_tree


def flatten_fun(fun: WrappedFun, in_tree: PyTreeDef) -> tuple[WrappedFun, Callable[[], Any]]:
  """`fun` taking the leaves of `(args, kwargs)` (of structure `in_tree`) and returning the
  leaves of its result; the thunk gives the result's structure once it has been called."""
  return _flattened(fun, in_tree, True)


def flatten_fun_nokwargs(fun: WrappedFun, in_tree: PyTreeDef
                         ) -> tuple[WrappedFun, Callable[[], Any]]:
  """`flatten_fun` for an `in_tree` of the positional arguments only."""
  return _flattened(fun, in_tree, False)


def argnums_partial(f: WrappedFun, dyn_argnums: int | Sequence[int], args: Sequence,
                    require_static_args_hashable: bool = True) -> tuple[WrappedFun, tuple]:
  """`f` taking only the arguments at `dyn_argnums` (the others fixed to `args`'), and those."""
  dyn = (dyn_argnums,) if isinstance(dyn_argnums, int) else tuple(dyn_argnums)
  fixed = {i: a for i, a in enumerate(args) if i not in dyn}
  if require_static_args_hashable:
    for i, a in fixed.items():
      try:
        hash(a)
      except TypeError as e:
        raise ValueError(f"Non-hashable static arguments are not supported. An error occurred "
                         f"while trying to hash an object of type {type(a)}, {a}. The error "
                         f"was:\n{type(e).__name__}: {e}\n") from None

  def wrapper(call: Callable) -> Callable:
    def partial_call(*dyn_args: Any, **kwargs: Any) -> Any:
      it = iter(dyn_args)
      return call(*[fixed[i] if i in fixed else next(it) for i in range(len(args))], **kwargs)
    return partial_call
  return f.wrap(wrapper), tuple(args[i] for i in dyn)


def rebase_donate_argnums(donate_argnums: Sequence[int], static_argnums: Sequence[int]
                          ) -> tuple[int, ...]:
  """The donated argument numbers counted among the non-static arguments."""
  static = sorted(static_argnums)
  if set(donate_argnums) & set(static):
    raise ValueError(f"`static_argnums` {static_argnums} and `donate_argnums` "
                     f"{donate_argnums} cannot intersect.")
  return tuple(i - sum(s < i for s in static) for i in sorted(donate_argnums))


def donation_vector(donate_argnums: Sequence[int], donate_argnames: Sequence[str],
                    in_tree: PyTreeDef, kws: bool = True) -> tuple[bool, ...]:
  """For each leaf of `in_tree` (of `(args, kwargs)`, or of args if not `kws`), whether it is
  donated."""
  args, kwargs = tree_unflatten(in_tree, [None] * in_tree.num_leaves) if kws else (
      tree_unflatten(in_tree, [None] * in_tree.num_leaves), {})
  out: list[bool] = []
  for i, arg in enumerate(args):
    out += [i in donate_argnums] * tree_structure(arg, is_leaf=lambda x: x is None).num_leaves
  for name, value in kwargs.items():
    out += [name in donate_argnames] * tree_structure(
        value, is_leaf=lambda x: x is None).num_leaves
  return tuple(out)


def flatten_axes(name: str, treedef: PyTreeDef, axis_tree: Any, *, kws: bool = False,
                 tupled_args: bool = False) -> list:
  """`axis_tree` (a prefix of `treedef`'s tree; None leaves map nothing) broadcast to one
  entry per leaf."""
  proxy = tree_unflatten(treedef, [object()] * treedef.num_leaves)
  if kws:
    proxy = proxy[0]
  try:
    return broadcast_prefix(axis_tree, proxy, is_leaf=lambda x: x is None)
  except ValueError as e:
    raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                     f"value; {e}") from None


@dataclasses.dataclass(frozen=True)
class DebugInfo:
  """What a traced function was traced for, where it is defined, and its arguments' names."""
  traced_for: str
  func_src_info: str | None
  arg_names: tuple[str, ...] | None
  result_paths: tuple[str, ...] | Callable | None = None


def _src_info(fun: Callable) -> str:
  """`name at file:line` of a Python function, else its name."""
  name = getattr(fun, "__name__", type(fun).__name__)
  code = getattr(inspect.unwrap(fun), "__code__", None)
  return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code else name


def debug_info(traced_for: str, fun: Callable, args: Sequence, kwargs: dict, *,
               static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (),
               result_paths_thunk: Any = None, sourceinfo: str | None = None,
               signature: inspect.Signature | None = None) -> DebugInfo:
  """The debug info of tracing `fun` on `args`, `kwargs` for `traced_for`: the names of the
  non-static argument leaves, from `fun`'s signature where it binds them."""
  try:
    signature = signature or inspect.signature(fun)
    bound = signature.bind(*args, **kwargs).arguments
    names = list(bound)
  except (TypeError, ValueError):
    names = [f"args[{i}]" for i in range(len(args))] + list(kwargs)
    bound = dict(zip(names, [*args, *kwargs.values()]))
  arg_names = []
  for i, name in enumerate(names):
    if (i < len(args) and i in static_argnums) or name in static_argnames:
      continue
    for path, _ in tree_flatten_with_path(bound[name])[0]:
      arg_names.append(name + keystr(path))
  return DebugInfo(traced_for, sourceinfo or _src_info(fun), tuple(arg_names),
                   result_paths_thunk)
