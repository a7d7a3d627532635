"""The machinery of numpy's reductions along axes: `reduce`, the one recipe of sum, prod,
max/min and all/any (a `Monoid` each), with the `axis`, `dtype`, `where`, `initial` and
`keepdims` handling they share, and `nan_reduction`, the recipe of the nan-ignoring ones.

The public reductions live in the module of the numpy section that documents them: sums,
products and cumulative sums (and their nan variants) in `_math_sums`; `all` and `any` in
`_logic`; max/min, ptp, mean, var, std, average and their nan variants in `_statistics`;
argmax/argmin, their nan variants and count_nonzero in `_sorting_searching`."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stablejax import dtypes, lax
from stablejax.numpy._axes import canonicalize_axes, expand_axes
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, dtype as dtype_of, ensure_arraylike, shape)

Axis = int | Sequence[int] | None


def reduced_axes(name: str, axis: Axis, ndim: int) -> tuple[int, ...]:
  """The axes a reduction over `axis` (all when None) removes, canonical."""
  return tuple(range(ndim)) if axis is None else canonicalize_axes(name, axis, ndim)


def promoted_int_dtype(dt: np.dtype) -> np.dtype:
  """sum and prod of booleans and narrow integers accumulate in the default integer width."""
  if dt == dtypes.bool_:
    return dtypes.default_int()
  if dt in dtypes.SMALL_SIGNED + dtypes.SMALL_UNSIGNED:  # JAX refuses these too
    raise ValueError(f"Invalid integer data type {dt.name} to accumulate in: convert the "
                     "operand first, e.g. x.astype(jnp.int32)")
  default_bits = dtypes.default_int().itemsize
  if dtypes.is_integer(dt) and dt.itemsize < default_bits:
    return np.dtype(f"{dt.kind}{default_bits}")
  return dt


def computation_dtype(dt: np.dtype) -> np.dtype:
  """The dtype a reduction computes in: float32 for the 16-bit floats."""
  return dtypes.float32 if dt in (dtypes.float16, dtypes.bfloat16) else dt


def user_dtype(dt: Any, default: np.dtype) -> np.dtype:
  """The dtype the user asked for (canonicalized), else `default`."""
  return default if dt is None else dtypes.canonicalize(np.dtype(dt))


class Monoid(NamedTuple):
  """How a reduction combines: its lax reduction, the elementwise op (applied to `initial`) and
  the op's identity, as a value that `identity` fits to a dtype."""
  reduce: Callable
  combine: Callable
  identity: float


SUM = Monoid(lax.reduce_sum, lax.add, 0)
PROD = Monoid(lax.reduce_prod, lax.mul, 1)
MAX = Monoid(lax.reduce_max, lax.max, -np.inf)
MIN = Monoid(lax.reduce_min, lax.min, np.inf)
ANY = Monoid(lax.reduce_or, lax.bitwise_or, 0)
ALL = Monoid(lax.reduce_and, lax.bitwise_and, 1)
AND_BITS = Monoid(lax.reduce_and, lax.bitwise_and, -1)  # (-1: every bit set)
XOR = Monoid(lax.reduce_xor, lax.bitwise_xor, 0)

# The monoid a reduction computing in bool uses instead (sum(dtype=bool) is `any`, as in JAX).
ON_BOOL = {SUM: ANY, PROD: ALL}


def identity(value: float, dt: np.dtype) -> np.generic:
  """`value` in `dt`: a bool is `value > 0`; infinities saturate for integers (JAX's rule); -1
  is every bit set (True for a bool)."""
  if value == -1 and dt.kind in "biu":
    return np.array(-1).astype(dt)[()]
  if dt == dtypes.bool_:
    return np.bool_(value > 0)
  if np.isinf(value) and dt.kind in "iu":
    info = np.iinfo(dt)
    return dt.type(info.min if value < 0 else info.max)
  return np.asarray(value, dt)[()]


def check_where(name: str, where: Any) -> Any:
  """The `where=` mask: None or a boolean array."""
  if where is None:
    return None
  (where,) = ensure_arraylike(name, where)
  if dtype_of(where) != dtypes.bool_:
    raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                     f"where.dtype={dtype_of(where)}.")
  return where


def masked(a: Any, where: Any, fill: Any) -> Any:
  """`a` where `where` is True, else the scalar `fill` (both broadcast together)."""
  out_shape = broadcast_shapes("where", shape(a), shape(where))
  a, where = broadcast_to(a, out_shape), broadcast_to(where, out_shape)
  return lax.select_n(where, lax.full_like(a, fill), a)


def check_out(name: str, out: Any) -> None:
  """numpy's `out=` argument, which only None passes."""
  if out is not None:
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def reduce(name: str, monoid: Monoid, a: Any, axis: Axis, dtype: Any, keepdims: bool,
           initial: Any, where: Any, *, has_identity: bool = True,
           promote_integers: bool = False, upcast_f16: bool = False,
           preproc: Callable | None = None) -> Any:
  """JAX's reduction recipe: mask with the identity, reduce, combine with `initial`, keep dims,
  and return in the requested (or input) dtype, strongly typed."""
  (a,) = ensure_arraylike(name, a)
  where = check_where(name, where)
  if initial is None and not has_identity and where is not None:
    raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                     f"where mask one has to specify 'initial'")
  a = preproc(a) if preproc else a
  axes = reduced_axes(name, axis, len(shape(a)))
  if initial is None and not has_identity and 0 in [shape(a)[i] for i in axes]:
    raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
  if dtype is None:
    result_dtype = promoted_int_dtype(dtype_of(a)) if promote_integers else dtype_of(a)
  else:
    result_dtype = user_dtype(dtype, dtype_of(a))
  computation = computation_dtype(result_dtype) if upcast_f16 else result_dtype
  a = convert(a, computation)
  if computation == dtypes.bool_:
    monoid = ON_BOOL.get(monoid, monoid)
  fill = identity(monoid.identity, computation)
  if where is not None:
    a = masked(a, where, fill)
  out = monoid.reduce(a, axes)
  if initial is not None:
    out = monoid.combine(_initial_value(initial, computation), out)
  if keepdims:
    out = expand_axes(out, axes)
  return convert(out, result_dtype)


def _initial_value(initial: Any, dt: np.dtype) -> Any:
  (initial,) = ensure_arraylike("initial", initial)
  if shape(initial):
    raise ValueError(f"initial value must be a scalar. Got array of shape {shape(initial)}")
  return convert(initial, dt)


def nan_reduction(name: str, reduction: Callable, fill: float, a: Any, axis: Axis,
                  keepdims: bool, where: Any, **kwargs: Any) -> Any:
  """`reduction` with NaNs replaced by `fill`. Integer and boolean input is reduced as it is.
  (The nan-ignoring extrema also make an all-NaN slice NaN: see `_statistics`.)"""
  (a,) = ensure_arraylike(name, a)
  if dtypes.is_inexact(dtype_of(a)):
    a = lax.select_n(lax.ne(a, a), a, lax.full_like(a, identity(fill, dtype_of(a))))
  return reduction(a, axis, keepdims=keepdims, where=where, **kwargs)
