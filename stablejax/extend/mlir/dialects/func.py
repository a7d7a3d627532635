"""jaxlib's `func` dialect."""
from jaxlib.mlir.dialects.func import *  # noqa: F401,F403
