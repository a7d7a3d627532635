"""jaxlib's `vector` dialect."""
from jaxlib.mlir.dialects.vector import *  # noqa: F401,F403
