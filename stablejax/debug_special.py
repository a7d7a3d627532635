"""`jax_debug_nans` / `jax_debug_infs`: the check that raises FloatingPointError when an eager
primitive (or a `jit` call) produces a NaN or an infinity, as JAX's `_check_special` does."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes
from stablejax.config import config


def enabled() -> bool:
  """Whether values are checked (`config.debug_nans` or `config.debug_infs`)."""
  return config.debug_nans or config.debug_infs


def special_kind(values: Sequence[Any]) -> str | None:
  """'nan' or 'inf' for the first special value among `values` that the config checks for."""
  for x in values:
    if isinstance(x, core.Tracer) or not dtypes.is_inexact(core.get_aval(x).dtype):
      continue
    host = np.asarray(x)
    if config.debug_nans and np.isnan(host).any():
      return "nan"
    if config.debug_infs and np.isinf(host).any():
      return "inf"
  return None


def check_special(name: str, values: Sequence[Any]) -> None:
  """Raise FloatingPointError naming `name` (a primitive) if one of `values` is special."""
  kind = special_kind(values)
  if kind is not None:
    raise FloatingPointError(f"invalid value ({kind}) encountered in {name}")
