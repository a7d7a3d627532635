"""`jax.extend`: the interfaces libraries build on (primitives and jaxprs in `core`, wrapped
functions in `linear_util`, source locations in `source_info_util`, the PJRT clients in
`backend`, the MLIR bindings in `mlir`), as thin modules over stablejax's own. A name of JAX's
module that stablejax cannot honour is absent (under `install_as_jax` its use names it)."""
from stablejax.extend import backend, core, linear_util, mlir, random, source_info_util

__all__ = ["backend", "core", "linear_util", "mlir", "random", "source_info_util"]
