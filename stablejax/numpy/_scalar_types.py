"""`jnp.float32` and the other scalar types: usable as dtypes wherever numpy's are, and callable
like them, but `jnp.float32(x)` is an array (traced under a transformation), as in JAX."""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from stablejax import dtypes
from stablejax.numpy._creation import asarray


class ScalarType(type):
  """The metaclass of `jnp.float32` & co: each class stands for its numpy dtype (`dtype`)."""
  dtype: np.dtype

  def __hash__(cls) -> int:
    return hash(cls.dtype.type)

  def __eq__(cls, other: Any) -> bool:
    return cls is other or cls.dtype.type == other

  def __ne__(cls, other: Any) -> bool:
    return not cls == other

  def __call__(cls, x: Any) -> Any:
    return asarray(x, dtype=cls.dtype)

  def __instancecheck__(cls, instance: Any) -> bool:
    return isinstance(instance, cls.dtype.type)

  def __repr__(cls) -> str:
    return f"<class 'stablejax.numpy.{cls.__name__}'>"


def scalar_type(name: str, numpy_type: type) -> ScalarType:
  """The scalar type `name` standing for `numpy_type`."""
  return ScalarType(name, (), {"dtype": np.dtype(numpy_type)})


bool_ = scalar_type("bool_", np.bool_)
int8, int16, int32, int64 = (scalar_type(t.__name__, t)
                             for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (scalar_type(t.__name__, t)
                                 for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (scalar_type(t.__name__, t)
                             for t in (np.float16, np.float32, np.float64))
bfloat16 = scalar_type("bfloat16", ml_dtypes.bfloat16)
complex64, complex128 = scalar_type("complex64", np.complex64), scalar_type("complex128",
                                                                            np.complex128)

# ml_dtypes' small floats and integers, as in JAX.
(float8_e4m3fn, float8_e5m2, float8_e4m3b11fnuz, float8_e4m3fnuz, float8_e5m2fnuz, float8_e3m4,
 float8_e4m3, float8_e8m0fnu, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, int4, int2, int1,
 uint4, uint2, uint1) = (scalar_type(t.name, t.type) for t in (
    dtypes.SMALL_FLOATS + dtypes.SMALL_SIGNED + dtypes.SMALL_UNSIGNED))
