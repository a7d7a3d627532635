"""Global configuration flags (`sj.config.update("enable_x64", True)`)."""
from __future__ import annotations

import os
from typing import Any


def _env_flag(name: str) -> bool:
  return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


class Config:
  """A small flag registry; flags are read on hot paths, so they are plain attributes."""

  def __init__(self) -> None:
    self.enable_x64: bool = _env_flag("STABLEJAX_ENABLE_X64")

  def update(self, name: str, value: Any) -> None:
    if name.startswith("_") or not hasattr(self, name):
      known = sorted(k for k in vars(self) if not k.startswith("_"))
      raise ValueError(f"unknown config option {name!r}; known options: {known}")
    setattr(self, name, bool(value) if isinstance(getattr(self, name), bool) else value)

  def read(self, name: str) -> Any:
    return getattr(self, name)


config = Config()
