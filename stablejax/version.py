"""stablejax's version (`__version__`, a str, and `__version_info__`, a tuple of ints), as
`jax.version`; read from the installed package's metadata."""
from __future__ import annotations

import importlib.metadata


def _read() -> str:
  try:
    return importlib.metadata.version("stablejax")
  except importlib.metadata.PackageNotFoundError:  # a source tree that was not installed
    return "0.0.0"


def _version_as_tuple(version: str) -> tuple[int, ...]:
  return tuple(int(part) for part in version.split("+")[0].split(".") if part.isdigit())


__version__: str = _read()
__version_info__: tuple[int, ...] = _version_as_tuple(__version__)

# The JAX release whose API stablejax follows (its oracle): what `jax.__version__` says under
# `install_as_jax()`, since libraries choose their code paths by it.
jax_api_version: str = "0.10.2"
jax_api_version_info: tuple[int, ...] = _version_as_tuple(jax_api_version)
