"""jaxlib's `sparse_tensor` dialect."""
from jaxlib.mlir.dialects.sparse_tensor import *  # noqa: F401,F403
