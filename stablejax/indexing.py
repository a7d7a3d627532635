"""`jax.ds`: a slice given by a start (static or traced), a static size and a stride, for
indexing arrays with a dynamic start (`x[sj.ds(i, 2)]`)."""
from __future__ import annotations

import dataclasses
import operator
from typing import Any

from stablejax import core
from stablejax.tree_util import register_pytree_node_class


def _is_static(v: Any) -> bool:
  """A known integer (a Python or numpy int, a concrete integer array scalar), as JAX's dims."""
  if isinstance(v, core.Tracer):
    return False
  try:
    operator.index(v)
  except TypeError:
    return False
  return True


@register_pytree_node_class
@dataclasses.dataclass(slots=True)
class Slice:
  """`size` elements from `start` in steps of `stride`; `start` (and `size`) may be traced."""
  start: Any
  size: Any
  stride: int = 1

  def __post_init__(self) -> None:
    if self.stride < 0:
      raise ValueError("`stride` must be >= 0.")

  @property
  def is_dynamic_start(self) -> bool:
    return not _is_static(self.start)

  @property
  def is_dynamic_size(self) -> bool:
    return not _is_static(self.size)

  def tree_flatten(self) -> tuple[tuple, tuple]:
    """Traced start/size are children; static ones are in the treedef (as JAX)."""
    start_dyn, size_dyn = self.is_dynamic_start, self.is_dynamic_size
    children = (self.start if start_dyn else None, self.size if size_dyn else None)
    aux = (None if start_dyn else self.start, None if size_dyn else self.size, self.stride)
    return children, aux

  @classmethod
  def tree_unflatten(cls, aux: tuple, children: tuple) -> Slice:
    start, size = (c if c is not None else a for c, a in zip(children, aux[:2]))
    return cls(start, size, aux[2])

  @classmethod
  def from_slice(cls, slc: slice, size: int) -> Slice:
    """The Slice of a Python slice on an axis of `size`."""
    start, stop, step = slc.indices(size)
    if step < 1:
      raise ValueError(f"slice must have a step >= 1 (found: {step})")
    return cls(start, len(range(start, stop, step)), step)


def dslice(start: Any, size: Any = None, stride: int | None = None) -> slice | Slice:
  """A Slice as Python's slice reads: `ds(None)` is `:`, `ds(j)` is `:j`, `ds(i, j)` is
  `i:i+j`, `ds(i, j, stride)` is `i:i+j:stride`; `i` may be traced."""
  if start is None:
    return slice(None)
  if stride is None:
    stride = 1
  if not isinstance(stride, int):
    raise ValueError("Non-static stride in `dslice`")
  if size is None:
    start, size = 0, start
  return Slice(start, size, stride)


ds = dslice
