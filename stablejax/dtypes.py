"""dtypes as in JAX: 32-bit defaults, weak types for Python scalars, and JAX's promotion lattice."""
from __future__ import annotations

import functools
from typing import Any

import ml_dtypes
import numpy as np

from stablejax.config import config

# The tangent dtype of integer and boolean values (JAX's float0: a zero-width type).
float0 = np.dtype([("float0", np.void, 0)])

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
bfloat16 = np.dtype(ml_dtypes.bfloat16)  # numpy's kind for it is "V"; `kind` says "f"
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)

_x64_to_x32 = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}
_supported = {bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
              bfloat16, float16, float32, float64, complex64, complex128}

_short_names = {
    bool_: "bool", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
    uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64",
    bfloat16: "bf16", float16: "f16", float32: "f32", float64: "f64",
    complex64: "c64", complex128: "c128",
    float0: "float0",
}


def short_name(dtype: np.dtype) -> str:
  """`f32`, `i32`, `bool`, ... as JAX prints types."""
  return _short_names.get(dtype, str(dtype))


def kind(dtype) -> str:
  """numpy's kind letter of `dtype` ("b", "i", "u", "f", "c"), but "f" for bfloat16 (which
  numpy, not knowing it, calls "V"). Use it instead of `dtype.kind`."""
  if isinstance(dtype, np.dtype):
    k = _kinds.get(dtype)
    if k is None:
      k = _kinds[dtype] = "f" if dtype.kind == "V" and dtype == bfloat16 else dtype.kind
    return k
  return kind(np.dtype(dtype))


_kinds: dict[np.dtype, str] = {}  # a hot path of every jnp function


def is_float(dtype) -> bool:
  return kind(dtype) == "f"


def is_complex(dtype) -> bool:
  return kind(dtype) == "c"


def is_inexact(dtype) -> bool:
  return kind(dtype) in "fc"


def is_integer(dtype) -> bool:
  return kind(dtype) in "iu"


_BFLOAT16_SUPERTYPES = (np.floating, np.inexact, np.number)


def is_scalar_type(x: Any) -> bool:
  """Whether `x` is a scalar type: numpy's (`np.float32`) or stablejax.numpy's (`jnp.float32`,
  a class standing for its `dtype`)."""
  return isinstance(x, type) and (issubclass(x, np.generic) or
                                  isinstance(getattr(x, "dtype", None), np.dtype))


def issubdtype(arg1: Any, arg2: Any) -> bool:
  """numpy's issubdtype, with bfloat16 a floating type (numpy knows it only as np.generic)."""
  if (arg2 in _BFLOAT16_SUPERTYPES and (arg1 is ml_dtypes.bfloat16 or (
      (isinstance(arg1, (str, np.dtype)) or is_scalar_type(arg1)) and
      np.dtype(arg1) == bfloat16))):
    return True
  return np.issubdtype(arg1, arg2)


def is_bool(dtype) -> bool:
  return dtype == bool_


def canonicalize(dtype) -> np.dtype:
  """The dtype stablejax computes in: 64-bit types narrow to 32 bits unless x64 is enabled."""
  dtype = np.dtype(dtype)
  if not config.enable_x64:
    dtype = _x64_to_x32.get(dtype, dtype)
  if dtype not in _supported and dtype != float0:
    raise TypeError(f"dtype {dtype} is not supported by stablejax")
  return dtype


def default_int() -> np.dtype:
  return int64 if config.enable_x64 else int32


def check_python_int(x: Any) -> None:
  """A Python int operand must fit the default integer type it is weakly typed as (int32, or
  int64 under x64), whatever it is converted to next; JAX raises OverflowError (numpy wraps)."""
  if type(x) is int:
    info = np.iinfo(default_int())
    if not info.min <= x <= info.max:
      raise OverflowError(f"Python int {x} too large to convert to {default_int()}")


def default_float() -> np.dtype:
  return float64 if config.enable_x64 else float32


def default_complex() -> np.dtype:
  return complex128 if config.enable_x64 else complex64


def python_scalar_dtype(x: Any) -> np.dtype:
  """The (weak) dtype of a Python scalar: bool, int, float or complex."""
  if isinstance(x, bool):
    return bool_
  if isinstance(x, int):
    return default_int()
  if isinstance(x, float):
    return default_float()
  if isinstance(x, complex):
    return default_complex()
  raise TypeError(f"not a Python scalar: {x!r}")


def is_python_scalar(x: Any) -> bool:
  return type(x) in (bool, int, float, complex)


