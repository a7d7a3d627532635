"""The platforms stablejax knows, one table for the runtime, the lowering registry, `lower()` and
the CLI. Names are case-insensitive; `gpu` means cuda or rocm. `tpu` and `iree` are lowered for
only (no PJRT client here): `iree` is the platform of modules compiled by the IREE backend, so
`register_lowering(prim, rule, platform="iree")` overrides a rule there."""
from __future__ import annotations

PLATFORMS = ("cpu", "cuda", "rocm", "tpu", "iree")

# The backends that compile a lowered module (`jit(f, backend=)`, `sj.config.default_backend`):
# XLA through PJRT for the devices' platforms, IREE for the `iree` platform (stablejax/runtime).
BACKENDS = ("xla", "iree")

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


def backend(name: str) -> str:
  """`name` if it is one of the `BACKENDS`, else a ValueError naming them."""
  if name not in BACKENDS:
    raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(BACKENDS)}")
  return name
