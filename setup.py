"""Package discovery (the metadata is in pyproject.toml).

`lowering/` and `passes/` are top-level folders installed as `stablejax.lowering` and
`stablejax.passes`, and `compat/` as the separate package `stablejax_compat` (JAX's private
modules, for `install_as_jax`); so their subpackages are found here rather than listed by hand
(a hand list once dropped `stablejax.lax.control_flow` from the wheel)."""
from setuptools import find_packages, setup

# installed package -> the folder holding it
ROOTS = {"stablejax": "stablejax", "stablejax.lowering": "lowering", "stablejax.passes": "passes",
         "stablejax_compat": "compat"}

packages = []
for package, folder in ROOTS.items():
  packages += [package] + [f"{package}.{sub}" for sub in find_packages(where=folder)]

setup(packages=packages, package_dir=ROOTS)
