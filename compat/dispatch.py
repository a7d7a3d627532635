"""`jax._src.dispatch`: `wait_for_tokens` waits until the effects of the computations running
now have happened (stablejax's `effects_barrier`, which JAX's calls too)."""
from stablejax.environment import effects_barrier as wait_for_tokens

__all__ = ["wait_for_tokens"]
