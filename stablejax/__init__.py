"""stablejax: trace Python into jaxprs, transform them, lower them to StableHLO and run them."""
from stablejax.config import config
from stablejax import core, lax, tree_util
from stablejax.api import (grad, hessian, jacfwd, jacrev, jvp, linearize, make_jaxpr,
                           value_and_grad, vjp, vmap)
from stablejax.jit import jit

__all__ = ["config", "core", "lax", "tree_util", "grad", "hessian", "jacfwd", "jacrev", "jit",
           "jvp", "linearize", "make_jaxpr", "value_and_grad", "vjp", "vmap"]
