"""Global configuration flags (`sj.config.update("enable_x64", True)`)."""
from __future__ import annotations

import os
from typing import Any

from stablejax import platforms


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


def _optional_count(name: str, value: Any) -> int | None:
  """A positive int (or a str of one); None or "" for the default."""
  if value is None or value == "":
    return None
  try:
    n = int(value)
  except (TypeError, ValueError):
    n = 0
  if n < 1 or isinstance(value, (bool, float)):
    raise ValueError(f"config option {name!r} takes a positive int or None, got {value!r}")
  return n


# Options whose values are checked (and converted) by a function of (name, value).
_CHECKS = {"compilation_cache_dir": _optional_path, "num_cpu_devices": _optional_count,
           "default_backend": lambda name, value: platforms.backend(value)}


class Config:
  """A small flag registry; flags are read on hot paths, so they are plain attributes."""

  def __init__(self) -> None:
    self.enable_x64: bool = _env_flag("STABLEJAX_ENABLE_X64")
    # The passes `jit` and `lower` run when given no `passes=` (names in `stablejax.passes`).
    # DCE only, as JAX: "cse" and "simplify" change the op counts tests compare with JAX's.
    self.passes: tuple[str, ...] = ("dce",)
    # Type-check the jaxpr after every jaxpr pass (`jaxpr.check_jaxpr`): for debugging passes.
    self.check_passes: bool = _env_flag("STABLEJAX_CHECK_PASSES")
    # Check the result types of stablejax's own lowering rules too (users' rules are always
    # checked): the test suite turns it on, lowering skips it by default (a tenth of its time).
    self.check_lowering_rules: bool = _env_flag("STABLEJAX_CHECK_LOWERING_RULES")
    # Check the results of stablejax's own JVP, transpose and batching rules too (users' rules
    # are always checked: interpreters/rule_checks.py); the test suite turns it on.
    self.check_transform_rules: bool = _env_flag("STABLEJAX_CHECK_TRANSFORM_RULES")
    # Constant folding makes no result of more elements than this.
    self.constant_folding_max_size: int = 1024
    # The persistent compilation cache's directory (stablejax/runtime/compilation_cache.py);
    # None: no cache (the default, as JAX).
    self.compilation_cache_dir: str | None = _optional_path(
        "STABLEJAX_COMPILATION_CACHE_DIR", os.environ.get("STABLEJAX_COMPILATION_CACHE_DIR"))
    # The backend `jit` compiles with when given no `backend=`: "xla" (PJRT) or "iree" (the
    # extra `stablejax[iree]`; stablejax/runtime/iree.py). Eager operations always run on XLA.
    self.default_backend: str = "xla"
    # The number of CPU devices (None: one); read when the CPU client is made, frozen after.
    self.num_cpu_devices: int | None = _optional_count(
        "STABLEJAX_NUM_CPU_DEVICES", os.environ.get("STABLEJAX_NUM_CPU_DEVICES"))
    # Options that can no longer change, with why (`freeze`).
    self._frozen: dict[str, str] = {}
    # Bumped by every `update`: caches of state derived from the flags (jit's dispatch fast
    # path) compare it instead of re-reading each flag.
    self.epoch: int = 0

  def update(self, name: str, value: Any) -> None:
    if name.startswith("_") or name == "epoch" or not hasattr(self, name):
      known = sorted(k for k in vars(self) if not k.startswith("_") and k != "epoch")
      raise ValueError(f"unknown config option {name!r}; known options: {known}")
    if name in self._frozen:
      raise RuntimeError(f"config option {name!r} can no longer be changed: {self._frozen[name]}")
    current = getattr(self, name)
    if name in _CHECKS:
      value = _CHECKS[name](name, value)
    elif isinstance(current, bool):
      value = bool(value)
    elif isinstance(current, tuple):
      value = (value,) if isinstance(value, str) else tuple(value)
    setattr(self, name, value)
    self.epoch += 1

  def freeze(self, name: str, reason: str) -> None:
    """Make `update(name, ...)` raise from now on (the option was read once for good)."""
    self._frozen[name] = reason

  def read(self, name: str) -> Any:
    return getattr(self, name)


config = Config()
