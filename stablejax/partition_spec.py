"""`PartitionSpec` (`P`): how each dimension of an array is split over mesh axes (JAX's
`jax.sharding.PartitionSpec`)."""
from __future__ import annotations

from typing import Any, Iterator



class _Unconstrained:
  """`P.UNCONSTRAINED`: a dimension the partitioner may shard as it likes."""

  def __repr__(self) -> str:
    return "UNCONSTRAINED"


UNCONSTRAINED = _Unconstrained()


def _canonical_partition(p: Any) -> Any:
  if p is None or p is UNCONSTRAINED or isinstance(p, str):
    return p
  if isinstance(p, (tuple, list)):
    if not all(isinstance(a, str) for a in p):
      raise TypeError(f"PartitionSpec: a tuple entry must hold axis names, got {p!r}")
    return p[0] if len(p) == 1 else tuple(p)
  raise TypeError(f"PartitionSpec entries are None, an axis name or a tuple of axis names; "
                  f"got {p!r}")


class PartitionSpec:
  """Per array dimension: None (not split), a mesh axis name, or a tuple of names (split over
  their product, major first). Missing trailing dimensions are not split."""
  __slots__ = ("_partitions",)
  UNCONSTRAINED = UNCONSTRAINED

  def __init__(self, *partitions: Any):
    self._partitions = tuple(_canonical_partition(p) for p in partitions)

  def __iter__(self) -> Iterator[Any]:
    return iter(self._partitions)

  def __len__(self) -> int:
    return len(self._partitions)

  def __getitem__(self, i: Any) -> Any:
    out = self._partitions[i]
    return PartitionSpec(*out) if isinstance(i, slice) else out

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, PartitionSpec) and self._partitions == other._partitions

  def __hash__(self) -> int:
    return hash(strip_trailing_none(self._partitions))

  def __add__(self, other: Any) -> PartitionSpec:
    return PartitionSpec(*self._partitions, *tuple(other))

  def __repr__(self) -> str:
    return f"P{self._partitions!r}" if len(self._partitions) != 1 else \
        f"P({self._partitions[0]!r},)"

  def axes(self, i: int) -> tuple[str, ...]:
    """The mesh axes splitting dimension `i`, major first."""
    p = self._partitions[i] if i < len(self._partitions) else None
    if p is None or p is UNCONSTRAINED:
      return ()
    return (p,) if isinstance(p, str) else p


P = PartitionSpec


def strip_trailing_none(parts: tuple) -> tuple:
  while parts and parts[-1] is None:
    parts = parts[:-1]
  return parts


__all__ = ["P", "PartitionSpec", "UNCONSTRAINED"]
