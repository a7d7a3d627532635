"""`jax.tree`: the pytree utilities under short names (`sj.tree.map`, `sj.tree.leaves`, ...)."""
import dataclasses
from typing import Any, Callable

from stablejax.tree_util import broadcast_prefix
from stablejax.tree_util import (  # noqa: A004
    all_leaves, tree_all as all, tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path, tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path, tree_map as map,
    tree_map_with_path as map_with_path, tree_reduce as reduce, tree_structure as structure,
    tree_transpose as transpose, tree_unflatten as unflatten)

__all__ = ["all", "all_leaves", "broadcast", "flatten", "flatten_with_path", "leaves",
           "leaves_with_path", "map", "map_with_path", "reduce", "reduce_associative", "static",
           "structure", "transpose", "unflatten"]

_UNSPECIFIED = object()


def broadcast(prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None
              ) -> Any:
  """`full_tree`'s structure with each leaf replaced by the `prefix_tree` leaf above it."""
  return unflatten(structure(full_tree), broadcast_prefix(prefix_tree, full_tree, is_leaf))


def _halving_reduce(operation: Callable, leaves: list) -> Any:
  if len(leaves) == 1:
    return leaves[0]
  half = len(leaves) // 2
  return operation(_halving_reduce(operation, leaves[:half]),
                   _halving_reduce(operation, leaves[half:]))


def reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *,
                       identity: Any = _UNSPECIFIED,
                       is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """Reduce the leaves of `tree` with the associative `operation` as a balanced tree."""
  leaves_ = leaves(tree, is_leaf=is_leaf)
  if leaves_:
    return _halving_reduce(operation, leaves_)
  if identity is _UNSPECIFIED:
    raise TypeError("Must specify identity for parallel reduction of empty sequence.")
  return identity


def static(**kwargs: Any) -> Any:
  """A `dataclasses.field` marked static (metadata `static=True`) for register_dataclass."""
  metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
  return dataclasses.field(metadata=metadata, **kwargs)
