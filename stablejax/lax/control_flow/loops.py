"""`fori_loop`: a `scan` carrying the loop index when the bounds are concrete (so it is
reverse-differentiable), a `while_loop` otherwise."""
from __future__ import annotations

from typing import Any, Callable

from stablejax import core, dtypes
from stablejax.lax.control_flow.scan import scan
from stablejax.lax.control_flow.while_loop import while_loop
from stablejax.lax.elementwise import convert_element_type


def fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any, *,
              unroll: int | bool | None = None) -> Any:
  """`for i in range(lower, upper): val = body_fun(i, val)`, staged; returns the final `val`."""
  if not callable(body_fun):
    raise TypeError(f"lax.fori_loop: body_fun argument should be callable, got {body_fun!r}")
  dtype = _bounds_dtype(lower, upper)
  lower_c, upper_c = _concrete_int(lower), _concrete_int(upper)
  if lower_c is not None and upper_c is not None:
    (_, result), _ = scan(lambda carry, _: ((carry[0] + 1, body_fun(*carry)), None),
                          (lower_c, init_val), None, length=max(upper_c - lower_c, 0),
                          unroll=1 if unroll is None else unroll)
    return result
  if unroll not in (None, False, 1):
    raise ValueError("fori_loop can only use `unroll` when the loop bounds are statically "
                     "known (concrete integers)")
  lower, upper = (x if dtypes.dtype_of(x) == dtype else convert_element_type(x, dtype)
                  for x in (lower, upper))
  _, _, result = while_loop(lambda c: c[0] < c[1],
                            lambda c: (c[0] + 1, c[1], body_fun(c[0], c[2])),
                            (lower, upper, init_val))
  return result


def _weak(x: Any) -> bool:
  return core.get_aval(x).weak_type


def _bounds_dtype(lower: Any, upper: Any) -> Any:
  """The loop index dtype: the bounds' dtype; a weakly typed (Python int) bound takes the
  other's signed integer dtype, as in JAX."""
  lo, hi = dtypes.dtype_of(lower), dtypes.dtype_of(upper)
  if lo == hi:
    return lo
  if lo.kind == hi.kind == "i" and _weak(lower) != _weak(upper):
    return hi if _weak(lower) else lo
  raise TypeError(f"lower and upper arguments to fori_loop must have equal types, got "
                  f"{lo.name} and {hi.name}")


def _concrete_int(x: Any) -> int | None:
  """`x` as a Python int when it is concrete (also behind a tracer of concrete values)."""
  value = x.to_concrete_value() if isinstance(x, core.Tracer) else x
  if value is None:
    return None
  try:
    return int(value)
  except TypeError:
    return None
