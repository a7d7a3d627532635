"""Global configuration flags (`sj.config.update("enable_x64", True)`)."""
from __future__ import annotations

import os
from typing import Any


def _env_flag(name: str) -> bool:
  return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _optional_path(name: str, value: Any) -> str | None:
  """A directory path (str or os.PathLike) as a str; None or "" for none."""
  if value is None or value == "":
    return None
  if not isinstance(value, (str, os.PathLike)):
    raise TypeError(f"config option {name!r} takes a directory path (str or os.PathLike) or None, "
                    f"got {type(value).__name__} {value!r}")
  return os.fsdecode(value)


# Options whose values are checked (and converted) by a function of (name, value).
_CHECKS = {"compilation_cache_dir": _optional_path}


class Config:
  """A small flag registry; flags are read on hot paths, so they are plain attributes."""

  def __init__(self) -> None:
    self.enable_x64: bool = _env_flag("STABLEJAX_ENABLE_X64")
    # The passes `jit` and `lower` run when given no `passes=` (names in `stablejax.passes`).
    # DCE only, as JAX: "cse" and "simplify" change the op counts tests compare with JAX's.
    self.passes: tuple[str, ...] = ("dce",)
    # Type-check the jaxpr after every jaxpr pass (`jaxpr.check_jaxpr`): for debugging passes.
    self.check_passes: bool = _env_flag("STABLEJAX_CHECK_PASSES")
    # Constant folding makes no result of more elements than this.
    self.constant_folding_max_size: int = 1024
    # The persistent compilation cache's directory (stablejax/runtime/compilation_cache.py);
    # None: no cache (the default, as JAX).
    self.compilation_cache_dir: str | None = _optional_path(
        "STABLEJAX_COMPILATION_CACHE_DIR", os.environ.get("STABLEJAX_COMPILATION_CACHE_DIR"))
    # Bumped by every `update`: caches of state derived from the flags (jit's dispatch fast
    # path) compare it instead of re-reading each flag.
    self.epoch: int = 0

  def update(self, name: str, value: Any) -> None:
    if name.startswith("_") or name == "epoch" or not hasattr(self, name):
      known = sorted(k for k in vars(self) if not k.startswith("_") and k != "epoch")
      raise ValueError(f"unknown config option {name!r}; known options: {known}")
    current = getattr(self, name)
    if name in _CHECKS:
      value = _CHECKS[name](name, value)
    elif isinstance(current, bool):
      value = bool(value)
    elif isinstance(current, tuple):
      value = (value,) if isinstance(value, str) else tuple(value)
    setattr(self, name, value)
    self.epoch += 1

  def read(self, name: str) -> Any:
    return getattr(self, name)


config = Config()
