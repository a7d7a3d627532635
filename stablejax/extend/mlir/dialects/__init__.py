"""jaxlib's MLIR dialects, one module each."""
