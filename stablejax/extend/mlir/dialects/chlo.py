"""jaxlib's `chlo` dialect."""
from jaxlib.mlir.dialects.chlo import *  # noqa: F401,F403
