"""`jax._src.checkify`: the checkify transformation (stablejax's `experimental.checkify`), with
the type variable `Out` that flax's annotations name."""
from typing import TypeVar

from stablejax.experimental.checkify import Error, checkify, user_checks

__all__ = ["Error", "Out", "checkify", "user_checks"]

Out = TypeVar("Out")
