"""numpy's mathematical functions, sums, products and differences part: sum, prod, their
cumulative (cumsum, cumprod, cumulative_sum, cumulative_prod) and nan variants (over
`_reductions`); diff, ediff1d, gradient and trapezoid. (`cross` is with the products in
`_linalg_products`.)"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import dtypes, lax
from stablejax.numpy._creation import array, asarray
from stablejax.numpy._manipulation_shape import concatenate, moveaxis, ravel
from stablejax.numpy._promotion import (
    broadcast_to as _broadcast_to, convert, dtype as dtype_of, ensure_arraylike,
    promote_dtypes_inexact, shape)
from stablejax.numpy._reductions import (
    Axis, PROD, SUM, check_out, nan_reduction, promoted_int_dtype, reduce)
from stablejax.util import canonicalize_axis


# ----------------------------------------------------------------------------------------------
# Sums and products

def _to_numeric(a: Any) -> Any:
  """Booleans become the default integer type."""
  return convert(a, dtypes.default_int()) if dtype_of(a) == dtypes.bool_ else a


def sum(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,  # noqa: A001
        keepdims: bool = False, initial: Any = None, where: Any = None,
        promote_integers: bool = True) -> Any:
  """The sum of the elements of `a` over `axis` (all axes when None)."""
  check_out("sum", out)
  return reduce("sum", SUM, a, axis, dtype, keepdims, initial, where,
                promote_integers=promote_integers, upcast_f16=dtype is None,
                preproc=_to_numeric)


def prod(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
  """The product of the elements of `a` over `axis` (all axes when None)."""
  check_out("prod", out)
  return reduce("prod", PROD, a, axis, dtype, keepdims, initial, where,
                promote_integers=promote_integers, upcast_f16=dtype is None,
                preproc=_to_numeric)


def nansum(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
  """The sum over `axis` treating NaNs as zero."""
  check_out("nansum", out)
  return nan_reduction("nansum", sum, 0, a, axis, keepdims, where, dtype=dtype,
                       initial=initial)


def nanprod(a: Any, axis: Axis = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
  """The product over `axis` treating NaNs as one."""
  check_out("nanprod", out)
  return nan_reduction("nanprod", prod, 1, a, axis, keepdims, where, dtype=dtype,
                       initial=initial)


# ----------------------------------------------------------------------------------------------
# Cumulative sums and products

def _accumulate(name: str, lax_fn: Callable, a: Any, axis: int | None, dtype: Any,
                nan_fill: Any = None, promote_integers: bool = False) -> Any:
  """A cumulative reduction along `axis` (of the flattened array when None), JAX's dtypes:
  booleans (and narrow integers when `promote_integers`) accumulate in the default int."""
  (a,) = ensure_arraylike(name, a)
  if axis is None or not shape(a):
    a = ravel(a)
  axis = canonicalize_axis(0 if axis is None else axis, len(shape(a)))
  if nan_fill is not None and dtypes.is_inexact(dtype_of(a)):
    a = lax.select_n(lax.ne(a, a), a, lax.full_like(a, nan_fill))
  a_dtype = dtype_of(a)
  if dtype is None:
    result_dtype = (promoted_int_dtype(a_dtype) if promote_integers or a_dtype == dtypes.bool_
                    else a_dtype)
    computation = result_dtype
  else:
    result_dtype = dtypes.canonicalize(np.dtype(dtype))
    if result_dtype == dtypes.bool_ and a_dtype != dtypes.bool_:
      a = lax.ne(a, lax.full_like(a, 0))
    computation = promoted_int_dtype(result_dtype)
  return convert(lax_fn(convert(a, computation), axis), result_dtype)


def cumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative sum along `axis` (of the flattened array when None)."""
  return _accumulate("cumsum", lax.cumsum, a, axis, dtype)


def cumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative product along `axis` (of the flattened array when None)."""
  return _accumulate("cumprod", lax.cumprod, a, axis, dtype)


def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative sum along `axis`, NaNs counted as zero."""
  return _accumulate("nancumsum", lax.cumsum, a, axis, dtype, nan_fill=0)


def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
  """Cumulative product along `axis`, NaNs counted as one."""
  return _accumulate("nancumprod", lax.cumprod, a, axis, dtype, nan_fill=1)


def _cumulative(name: str, lax_fn: Callable, initial: int, promote_integers: bool) -> Callable:
  """The array-API cumulative_sum/cumulative_prod (axis required above rank 1); as in JAX,
  only the sum promotes narrow integers."""
  def cumulative(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                 include_initial: bool = False) -> Any:
    (x,) = ensure_arraylike(name, x)
    ndim = len(shape(x))
    if ndim == 0:
      raise ValueError(f"The input must be non-scalar to take a {name}, however a scalar "
                       "value or scalar array was given.")
    if axis is None and ndim > 1:
      raise ValueError(f"The input array has rank {ndim}, however axis was not set to an "
                       "explicit value. The axis argument is only optional for "
                       "one-dimensional arrays.")
    axis = canonicalize_axis(0 if axis is None else axis, ndim)
    out = _accumulate(name, lax_fn, x, axis, dtype, promote_integers=promote_integers)
    if include_initial:
      first = list(shape(out))
      first[axis] = 1
      out = lax.concatenate([lax.full(first, initial, dtype_of(out)), out], axis)
    return out
  cumulative.__name__ = cumulative.__qualname__ = name
  cumulative.__doc__ = f"The {name.replace('_', ' ')} along `axis` (array API)."
  return cumulative


cumulative_sum = _cumulative("cumulative_sum", lax.cumsum, 0, promote_integers=True)
cumulative_prod = _cumulative("cumulative_prod", lax.cumprod, 1, promote_integers=False)


# ----------------------------------------------------------------------------------------------
# Differences and integrals

def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
  """The `n`-th discrete difference along `axis` (after joining `prepend` and `append`)."""
  (a,) = ensure_arraylike("diff", a)
  a = array(a)
  n = operator.index(n)
  if n < 0:
    raise ValueError(f"order must be non-negative but got {n}")
  if not shape(a):
    raise ValueError(f"diff requires input that is at least one dimensional; got a={a}")
  if n == 0:
    return a
  axis = canonicalize_axis(axis, len(shape(a)))
  parts = [_edge_values("diff", prepend, a, axis), a, _edge_values("diff", append, a, axis)]
  parts = [p for p in parts if p is not None]
  if len(parts) > 1:
    a = concatenate(parts, axis)
  op = lax.ne if dtype_of(a) == np.bool_ else lax.sub
  for _ in range(n):
    size = shape(a)[axis]
    a = op(lax.slice_in_dim(a, 1, max(size, 1), axis=axis),
           lax.slice_in_dim(a, 0, max(size - 1, 0), axis=axis))
  return a


