"""Operand checks, dtype promotion and rank promotion, as jax.numpy does them (infrastructure
shared by every section)."""
from __future__ import annotations

import operator
import warnings
from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.config import config
from stablejax.runtime import Array, device_put
from stablejax.shape_poly import is_symbolic_dim
from stablejax.util import join_sizes


def is_arraylike(x: Any) -> bool:
  """An array, a scalar, a traced value or a symbolic dimension (which computes as a value)."""
  return isinstance(x, core.Tracer) or core.is_concrete(x) or is_symbolic_dim(x)


def _canonical(x: Any) -> Any:
  """`x` with a numpy array's dtype narrowed to the dtype stablejax computes in, and a symbolic
  dimension as a value."""
  if is_symbolic_dim(x):
    return lax.dimension_as_value(x)
  if isinstance(x, (np.ndarray, np.generic)):
    dtype = dtypes.canonicalize(x.dtype)
    if x.dtype != dtype:
      return np.asarray(x, dtype)
  return x


def ensure_arraylike(name: str, *args: Any) -> list:
  """The arguments, checked to be arrays or scalars (not lists), numpy ones canonicalized."""
  if all(type(x) is Array or isinstance(x, core.Tracer) for x in args):
    return list(args)
  for i, x in enumerate(args):
    if not is_arraylike(x):
      raise TypeError(f"{name} requires ndarray or scalar arguments, got "
                      f"{type(x).__name__} at position {i}")
  return [_canonical(x) for x in args]


def concrete_int(x: Any, what: str) -> int:
  """A concrete integer argument named `what` in the error for a traced one (a float is a
  TypeError, as in JAX)."""
  return operator.index(core.concrete_or_error(x, what))


def unchanged(x: Any) -> Any:
  """`x` as the result of a function that leaves it as it is: an Array (as every jnp result;
  a Python scalar stays weakly typed), or the tracer."""
  return device_put(x) if core.is_concrete(x) else x


def shape(x: Any) -> tuple[int, ...]:
  return core.get_aval(x).shape


def dtype(x: Any) -> np.dtype:
  return (x.aval if type(x) is Array else core.get_aval(x)).dtype  # (an Array: the hot case)


def convert(x: Any, new_dtype: np.dtype, weak_type: bool = False) -> Any:
  """`x` in `new_dtype` with the given weak type: a no-op when it already is, eager (nothing
  staged) when `x` is concrete."""
  a = core.get_aval(x)
  if a.dtype == new_dtype and a.weak_type == weak_type:
    return x
  return lax.convert_element_type(x, new_dtype, weak_type=weak_type)


def result_type(*args: Any) -> tuple[np.dtype, bool]:
  """JAX's promoted (dtype, weak_type) of the arguments."""
  return dtypes.lattice_join(*((a.dtype, a.weak_type) for a in map(core.get_aval, args)))


def to_inexact(dt: np.dtype) -> np.dtype:
  return dt if dtypes.is_inexact(dt) else dtypes.default_float()


def promote_dtypes(*args: Any) -> list:
  """Convert the arguments to their common dtype (JAX's lattice, weak types included)."""
  if len(args) < 2:
    return list(args)
  dt, weak = result_type(*args)
  return [convert(x, dt, weak) for x in args]


def promote_dtypes_inexact(*args: Any) -> list:
  """Like `promote_dtypes`, with integer and boolean results made floating-point."""
  dt, weak = result_type(*args)
  return [convert(x, to_inexact(dt), weak) for x in args]


def broadcast_shapes(name: str, *shapes: Sequence[int]) -> tuple[int, ...]:
  """numpy's broadcast shape; a ValueError naming every shape when they are incompatible."""
  rank = max((len(s) for s in shapes), default=0)
  out = join_sizes((1,) * (rank - len(s)) + tuple(s) for s in shapes)
  if out is None:
    raise ValueError(f"{name}: incompatible shapes for broadcasting: "
                     f"{', '.join(str(tuple(s)) for s in shapes)}")
  return out


def broadcast_to(x: Any, shape_: Sequence[int]) -> Any:
  """`x` broadcast to `shape_` (leading axes added, size-1 axes repeated)."""
  shape_ = tuple(shape_)
  x_shape = shape(x)
  if x_shape == shape_:
    return x
  nlead = len(shape_) - len(x_shape)
  if nlead < 0 or any(d not in (1, s) for d, s in zip(x_shape, shape_[nlead:])):
    raise ValueError(f"cannot broadcast an array of shape {x_shape} to shape {shape_}")
  return lax.broadcast_in_dim(x, shape_, tuple(range(nlead, len(shape_))))


def _broadcast_to_rank(x: Any, rank: int) -> Any:
  x_shape = shape(x)
  nlead = rank - len(x_shape)
  return lax.broadcast_in_dim(x, (1,) * nlead + x_shape, tuple(range(nlead, rank)))


_RANK_PROMOTION_DOC = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"


