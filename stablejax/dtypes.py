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

# ml_dtypes' small floats and integers (numpy's kind for each is "V"; `kind` says "f", "i", "u").
(float8_e4m3fn, float8_e5m2, float8_e4m3b11fnuz, float8_e4m3fnuz, float8_e5m2fnuz, float8_e3m4,
 float8_e4m3, float8_e8m0fnu, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn) = SMALL_FLOATS = tuple(
    np.dtype(getattr(ml_dtypes, n)) for n in (
        "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
        "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn",
        "float6_e2m3fn", "float6_e3m2fn"))
int4, int2, int1 = SMALL_SIGNED = tuple(np.dtype(getattr(ml_dtypes, n))
                                        for n in ("int4", "int2", "int1"))
uint4, uint2, uint1 = SMALL_UNSIGNED = tuple(np.dtype(getattr(ml_dtypes, n))
                                             for n in ("uint4", "uint2", "uint1"))
_custom_kinds = {bfloat16: "f", **{t: "f" for t in SMALL_FLOATS},
                 **{t: "i" for t in SMALL_SIGNED}, **{t: "u" for t in SMALL_UNSIGNED}}

# The types XLA's CPU backend cannot hold (JAX's transfers and programs fail on them alike).
NOT_ON_CPU = frozenset({float6_e2m3fn, float6_e3m2fn, int1, uint1})


class extended(np.generic):  # noqa: N801  (JAX's name)
  """The scalar type class of every extended dtype (`issubdtype(k.dtype, extended)`)."""


class prng_key(extended):  # noqa: N801  (JAX's name)
  """The scalar type class of typed PRNG key dtypes."""


class ExtendedDType:
  """A dtype numpy does not know (JAX's `dtypes.ExtendedDType`): `type` is its scalar type class;
  a value of shape `s` is stored as an array of shape `s + physical_shape` and `physical_dtype`."""
  type: type = extended
  name: str = "extended"
  physical_shape: tuple[int, ...] = ()
  physical_dtype: np.dtype = np.dtype(np.uint32)
  itemsize = property(lambda self: self.physical_dtype.itemsize * _prod(self.physical_shape))

  def __str__(self) -> str:
    return self.name

  __repr__ = __str__


def _prod(shape: tuple[int, ...]) -> int:
  size = 1
  for d in shape:
    size *= d
  return size


def is_extended(dtype: Any) -> bool:
  """Whether `dtype` is an extended dtype (a PRNG key type)."""
  return isinstance(dtype, ExtendedDType)


_x64_to_x32 = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}
_supported = {bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
              bfloat16, float16, float32, float64, complex64, complex128, *_custom_kinds}


def short_name(dtype: np.dtype) -> str:
  """`f32`, `i32`, `bool`, `f8_e4m3fn`, ... as JAX prints types (`key<fry>` for keys)."""
  if isinstance(dtype, ExtendedDType):
    return str(dtype)
  name = _short_names.get(dtype)
  if name is None:
    name = _short_names[dtype] = (dtype.name.replace("float", "f").replace("uint", "u")
                                  .replace("int", "i").replace("complex", "c"))
  return name


_short_names: dict[np.dtype, str] = {bool_: "bool", float0: "float0"}


def kind(dtype) -> str:
  """numpy's kind letter of `dtype` ("b", "i", "u", "f", "c"), also for ml_dtypes' types
  (bfloat16, float8, int4, ...) which numpy, not knowing them, calls "V". Use it instead of
  `dtype.kind`."""
  k = _kinds.get(dtype)  # (a numpy dtype seen before; whatever equals it means that dtype)
  if k is not None:
    return k
  if isinstance(dtype, np.dtype):
    k = _kinds[dtype] = _custom_kinds.get(dtype, "V") if dtype.kind == "V" else dtype.kind
    return k
  if isinstance(dtype, ExtendedDType):
    return "V"
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


def is_scalar_type(x: Any) -> bool:
  """Whether `x` is a scalar type: numpy's (`np.float32`) or stablejax.numpy's (`jnp.float32`,
  a class standing for its `dtype`)."""
  return isinstance(x, type) and (issubclass(x, np.generic) or
                                  isinstance(getattr(x, "dtype", None), np.dtype))


_CUSTOM_SUPERTYPES = {"f": {np.floating, np.inexact, np.number, np.generic},
                      "i": {np.signedinteger, np.integer, np.number, np.generic},
                      "u": {np.unsignedinteger, np.integer, np.number, np.generic}}


def _scalar_type_of_dtype(x: Any) -> type:
  """The scalar class of a dtype-like: numpy's (`np.float32`), an extended dtype's (`.type`,
  a subclass of `extended`) or the one of `np.dtype(x)`."""
  if isinstance(x, type) and issubclass(x, np.generic):
    return x
  t = getattr(x, "type", None)
  if not isinstance(x, np.dtype) and isinstance(t, type) and issubclass(t, extended):
    return t
  return np.dtype(x).type


def issubdtype(arg1: Any, arg2: Any) -> bool:
  """numpy's issubdtype, knowing ml_dtypes' types (bfloat16 and float8 are floating, int4 a
  signed integer, ...) and the extended dtypes (`extended`, `prng_key`)."""
  return _issubdtype(_scalar_type_of_dtype(arg1), _scalar_type_of_dtype(arg2))


@functools.lru_cache(maxsize=512)
def _issubdtype(a: type, b: type) -> bool:
  if issubclass(a, extended) or issubclass(b, extended):
    return issubclass(a, b)
  k = _custom_kinds.get(np.dtype(a))
  if k is not None:
    return b is a or b in _CUSTOM_SUPERTYPES[k]
  return bool(np.issubdtype(a, b))


