"""The table of lowering rules: a default rule per primitive and per-platform overrides."""
from __future__ import annotations

from typing import Callable

from stablejax import core

KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
# Platform names a rule may be registered under, and the platforms each one covers.
_PLATFORM_ALIASES = {"cpu": ("cpu",), "cuda": ("cuda",), "rocm": ("rocm",), "tpu": ("tpu",),
                     "gpu": ("cuda", "rocm")}

# primitive -> {platform or None (the default rule): rule}
_rules: dict[core.Primitive, dict[str | None, Callable]] = {}


class LoweringError(Exception):
  """A jaxpr cannot be lowered: a missing rule, a bad rule result or an invalid module."""


def canonical_platform(platform: str) -> str:
  """The platform a module is lowered for ('gpu' means 'cuda', as in JAX)."""
  if platform == "gpu":
    return "cuda"
  if platform not in KNOWN_PLATFORMS:
    raise ValueError(f"unknown platform {platform!r}; known platforms: "
                     f"{', '.join(KNOWN_PLATFORMS)} (and 'gpu' for cuda and rocm)")
  return platform


def register_lowering(prim: core.Primitive, rule: Callable, platform: str | None = None
                      ) -> Callable:
  """Register `rule(ctx, *values, **params) -> [ir.Value]` for `prim`: the default rule, or an
  override used only when lowering for `platform`."""
  if not isinstance(prim, core.Primitive):
    raise TypeError(f"register_lowering: expected a core.Primitive, got {prim!r}")
  if not callable(rule):
    raise TypeError(f"register_lowering: the rule for '{prim.name}' is not callable: {rule!r}")
  if platform is None:
    targets: tuple = (None,)
  elif platform in _PLATFORM_ALIASES:
    targets = _PLATFORM_ALIASES[platform]
  else:
    raise ValueError(f"register_lowering: unknown platform {platform!r} for primitive "
                     f"'{prim.name}'; known platforms: {', '.join(_PLATFORM_ALIASES)}")
  table = _rules.setdefault(prim, {})
  for p in targets:
    table[p] = rule
  return rule


def lookup_rule(prim: core.Primitive, platform: str) -> Callable:
  """The rule lowering `prim` on `platform`: its override there, else its default rule."""
  table = _rules.get(prim)
  rule = None if table is None else table.get(platform) or table.get(None)
  if rule is None:
    raise LoweringError(f"no lowering rule for primitive '{prim.name}' on platform "
                        f"'{platform}': register one with stablejax.lowering.register_lowering")
  return rule
