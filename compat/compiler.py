"""`jax._src.compiler`: present so that chex imports (its `restrict_backends` module imports it);
stablejax compiles through its own pipeline, so JAX's `backend_compile*` hooks are not here
and `chex.restrict_backends()` gets the hook's AttributeError naming the one it patches."""