def _edge_values(name: str, values: Any, a: Any, axis: int) -> Any:
  """`values` for prepend/append: a scalar broadcast to a size-1 slice of `a` along `axis`."""
  if values is None:
    return None
  (values,) = ensure_arraylike(name, values)
  if shape(values):
    return values
  target = shape(a)[:axis] + (1,) + shape(a)[axis + 1:]
  return _broadcast_to(values, target)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
  """Differences of consecutive elements of `ary` flattened, with `to_begin`/`to_end` joined."""
  (ary,) = ensure_arraylike("ediff1d", ary)
  flat = ravel(ary)
  size = shape(flat)[0]
  parts = [lax.sub(lax.slice_in_dim(flat, 1, max(size, 1), axis=0),
                   lax.slice_in_dim(flat, 0, max(size - 1, 0), axis=0))]
  edges = [(to_begin, 0), (to_end, len(parts) + 1)]
  for values, position in edges:
    if values is not None:
      (values,) = ensure_arraylike("ediff1d", values)
      parts.insert(min(position, len(parts)), ravel(convert(values, dtype_of(flat))))
  return parts[0] if len(parts) == 1 else concatenate(parts, 0)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
  """The integral of samples y (at points x, or spaced dx) by the trapezoidal rule."""
  if x is None:
    (y,) = promote_dtypes_inexact(asarray(*ensure_arraylike("trapezoid", y)))
    d = asarray(dx)
    if shape(d):
      d = lax.broadcast_in_dim(d, (1,) * (len(shape(y)) - len(shape(d))) + shape(d),
                               tuple(range(len(shape(y)) - len(shape(d)), len(shape(y)))))
      d = moveaxis(d, axis, -1)
  else:
    y, x = promote_dtypes_inexact(*map(asarray, ensure_arraylike("trapezoid", y, x)))
    d = diff(x) if len(shape(x)) == 1 else moveaxis(diff(x, axis=axis), axis, -1)
  y = moveaxis(y, axis, -1)
  if not shape(d) or shape(d)[-1] == 1:
    d0 = d if not shape(d) else d[..., 0]
    return d0 * (sum(y, -1) - 0.5 * (y[..., 0] + y[..., -1]))
  return sum(0.5 * (d * (y[..., 1:] + y[..., :-1])), -1)


def _gradient_along(a: Any, h: Any, axis: int) -> Any:
  def sl(v: Any, start: int | None, stop: int | None) -> Any:
    return lax.slice_in_dim(v, start, stop, axis=axis)
  upper = sl(a, 1, 2) - sl(a, 0, 1)
  lower = sl(a, -1, None) - sl(a, -2, -1)
  if np.ndim(h) == 0:
    inner = (sl(a, 2, None) - sl(a, None, -2)) * 0.5 / h
    return concatenate((upper / h, inner, lower / h), axis=axis)
  if np.ndim(h) != 1:
    raise ValueError("Spacing arrays must be 1D arrays or scalars.")
  if shape(h)[0] != shape(a)[axis]:
    raise ValueError("Spacing arrays must have the same length as the dimension along which the "
                     "gradient is calculated.")
  h = lax.broadcast_in_dim(h, tuple(shape(h)[0] if i == axis else 1
                                    for i in range(len(shape(a)))), (axis,))
  upper = upper / (sl(h, 1, 2) - sl(h, 0, 1))
  lower = lower / (sl(h, -1, None) - sl(h, -2, -1))
  dx1 = sl(h, 1, -1) - sl(h, 0, -2)
  dx2 = sl(h, 2, None) - sl(h, 1, -1)
  inner = (-dx2 / (dx1 * (dx1 + dx2)) * sl(a, 0, -2) + (dx2 - dx1) / (dx1 * dx2) * sl(a, 1, -1)
           + dx1 / (dx2 * (dx1 + dx2)) * sl(a, 2, None))
  return concatenate((upper, inner, lower), axis=axis)


def gradient(f: Any, *varargs: Any, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Any:
  """The gradient of sampled f by central differences (one-sided at the edges)."""
  if edge_order is not None:
    raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
  a, *spacing = promote_dtypes_inexact(*map(asarray, ensure_arraylike("gradient", f, *varargs)))
  nd = len(shape(a))
  axes = tuple(range(nd)) if axis is None else tuple(
      canonicalize_axis(i, nd) for i in (axis if isinstance(axis, (tuple, list)) else (axis,)))
  if not axes:
    return []
  if min(shape(a)[i] for i in axes) < 2:
    raise ValueError("Shape of array too small to calculate a numerical gradient, at least 2 "
                     "elements are required.")
  if not spacing:
    dx = [1.0] * len(axes)
  elif len(spacing) == 1:
    dx = spacing * len(axes)
  elif len(spacing) == len(axes):
    dx = spacing
  else:
    raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis!r}")
  grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, dx)]
  return grads[0] if len(axes) == 1 else grads
