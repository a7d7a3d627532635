"""`stablejax.lib`: empty, as `jax.lib` in JAX 0.10.2 (whose names moved elsewhere)."""
