"""jaxlib's `builtin` dialect."""
from jaxlib.mlir.dialects.builtin import *  # noqa: F401,F403