def _rank_promotion_check(name: str, shapes: Sequence[tuple]) -> None:
  """Warn or raise as `config.numpy_rank_promotion` says ('warn', 'raise'; 'allow': nothing)."""
  mode = config.numpy_rank_promotion
  listed = " ".join(map(str, shapes))
  if mode == "warn":
    warnings.warn(f"Following NumPy automatic rank promotion for {name} on shapes {listed}. "
                  "Set the jax_numpy_rank_promotion config option to 'allow' to disable this "
                  f"warning; for more information, see {_RANK_PROMOTION_DOC}.")
  elif mode == "raise":
    raise ValueError(f"Operands could not be broadcast together for {name} on shapes {listed} "
                     "and with the config option jax_numpy_rank_promotion='raise'. For more "
                     f"information, see {_RANK_PROMOTION_DOC}.")


def promote_shapes(name: str, *args: Any) -> list:
  """Give non-scalar operands of lower rank leading size-1 axes (JAX's rank promotion); rank-0
  operands and size-1 axes are left to the lax op, which broadcasts them."""
  shapes = [shape(x) for x in args]
  broadcast_shapes(name, *shapes)
  ranks = {len(s) for s in shapes if s}
  if len(ranks) < 2:
    return list(args)
  _rank_promotion_check(name, shapes)
  rank = max(ranks)
  return [x if len(s) in (0, rank) else _broadcast_to_rank(x, rank)
          for x, s in zip(args, shapes)]


def _promote_cheaply(args: Sequence[Any], inexact: bool) -> list | None:
  """The promoted operands in the common cases, decided without the promotion lattice: arrays
  of one type (numpy arrays of its dtype and shape too), beside which Python int and float
  scalars take a strong inexact array's dtype; None for every other case."""
  aval, scalars, host = None, False, []
  for x in args:
    if type(x) is Array or isinstance(x, core.Tracer):
      a = x.aval
      if aval is None:
        aval = a
      elif a is not aval and (a.dtype != aval.dtype or a.weak_type != aval.weak_type
                              or a.shape != aval.shape):
        return None
    elif type(x) is float or type(x) is int:
      scalars = True
    elif type(x) is np.ndarray:
      host.append(x)
    else:
      return None
  if aval is None or host and (aval.weak_type or any(
      x.dtype != aval.dtype or x.shape != aval.shape for x in host)):
    return None
  if dtypes.kind(aval.dtype) not in "fc":
    # (booleans are never weakly typed once promoted: the lattice makes them strong)
    weak_bool = aval.weak_type and aval.dtype == dtypes.bool_
    return None if inexact or scalars or weak_bool else list(args)
  if not scalars:
    return list(args)
  if aval.weak_type or dtypes.narrows(aval.dtype):
    return None  # (the lattice)
  scalar_type, out = aval.dtype.type, []
  for x in args:
    if type(x) is float or type(x) is int:
      dtypes.check_python_int(x)
      x = scalar_type(x)
    out.append(x)
  return out


def _promote(name: str, args: Sequence[Any], inexact: bool) -> list:
  """Check, promote dtypes, then promote ranks, computing each operand's aval once (the
  common cases are `_promote_cheaply`'s, tried first by the callers)."""
  args = ensure_arraylike(name, *args)
  avals = [core.get_aval(x) for x in args]
  dt, weak = dtypes.lattice_join(*((a.dtype, a.weak_type) for a in avals))
  if inexact:
    dt = to_inexact(dt)
  args = [x if a.dtype == dt and a.weak_type == weak else
          lax.convert_element_type(x, dt, weak_type=weak) for x, a in zip(args, avals)]
  if len({a.shape for a in avals if a.shape}) < 2:
    return args  # equal shapes, or scalars beside one shape: nothing to rank-promote
  return promote_shapes(name, *args)


def promote_args(name: str, *args: Any) -> list:
  """What every binary numpy function does first: check, promote dtypes, promote ranks."""
  cheap = _promote_cheaply(args, False)
  return _promote(name, args, False) if cheap is None else cheap


def promote_args_inexact(name: str, *args: Any) -> list:
  cheap = _promote_cheaply(args, True)
  return _promote(name, args, True) if cheap is None else cheap


def scalar_like(x: Any, value: Any) -> np.generic:
  """`value` as a numpy scalar of `x`'s dtype (it stages as a literal; strongly typed, as JAX's
  `_constant_like`)."""
  return np.asarray(value, dtype(x))[()]


_PYTHON_SCALAR_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def weak_scalar_like(x: Any, value: Any) -> Any:
  """`value` as a constant beside `x`, as JAX's `lax._const`: a Python scalar (so the result
  stays weak) where `x` is a weakly typed scalar of the dtype a Python scalar takes, else
  `scalar_like`. JAX's deg2rad, sinc, ... use it; most functions use `scalar_like`."""
  aval = core.get_aval(x)
  to_python = _PYTHON_SCALAR_OF_KIND.get(dtypes.kind(aval.dtype))
  if aval.weak_type and not aval.shape and to_python is not None:
    py = to_python(value)
    if dtypes.python_scalar_dtype(py) == aval.dtype:
      return py
  return scalar_like(x, value)


def filled_like(x: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
  """`lax.full_like` as a jnp result: where it gives a numpy scalar (rank 0, like a traced
  `x`), that scalar as a value of the current trace (a literal of the jaxpr, as JAX's), so that
  operators on it are stablejax's, not numpy's."""
  out = lax.full_like(x, fill_value, dtype, shape)
  if isinstance(out, (Array, core.Tracer)):
    return out
  staged = core.current_trace().stage_value(out)
  return lax.broadcast_in_dim(out, (), ()) if staged is None else staged
