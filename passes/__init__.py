"""Jaxpr and MLIR rewrite passes (installed as stablejax.passes)."""
