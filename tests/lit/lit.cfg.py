"""lit configuration: every `.py` file here is a test run as `%PYTHON file | FileCheck file`
(`stablejax.lit_config`, the configuration users import in their own test folders)."""
import importlib.util

from stablejax.lit_config import configure

configure(config, name="stablejax")  # noqa: F821  (lit provides `config`)

# `REQUIRES: flax-on-stablejax`: flax and optax are installed (the `ecosystem` extra) and
# stablejax has the `jax` modules flax imports.
_FLAX_NEEDS = ("flax", "optax", "stablejax.extend", "stablejax.experimental.layout")
if all(importlib.util.find_spec(name) is not None for name in _FLAX_NEEDS):
  config.available_features.add("flax-on-stablejax")  # noqa: F821
