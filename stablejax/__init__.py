"""stablejax: trace Python into jaxprs, transform them, lower them to StableHLO and run them."""
from stablejax.config import config
from stablejax import core, lax, tree_util
from stablejax import numpy  # noqa: F401  (installs the operators of traced values and arrays)
from stablejax import pipeline  # noqa: F401  (eager primitives compile and run on a device)
from stablejax.api import (grad, hessian, jacfwd, jacrev, jvp, linearize, make_jaxpr,
                           value_and_grad, vjp, vmap)
from stablejax.jit import jit
from stablejax.runtime import Array, device_put, devices

__all__ = ["Array", "config", "core", "device_put", "devices", "lax", "tree_util", "grad",
           "hessian", "jacfwd", "jacrev", "jit", "jvp", "linearize", "make_jaxpr",
           "value_and_grad", "vjp", "vmap"]
