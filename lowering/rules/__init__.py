"""Lowering rules, one module per primitive family; importing a module registers its rules."""
from __future__ import annotations

from typing import Callable

from stablejax import lax
from stablejax.lowering.registry import register_lowering


def register_lax(name: str, rule: Callable) -> None:
  """Register `rule` as the default lowering of `stablejax.lax.<name>`."""
  register_lowering(getattr(lax, name), rule)
