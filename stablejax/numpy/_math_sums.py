"""numpy's mathematical functions, sums, products and differences part: diff, ediff1d,
gradient and trapezoid."""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from stablejax import lax
from stablejax.numpy._creation import array, asarray
from stablejax.numpy._manipulation_shape import concatenate, moveaxis, ravel
from stablejax.numpy._promotion import (
    broadcast_to as _broadcast_to, convert, dtype, ensure_arraylike, promote_dtypes_inexact,
    shape)
from stablejax.numpy._reductions import sum as sum_
from stablejax.util import canonicalize_axis


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
  op = lax.ne if dtype(a) == np.bool_ else lax.sub
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
      parts.insert(min(position, len(parts)), ravel(convert(values, dtype(flat))))
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
    return d0 * (sum_(y, -1) - 0.5 * (y[..., 0] + y[..., -1]))
  return sum_(0.5 * (d * (y[..., 1:] + y[..., :-1])), -1)


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
