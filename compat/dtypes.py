"""`jax._src.dtypes`: stablejax's dtype objects under JAX's private names."""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from stablejax.dtypes import ExtendedDType, TypePromotionError, extended, finfo, issubdtype

__all__ = ["DType", "ExtendedDType", "TypePromotionError", "extended", "finfo", "supports_inf"]

DType = np.dtype

# The float8 types whose top exponent encodes finite values or NaN only (JAX's list).
_FLOAT8_WITHOUT_INF = frozenset({ml_dtypes.float8_e4m3b11fnuz, ml_dtypes.float8_e4m3fn,
                                 ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz})


def supports_inf(dtype: Any) -> bool:
  """Whether `dtype` is inexact and not one of the float8 types without an infinity."""
  return np.dtype(dtype).type not in _FLOAT8_WITHOUT_INF and issubdtype(dtype, np.inexact)
