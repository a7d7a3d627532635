"""`jax._src.checkify`: the checkify transformation (stablejax's `experimental.checkify`), with
the type variable `Out` that flax's annotations name."""
from typing import TypeVar

from stablejax.experimental.checkify import Error, checkify

__all__ = ["Error", "Out", "checkify"]

Out = TypeVar("Out")
