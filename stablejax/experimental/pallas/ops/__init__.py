"""jax.experimental.pallas.ops: the ops stablejax computes (see the package docstring)."""
