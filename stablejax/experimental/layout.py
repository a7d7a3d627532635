"""jax.experimental.layout: the value types `Layout` (an array's dimension order in memory,
with XLA's tiling) and `Format` (a layout with a sharding). stablejax compiles with XLA's default
layouts, so it takes them as values (libraries build, compare and map them), not as requests
to `jit` (nor `with_layout_constraint`)."""
from __future__ import annotations

from typing import Any

from stablejax.sharding import Sharding

__all__ = ["Format", "Layout"]


class AutoLayoutSingleton:
  """`Layout.AUTO`: the compiler chooses."""

  def __repr__(self) -> str:
    return "AUTO"


AutoLayout = AutoLayoutSingleton()


class Layout:
  """A dimension order (major to minor), an optional tiling and a sub-byte element size."""
  AUTO = AutoLayout

  def __init__(self, major_to_minor: tuple[int, ...],
               tiling: tuple[tuple[int, ...], ...] | None = None,
               sub_byte_element_size_in_bits: int = 0):
    self.major_to_minor = tuple(major_to_minor)
    self.tiling = None if tiling is None else tuple(map(tuple, tiling))
    self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

  def _key(self) -> tuple:
    return self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits

  def __repr__(self) -> str:
    return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
            f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")

  def __hash__(self) -> int:
    return hash(self._key())

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, Layout) and self._key() == other._key()

  def update(self, **kwargs: Any) -> Layout:
    """A copy with the given fields replaced."""
    fields = dict(zip(("major_to_minor", "tiling", "sub_byte_element_size_in_bits"),
                      self._key()))
    return Layout(**{**fields, **kwargs})

  def check_compatible_aval(self, aval_shape: tuple[int, ...]) -> None:
    if len(self.major_to_minor) != len(aval_shape):
      raise ValueError(f"Length of major_to_minor and the rank of the value should match. Got "
                       f"major_to_minor={self.major_to_minor} and shape={aval_shape}")


class Format:
  """A layout (None: the default, `Layout.AUTO`, or a `Layout`) and a sharding."""
  __slots__ = ["layout", "sharding"]

  def __init__(self, layout: Layout | AutoLayoutSingleton | None = None,
               sharding: Sharding | None = None):
    if isinstance(layout, Layout) and sharding is None:
      raise ValueError(
          f"Sharding has to be concrete when layout is of type {type(layout)}. Please pass a "
          "`jax.sharding.NamedSharding` or `jax.sharding.SingleDeviceSharding` to the sharding "
          f"argument. Got sharding {sharding}")
    if not isinstance(layout, (Layout, type(None), AutoLayoutSingleton)):
      raise TypeError("Invalid value received for the layout argument. Expected values are "
                      f"`None`, `Layout.AUTO` or an instance of `Layout`. Got {layout} of type "
                      f"{type(layout)}")
    if not isinstance(sharding, (Sharding, type(None))):
      raise TypeError("Invalid value received for the sharding argument. Expected values are "
                      f"`None` or an instance of `jax.Sharding`. Got {sharding} of type "
                      f"{type(sharding)}")
    self.layout, self.sharding = layout, sharding

  def __repr__(self) -> str:
    return f"Format(layout={self.layout}, sharding={self.sharding})"

  def __hash__(self) -> int:
    return hash((self.layout, self.sharding))

  def __eq__(self, other: Any) -> bool:
    return (isinstance(other, Format) and self.layout == other.layout
            and self.sharding == other.sharding)
