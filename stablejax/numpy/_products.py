"""Products beyond dot and matmul: vdot, vecdot, inner, outer, kron, tensordot, cross and
trace, over lax.dot_general and elementwise ops, with JAX's dtypes."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.numpy._contractions import dot, output_type
from stablejax.numpy._creation import eye
from stablejax.numpy._manipulation_shape import moveaxis, ravel, reshape, stack
from stablejax.numpy._promotion import (
    broadcast_shapes, broadcast_to, convert, ensure_arraylike, promote_dtypes, shape)
from stablejax.numpy._reductions import sum as _sum
from stablejax.numpy._ufuncs import BINARY
from stablejax.util import canonicalize_axis

_multiply, _subtract = BINARY["multiply"], BINARY["subtract"]


def _conj_if_complex(x: Any) -> Any:
  return lax.conj(x) if dtypes.is_complex(core.get_aval(x).dtype) else x


def _contract(a: Any, b: Any, dims: Any, precision: Any, preferred_element_type: Any) -> Any:
  """dot_general of `a` and `b`, returned in the product's dtype and weak type."""
  out_dtype, weak = output_type(preferred_element_type, a, b)
  out = lax.dot_general(a, b, dims, precision, preferred_element_type=out_dtype)
  return convert(out, out_dtype, weak)


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
  """The dot product of the flattened arrays, conjugating `a` if it is complex."""
  a, b = ensure_arraylike("vdot", a, b)
  return dot(ravel(_conj_if_complex(a)), ravel(b), precision=precision,
             preferred_element_type=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
  """Vector dot products along `axis` (conjugating `x1` if complex), broadcasting the others."""
  x1, x2 = ensure_arraylike("vecdot", x1, x2)
  s1, s2 = shape(x1), shape(x2)
  if s1[canonicalize_axis(axis, len(s1))] != s2[canonicalize_axis(axis, len(s2))]:
    raise ValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
  x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
  batch = broadcast_shapes("vecdot", shape(x1)[:-1], shape(x2)[:-1])
  x1, x2 = (broadcast_to(x, batch + shape(x)[-1:]) for x in (x1, x2))
  batch_dims = tuple(range(len(batch)))
  dims = (((len(batch),), (len(batch),)), (batch_dims, batch_dims))
  return _contract(_conj_if_complex(x1), x2, dims, precision, preferred_element_type)


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
  """The sum product over the last axes of `a` and `b` (a product if either is a scalar)."""
  a, b = ensure_arraylike("inner", a, b)
  if not shape(a) or not shape(b):
    out_dtype, weak = output_type(preferred_element_type, a, b)
    return convert(_multiply(a, b), out_dtype, weak)
  return tensordot(a, b, (-1, -1), precision=precision,
                   preferred_element_type=preferred_element_type)


def outer(a: Any, b: Any, out: None = None) -> Any:
  """The outer product of the flattened arrays."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
  a, b = ensure_arraylike("outer", a, b)
  a, b = ravel(a), ravel(b)
  return _multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def kron(a: Any, b: Any) -> Any:
  """The Kronecker product: blocks a[i, j] * b."""
  a, b = promote_dtypes(*ensure_arraylike("kron", a, b))
  ndim = max(len(shape(a)), len(shape(b)))
  a, b = (reshape(x, (1,) * (ndim - len(shape(x))) + shape(x)) for x in (a, b))
  a_spread = reshape(a, tuple(d for n in shape(a) for d in (n, 1)))
  b_spread = reshape(b, tuple(d for n in shape(b) for d in (1, n)))
  out_shape = tuple(int(m * n) for m, n in zip(shape(a), shape(b)))
  return reshape(_multiply(a_spread, b_spread), out_shape)


def tensordot(a: Any, b: Any, axes: int | Sequence[int] | Sequence[Sequence[int]] = 2, *,
              precision: Any = None, preferred_element_type: Any = None) -> Any:
  """Contract the last `axes` axes of `a` with the first of `b`, or the axes listed in the pair
  `axes`."""
  a, b = ensure_arraylike("tensordot", a, b)
  a_ndim, b_ndim = len(shape(a)), len(shape(b))
  if a_ndim < 1 or b_ndim < 1:
    raise TypeError(f"tensordot requires a.ndim and b.ndim to be at least 1, got {a_ndim} and "
                    f"{b_ndim}.")
  contract = _tensordot_axes(axes, a_ndim, b_ndim)
  return _contract(a, b, (contract, ((), ())), precision, preferred_element_type)


def _tensordot_axes(axes: Any, a_ndim: int, b_ndim: int) -> tuple[tuple[int, ...], ...]:
  if isinstance(axes, (int, np.integer)):
    if axes > min(a_ndim, b_ndim) or axes < 0:
      raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks ({a_ndim} "
                      f"and {b_ndim})")
    return tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes))
  if isinstance(axes, (tuple, list)) and len(axes) == 2:
    ax1, ax2 = axes
    if isinstance(ax1, (int, np.integer)) and isinstance(ax2, (int, np.integer)):
      return (canonicalize_axis(ax1, a_ndim),), (canonicalize_axis(ax2, b_ndim),)
    if isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
      if len(ax1) != len(ax2):
        raise TypeError(f"tensordot requires axes lists to have equal length, got {ax1} and "
                        f"{ax2}.")
      return (tuple(canonicalize_axis(i, a_ndim) for i in ax1),
              tuple(canonicalize_axis(i, b_ndim) for i in ax2))
    raise TypeError(f"tensordot requires both axes lists to be either ints, tuples or lists, "
                    f"got {ax1} and {ax2}")
  raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                  f"lists/tuples of ints; got {axes!r}.")


def _component(x: Any, i: int) -> Any:
  """x[..., i]."""
  return lax.squeeze(lax.slice_in_dim(x, i, i + 1, axis=-1), (len(shape(x)) - 1,))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
  """The cross product of 2- or 3-vectors along `axisa` of `a` and `axisb` of `b` (both set by
  `axis`), the result's vector axis at `axisc` (a scalar for two 2-vectors)."""
  a, b = promote_dtypes(*ensure_arraylike("cross", a, b))
  if axis is not None:
    axisa = axisb = axisc = axis
  a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
  if shape(a)[-1] not in (2, 3) or shape(b)[-1] not in (2, 3):
    raise ValueError("Dimension must be either 2 or 3 for cross product")
  if shape(a)[-1] == 2 and shape(b)[-1] == 2:
    return _subtract(_multiply(_component(a, 0), _component(b, 1)),
                     _multiply(_component(a, 1), _component(b, 0)))
  a0, a1, a2 = _components3(a)
  b0, b1, b2 = _components3(b)
  c = stack([_subtract(_multiply(a1, b2), _multiply(a2, b1)),
             _subtract(_multiply(a2, b0), _multiply(a0, b2)),
             _subtract(_multiply(a0, b1), _multiply(a1, b0))])
  return moveaxis(c, 0, axisc)


def _components3(x: Any) -> list:
  parts = [_component(x, i) for i in range(shape(x)[-1])]
  return parts if len(parts) == 3 else parts + [lax.full_like(parts[0], 0)]


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: None = None) -> Any:
  """The sum along the diagonal `offset` of the 2-d slices over `axis1` and `axis2`."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
  (a,) = ensure_arraylike("trace", a)
  offset = int(core.concrete_or_error(offset, "the offset of jnp.trace"))
  a_shape = shape(a)
  n, m = a_shape[canonicalize_axis(axis1, len(a_shape))], a_shape[
      canonicalize_axis(axis2, len(a_shape))]
  a = moveaxis(a, (axis1, axis2), (-2, -1))
  diagonal = broadcast_to(eye(n, m, offset, dtype=bool), shape(a))
  return _sum(lax.select_n(diagonal, lax.full_like(a, 0), a), axis=(-2, -1), dtype=dtype)
