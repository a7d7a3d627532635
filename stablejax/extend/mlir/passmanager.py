"""jaxlib's MLIR pass manager."""
from jaxlib.mlir.passmanager import *  # noqa: F401,F403