def is_bool(dtype) -> bool:
  return dtype == bool_


def canonicalize(dtype) -> np.dtype:
  """The dtype stablejax computes in: 64-bit types narrow to 32 bits unless x64 is enabled."""
  if isinstance(dtype, ExtendedDType):
    return dtype
  dtype = np.dtype(dtype)
  if not config.enable_x64:
    dtype = _x64_to_x32.get(dtype, dtype)
  if dtype not in _supported and dtype != float0:
    raise TypeError(f"dtype {dtype} is not supported by stablejax")
  return dtype


def narrows(dtype: np.dtype) -> bool:
  """Whether `canonicalize` changes supported `dtype`: a 64-bit type while x64 is off (an
  array made under `enable_x64`, used after it)."""
  return dtype in _x64_to_x32 and not config.enable_x64


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
    bool_: [_I], _I: [uint8, int8, *SMALL_SIGNED, *SMALL_UNSIGNED], uint8: [int16, uint16], uint16: [int32, uint32],
    uint32: [int64, uint64], uint64: [_F], int8: [int16], int16: [int32], int32: [int64],
    int64: [_F], _F: [_C, float16, bfloat16, *SMALL_FLOATS], float16: [float32],
    bfloat16: [float32], **{t: [] for t in SMALL_FLOATS + SMALL_SIGNED + SMALL_UNSIGNED},
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
  lubs = [n for n in common if common <= _UPPER[n]]
  if len(lubs) != 1:
    names = tuple(n if isinstance(n, str) else n.name for n in nodes)
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path. The small "
        "float and integer types (float8, int4, ...) do not promote implicitly: convert "
        "explicitly, e.g. with x.astype('float32').")
  return lubs[0]


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


def lattice_join(*dtypes_and_weak: tuple[np.dtype, bool]) -> tuple[np.dtype, bool]:
  """Promote `(dtype, weak_type)` pairs as JAX does (its strict lattice under
  `config.numpy_dtype_promotion == 'strict'`); returns the result's `(dtype, weak_type)`."""
  return _lattice_join(dtypes_and_weak, config.enable_x64,
                       config.numpy_dtype_promotion == "strict")


@functools.lru_cache(maxsize=4096)
def _lattice_join(dtypes_and_weak: tuple, x64: bool, strict: bool) -> tuple[np.dtype, bool]:
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


finfo = ml_dtypes.finfo  # machine limits of floats, ml_dtypes' (bfloat16, float8) included
iinfo = ml_dtypes.iinfo  # of integers, int4 & co included


# ----------------------------------------------------------------------------------------------
# JAX's public `jax.dtypes` functions

def _dtype_and_weak(x: Any) -> tuple[np.dtype, bool]:
  """The canonical (dtype, weak type) of a value, a dtype, a scalar type or a Python type."""
  if isinstance(x, type) and x in (bool, int, float, complex):
    return python_scalar_dtype(x()), x is not bool
  if is_python_scalar(x):
    return python_scalar_dtype(x), type(x) is not bool
  aval = getattr(x, "aval", None)
  if aval is not None:
    return aval.dtype, aval.weak_type
  if isinstance(x, (str, np.dtype)) or is_scalar_type(x):
    return canonicalize(np.dtype(x)), False
  return dtype_of(x), False


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
  """The dtype JAX's promotion gives `args` (values, dtypes or scalar types; None is the
  default float); with `return_weak_type_flag`, the pair (dtype, weak_type)."""
  if not args:
    raise ValueError("at least one array or dtype is required")
  out = lattice_join(*(_dtype_and_weak(default_float() if a is None else a) for a in args))
  return out if return_weak_type_flag else out[0]


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> Any:
  """`dtype` as a numpy dtype, narrowed to 32 bits unless x64 is enabled; an extended dtype
  (a PRNG key type) is returned as it is where `allow_extended_dtype`."""
  if _is_extended(dtype):
    if allow_extended_dtype:
      return dtype
    raise TypeError(f"canonicalize_dtype: extended dtype {dtype} is not allowed here "
                    "(pass allow_extended_dtype=True)")
  try:
    dt = np.dtype(dtype)
  except TypeError as e:
    raise TypeError(f"dtype {dtype!r} not understood") from e
  return dt if config.enable_x64 else _x64_to_x32.get(dt, dt)


def _is_extended(dtype: Any) -> bool:
  t = getattr(dtype, "type", None)
  return not isinstance(dtype, np.dtype) and isinstance(t, type) and issubclass(t, extended)


_SCALAR_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def scalar_type_of(x: Any) -> type:
  """The Python scalar type (bool, int, float or complex) of a value's dtype."""
  dt = _dtype_and_weak(x)[0]
  t = _SCALAR_TYPES.get(kind(dt))
  if t is None:
    raise TypeError(f"Invalid scalar value {x}")
  return t


def is_weakly_typed(x: Any) -> bool:
  """Whether `x` is weakly typed: a Python int, float or complex, or a value from one."""
  if type(x) in (int, float, complex):
    return True
  return bool(getattr(getattr(x, "aval", None), "weak_type", False))


def itemsize_bits(dtype: Any) -> int:
  """The width of `dtype` in bits (4 for int4 and float4_e2m1fn, 8 for bool)."""
  if dtype is None:
    raise ValueError("dtype cannot be None.")
  dt = np.dtype(dtype)
  if kind(dt) not in "biufc":
    raise ValueError(f"unexpected input: {dtype=}")
  k = _custom_kinds.get(dt)
  if k is None:
    return dt.itemsize * 8
  return (finfo(dt) if k == "f" else iinfo(dt)).bits
