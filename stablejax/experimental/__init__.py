"""stablejax.experimental: JAX's `jax.experimental` names that stablejax has."""

from stablejax.callback import io_callback  # noqa: F401
from stablejax.experimental.hijax import cur_qdd  # noqa: F401
