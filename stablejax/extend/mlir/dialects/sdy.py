"""jaxlib's `sdy` dialect."""
from jaxlib.mlir.dialects.sdy import *  # noqa: F401,F403
