"""jax.experimental.sparse, the part libraries use: the `BCOO` format (`bcoo`) and the
`sparsify` transformation (`transform`)."""
from stablejax.experimental.sparse.bcoo import (  # noqa: F401
    BCOO, JAXSparse, bcoo_fromdense, bcoo_multiply_dense, bcoo_reduce_sum, bcoo_sum_duplicates,
    bcoo_todense)
from stablejax.experimental.sparse.transform import sparsify  # noqa: F401

__all__ = ["BCOO", "JAXSparse", "bcoo_fromdense", "bcoo_multiply_dense", "bcoo_reduce_sum",
           "bcoo_sum_duplicates", "bcoo_todense", "sparsify"]
