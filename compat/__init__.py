"""`stablejax_compat`: JAX's private modules (`jax._src.<module>`) that JAX's libraries import,
answered for `stablejax.install_as_jax()` (whose hook maps `jax._src.X` to `stablejax_compat.X`).

It is kept apart on purpose: nothing in stablejax imports it (tests/py/test_compat.py checks),
and it holds only names a library needs, each a true alias of a stablejax object or a thin
adapter with the same behaviour. A name that is not here is refused by the hook with an
AttributeError or ImportError naming `jax._src.<name>`; libraries that guard such an import
(flax's `earray`/`pxla`, equinox's `literals`, keras's `cudnn`) then take their fallback.

`NEEDED_BY` records every name: `jax._src` module -> name -> the library (and the version read)
that reaches for it."""

NEEDED_BY = {
    "traceback_util": {
        "api_boundary": "flax 0.12.8 (flax/traceback_util.py)",
        "register_exclusion": "flax 0.12.8, equinox 0.13.8 (at import, in most modules)",
        "_exclude_paths": "flax 0.12.8 (hide_flax_in_tracebacks)",
        "include_frame": "equinox 0.13.8 (_errors.py, formatting an error_if failure)",
    },
    "dtypes": {
        "DType": "flax 0.12.8 (linen/fp8_ops.py, at import)",
        "extended": "flax 0.12.8 (linen/fp8_ops.py subclasses it, at import)",
        "ExtendedDType": "flax 0.12.8 (linen/fp8_ops.py subclasses it, at import)",
        "finfo": "flax 0.12.8 (linen/fp8_ops.py)",
        "supports_inf": "flax 0.12.8 (linen/fp8_ops.py)",
        "TypePromotionError": "equinox 0.13.8 (nn/_embedding.py, at import)",
    },
    "core": {
        "ShapedArray": "flax 0.12.8 (linen/fp8_ops.py)",
        "physical_aval": "flax 0.12.8 (linen/fp8_ops.py)",
        "trace_state_clean": "numpyro 0.22.0 (util.py, under a transformation)",
    },
    "tree_util": {"_registry": "flax 0.12.8 (nnx/graphlib.py, at import)"},
    "state.types": {"AbstractRef": "flax 0.12.8 (nnx/variablelib.py, at import)"},
    "checkify": {
        "checkify, Error, Out, user_checks": "flax 0.12.8 (nnx/transforms.py)",
    },
    "dispatch": {"wait_for_tokens": "equinox 0.13.8 (_jit.py, at import)"},
    "compiler": {"(the module only)": "chex 0.1.92 (restrict_backends.py, at import)"},
}
