"""numpy's logic functions: truth value testing (all, any, over `_reductions`), comparisons,
logical operations, tests of values (isnan, isinf, isfinite, ...), closeness and equality of
arrays (array type tests are in `_logic_type_tests`)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import dtypes, lax
from stablejax.numpy._elementwise import all_bool, binary, logical, named, ordered, to_bool
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype, ensure_arraylike, promote_args_inexact,
    promote_dtypes, scalar_like, shape, unchanged)
from stablejax.numpy._reductions import ALL, ANY, Axis, check_out, reduce


def _nonzero(a: Any) -> Any:
  """Nonzero as True; a complex value by its real part, as JAX casts it."""
  if dtypes.is_complex(dtype(a)):
    a = lax.real(a)
  return a if dtype(a) == dtypes.bool_ else lax.ne(a, scalar_like(a, 0))


def all(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, *,  # noqa: A001
        where: Any = None) -> Any:
  """Whether every element of `a` over `axis` is nonzero."""
  check_out("all", out)
  return reduce("all", ALL, a, axis, None, keepdims, None, where, preproc=_nonzero)


def any(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, *,  # noqa: A001
        where: Any = None) -> Any:
  """Whether any element of `a` over `axis` is nonzero."""
  check_out("any", out)
  return reduce("any", ANY, a, axis, None, keepdims, None, where, preproc=_nonzero)


equal = binary("equal", lax.eq, False)


not_equal = binary("not_equal", lax.ne, False)


less = binary("less", ordered(lax.lt), False)


less_equal = binary("less_equal", ordered(lax.le), False)


greater = binary("greater", ordered(lax.gt), False)


greater_equal = binary("greater_equal", ordered(lax.ge), False)


logical_and = binary("logical_and", logical(lax.bitwise_and), False)


logical_or = binary("logical_or", logical(lax.bitwise_or), False)


logical_xor = binary("logical_xor", logical(lax.bitwise_xor), False)


def logical_not(x: Any, /) -> Any:
  """Elementwise logical negation (nonzero is True)."""
  (x,) = ensure_arraylike("logical_not", x)
  return lax.bitwise_not(to_bool(x))


def isnan(x: Any, /) -> Any:
  """Elementwise test for NaN."""
  (x,) = ensure_arraylike("isnan", x)
  return lax.ne(x, x)  # (as JAX: for integers too, so a weak type carries over)


def isinf(x: Any, /) -> Any:
  """Elementwise test for positive or negative infinity."""
  (x,) = ensure_arraylike("isinf", x)
  if dtypes.is_complex(dtype(x)):
    return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
  if dtypes.is_inexact(dtype(x)):
    return lax.eq(lax.abs(x), scalar_like(x, np.inf))
  return all_bool(x, False)


def isfinite(x: Any, /) -> Any:
  """Elementwise test for a finite value (neither infinite nor NaN)."""
  (x,) = ensure_arraylike("isfinite", x)
  if dtypes.is_complex(dtype(x)):
    return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
  if dtypes.is_inexact(dtype(x)):
    return lax.is_finite(x)
  return all_bool(x, True)


def _is_signed_inf(name: str, value: float) -> Callable[[Any], Any]:
  def fn(x: Any, /, out: None = None) -> Any:
    if out is not None:
      raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    (x,) = ensure_arraylike(name, x)
    if dtypes.is_complex(dtype(x)):
      raise ValueError(f"jnp.{name} is not well defined for complex-valued inputs")
    if not dtypes.is_inexact(dtype(x)):
      return all_bool(x, False)
    return lax.eq(x, scalar_like(x, value))
  return named(fn, name, f"Elementwise test for {value}, as numpy.{name}.")


isposinf = _is_signed_inf("isposinf", np.inf)


isneginf = _is_signed_inf("isneginf", -np.inf)


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
            equal_nan: bool = False) -> Any:
  """Elementwise a == b or, for finite b, |a - b| <= atol + rtol |b|, in floating point (so
  integers too, as JAX's)."""
  a, b = promote_args_inexact("isclose", a, b)
  rtol, atol = (convert(x, dtype(lax.abs(a))) for x in ensure_arraylike("isclose", rtol, atol))
  close = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
  out = lax.bitwise_or(lax.eq(a, b), lax.bitwise_and(isfinite(b), close))
  if equal_nan:
    out = lax.bitwise_or(out, lax.bitwise_and(isnan(a), isnan(b)))
  return out


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
             equal_nan: bool = False) -> Any:
  """Whether every element of `a` is close to `b` (`isclose`)."""
  return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
  """Whether `a1` and `a2` have the same shape and elements."""
  a1, a2 = ensure_arraylike("array_equal", a1, a2)
  if shape(a1) != shape(a2):
    return unchanged(np.bool_(False))
  a1, a2 = promote_dtypes(a1, a2)
  equal = lax.eq(a1, a2)
  if equal_nan:
    equal = lax.bitwise_or(equal, lax.bitwise_and(isnan(a1), isnan(a2)))
  return all(equal)


def array_equiv(a1: Any, a2: Any) -> Any:
  """Whether `a1` and `a2` broadcast to one shape and are equal elementwise."""
  a1, a2 = ensure_arraylike("array_equiv", a1, a2)
  try:
    out_shape = broadcast_shapes("array_equiv", shape(a1), shape(a2))
  except ValueError:
    return unchanged(np.bool_(False))
  a1, a2 = promote_dtypes(a1, a2)
  return all(lax.eq(broadcast_to(a1, out_shape), broadcast_to(a2, out_shape)))
