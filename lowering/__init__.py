"""Lowering jaxprs to StableHLO MLIR (installed as stablejax.lowering)."""
