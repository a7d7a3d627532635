"""`jax.experimental.shard_map.shard_map`: the older, positional spelling of `sj.shard_map`."""
from __future__ import annotations

from typing import Any, Callable

from stablejax.shard_map import shard_map as _shard_map
from stablejax.sharding import Mesh


def shard_map(f: Callable, mesh: Mesh, in_specs: Any, out_specs: Any, check_rep: bool = True
              ) -> Callable:
  """`stablejax.shard_map(f, mesh=mesh, in_specs=..., out_specs=..., check_vma=check_rep)`."""
  return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)
