"""jaxlib's `math` dialect."""
from jaxlib.mlir.dialects.math import *  # noqa: F401,F403
