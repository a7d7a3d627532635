"""jax.experimental.pallas: stablejax has no Pallas kernel language (no `pallas_call`); this
package holds only the ops libraries import, each computed with stablejax operations
(`ops.tpu.splash_attention`, with the attention its kernel computes)."""
