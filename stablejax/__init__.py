"""stablejax: trace Python into jaxprs, transform them, lower them to StableHLO and run them."""
from stablejax.config import config
from stablejax import core, lax, tree_util
from stablejax.api import jacfwd, jvp, make_jaxpr, vmap

__all__ = ["config", "core", "lax", "tree_util", "jacfwd", "jvp", "make_jaxpr", "vmap"]
