"""jaxlib's MLIR IR bindings."""
from jaxlib.mlir.ir import *  # noqa: F401,F403
