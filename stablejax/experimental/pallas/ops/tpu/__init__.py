"""jax.experimental.pallas.ops.tpu: the ops stablejax computes (see the package docstring)."""
