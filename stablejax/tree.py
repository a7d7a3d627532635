"""`jax.tree`: the pytree utilities under short names (`sj.tree.map`, `sj.tree.leaves`, ...)."""
import dataclasses
from typing import Any

from stablejax.tree_util import (  # noqa: A004
    all_leaves, tree_all as all, tree_broadcast as broadcast, tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path, tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path, tree_map as map,
    tree_map_with_path as map_with_path, tree_reduce as reduce,
    tree_reduce_associative as reduce_associative, tree_structure as structure,
    tree_transpose as transpose, tree_unflatten as unflatten)

__all__ = ["all", "all_leaves", "broadcast", "flatten", "flatten_with_path", "leaves",
           "leaves_with_path", "map", "map_with_path", "reduce", "reduce_associative", "static",
           "structure", "transpose", "unflatten"]


def static(**kwargs: Any) -> Any:
  """A `dataclasses.field` marked static (metadata `static=True`) for register_dataclass."""
  metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
  return dataclasses.field(metadata=metadata, **kwargs)