# JAX's type promotion lattice. Weak types are the starred nodes: a Python int is `i*`, a float
# `f*`, a complex `c*`; they sit below every concrete type of their kind.
_I, _F, _C = "i*", "f*", "c*"
_lattice = {
    bool_: [_I], _I: [uint8, int8], uint8: [int16, uint16], uint16: [int32, uint32],
    uint32: [int64, uint64], uint64: [_F], int8: [int16], int16: [int32], int32: [int64],
    int64: [_F], _F: [_C, float16, bfloat16], float16: [float32], bfloat16: [float32],
    float32: [float64, complex64],
    float64: [complex128], _C: [complex64], complex64: [complex128], complex128: [],
}


def _upper_sets():
  ups: dict = {}

  def up(node):
    if node not in ups:
      out = {node}
      for parent in _lattice[node]:
        out |= up(parent)
      ups[node] = frozenset(out)
    return ups[node]

  for node in _lattice:
    up(node)
  return ups


_UPPER = _upper_sets()
_weak_node = {"i": _I, "u": _I, "f": _F, "c": _C, "b": bool_}
_weak_default = {_I: default_int, _F: default_float, _C: default_complex}


def _node(dtype: np.dtype, weak: bool):
  return _weak_node[kind(dtype)] if weak else dtype


@functools.lru_cache(maxsize=None)
def _join(nodes: tuple):
  common = functools.reduce(frozenset.intersection, (_UPPER[n] for n in nodes))
  # The least upper bound is the common upper bound below all the others.
  (lub,) = [n for n in common if common <= _UPPER[n]]
  return lub


class TypePromotionError(ValueError):
  """Raised when dtypes have no implicit promotion (`jax_numpy_dtype_promotion='strict'`)."""


# The strict lattice: a weak type promotes to a strong type of its kind or above (a Python int
# to any integer, float or complex type, ...); strong types promote to nothing but themselves.
_WEAK_RANK = {_I: 0, _F: 1, _C: 2}
_KIND_RANK = {"i": 0, "u": 0, "f": 1, "c": 2}
_WEAK_NAME = {_I: "<class 'int'>", _F: "<class 'float'>", _C: "<class 'complex'>"}


def _strict_join(nodes: tuple) -> Any:
  strong = [n for n in nodes if not isinstance(n, str)]
  weak = [n for n in nodes if isinstance(n, str)]
  if not strong:
    return max(weak, key=_WEAK_RANK.__getitem__)
  if len(strong) == 1 and all(_WEAK_RANK[w] <= _KIND_RANK.get(kind(strong[0]), -1)
                              for w in weak):
    return strong[0]
  names = tuple(_WEAK_NAME.get(n, str(n)) for n in nodes)
  raise TypePromotionError(
      f"Input dtypes {names} have no available implicit dtype promotion path when "
      "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output "
      "type, or set jax_numpy_dtype_promotion=standard.")


def result_type(*dtypes_and_weak: tuple[np.dtype, bool]) -> tuple[np.dtype, bool]:
  """Promote `(dtype, weak_type)` pairs as JAX does (its strict lattice under
  `config.numpy_dtype_promotion == 'strict'`); returns the result's `(dtype, weak_type)`."""
  return _result_type(dtypes_and_weak, config.enable_x64,
                      config.numpy_dtype_promotion == "strict")


@functools.lru_cache(maxsize=4096)
def _result_type(dtypes_and_weak: tuple, x64: bool, strict: bool) -> tuple[np.dtype, bool]:
  nodes = tuple({_node(d, w) for d, w in dtypes_and_weak})
  if len(nodes) == 1:
    lub = nodes[0]
  else:
    ordered = tuple(sorted(nodes, key=str))
    lub = _strict_join(ordered) if strict else _join(ordered)
  if isinstance(lub, str):
    return canonicalize(_weak_default[lub]()), True
  return canonicalize(lub), False


def dtype_of(x: Any) -> np.dtype:
  """The canonical dtype of a Python scalar, numpy value or stablejax value."""
  if is_python_scalar(x):
    return python_scalar_dtype(x)
  dt = getattr(x, "dtype", None)
  if dt is None:
    dt = np.result_type(x)
  return canonicalize(dt)


def finfo(dtype) -> ml_dtypes.finfo:
  """Machine limits of a float or complex dtype, bfloat16 included (ml_dtypes' finfo)."""
  return ml_dtypes.finfo(dtype)


def iinfo(dtype):
  return np.iinfo(dtype)
