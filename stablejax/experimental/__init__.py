"""stablejax.experimental: JAX's `jax.experimental` names that stablejax has."""
