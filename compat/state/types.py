"""`jax._src.state.types`: the abstract type of a mutable array reference."""
from stablejax.lax.state import AbstractRef

__all__ = ["AbstractRef"]
