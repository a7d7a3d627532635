"""`jax.extend.mlir`: jaxlib's MLIR bindings (`ir`, `passmanager`, `dialects.*`) and its
StableHLO portable-artifact functions, the same ones JAX gives."""
from jaxlib import _jax

__all__ = ["deserialize_portable_artifact", "hlo_to_stablehlo", "refine_polymorphic_shapes",
           "serialize_portable_artifact"]

deserialize_portable_artifact = _jax.mlir.deserialize_portable_artifact
serialize_portable_artifact = _jax.mlir.serialize_portable_artifact
refine_polymorphic_shapes = _jax.mlir.refine_polymorphic_shapes
hlo_to_stablehlo = _jax.mlir.hlo_to_stablehlo
