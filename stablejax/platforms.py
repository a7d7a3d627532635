"""The platforms stablejax knows, one table for the runtime, the lowering registry, `lower()` and
the CLI. Names are case-insensitive; `gpu` means cuda or rocm."""
from __future__ import annotations

PLATFORMS = ("cpu", "cuda", "rocm", "tpu")

# A name a rule may be registered under -> the platforms it covers.
_COVERS = {**{p: (p,) for p in PLATFORMS}, "gpu": ("cuda", "rocm")}


def _known(platform: str) -> str:
  if not isinstance(platform, str) or platform.lower() not in _COVERS:
    raise ValueError(f"unknown platform {platform!r}; known platforms: {', '.join(PLATFORMS)} "
                     "(and 'gpu' for cuda or rocm)")
  return platform.lower()


def canonical(platform: str) -> str:
  """The platform a module is lowered or compiled for: lower-cased, `gpu` meaning cuda (as in
  JAX). A ValueError names the known platforms."""
  name = _known(platform)
  return "cuda" if name == "gpu" else name


def covered(platform: str) -> tuple[str, ...]:
  """The platforms a rule registered under `platform` applies to (`gpu`: cuda and rocm)."""
  return _COVERS[_known(platform)]
