"""jaxlib's `memref` dialect."""
from jaxlib.mlir.dialects.memref import *  # noqa: F401,F403
