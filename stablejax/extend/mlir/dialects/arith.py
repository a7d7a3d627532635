"""jaxlib's `arith` dialect."""
from jaxlib.mlir.dialects.arith import *  # noqa: F401,F403
