"""`stablejax.typing`: the annotations of values that are accepted as arrays (`ArrayLike`)
and as dtypes (`DTypeLike`), as `jax.typing`."""
from __future__ import annotations

from typing import Any, Protocol, Union

import numpy as np

from stablejax.basearray import Array  # (arrays and tracers alike, as jax.Array)


class SupportsDType(Protocol):
  """Anything with a `dtype` attribute (an array, a ShapeDtypeStruct, a scalar type)."""

  @property
  def dtype(self) -> np.dtype: ...


ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]

__all__ = ["ArrayLike", "DTypeLike"]
