"""jax.numpy.linalg: the factorizations over `stablejax.lax.linalg`, the norms, and the array-API
spellings of the products (over the last axes)."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablejax import numpy as jnp
from stablejax.jit import jit
from stablejax.lax import linalg as lax_linalg
from stablejax.numpy._promotion import ensure_arraylike, promote_dtypes_inexact
from stablejax.util import canonicalize_axis

__all__ = ["cholesky", "cross", "diagonal", "matmul", "matrix_norm", "matrix_transpose", "norm",
           "outer", "tensordot", "trace", "vecdot", "vector_norm"]


@jit(static_argnames=("upper", "symmetrize_input"))
def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
  """The Cholesky factor of each Hermitian positive-definite matrix: lower L with L L^H = a, or
  upper U = L^H with U^H U = a; NaNs where a matrix is not positive definite."""
  (a,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.cholesky", a))
  factor = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
  return jnp.conj(jnp.matrix_transpose(factor)) if upper else factor


# ----------------------------------------------------------------------------------------------
# Norms

def _abs_squared_sum(x: Any, axis: Any, keepdims: bool) -> Any:
  return jnp.sqrt(jnp.sum(jnp.real(x * jnp.conj(x)), axis=axis, keepdims=keepdims))


def vector_norm(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Any:  # noqa: A002
  """The `ord`-norm of the vectors along `axis` (all of `x` when None)."""
  (x,) = ensure_arraylike("jnp.linalg.vector_norm", x)
  if ord is None or ord == 2:
    return _abs_squared_sum(x, axis, keepdims)
  if isinstance(ord, str):
    raise ValueError(f"Invalid order '{ord}' for vector norm.")
  if ord == np.inf:
    return jnp.max(jnp.abs(x), axis=axis, keepdims=keepdims, initial=0)
  if ord == -np.inf:
    return jnp.min(jnp.abs(x), axis=axis, keepdims=keepdims)
  if ord == 0:
    return jnp.sum(x != 0, dtype=jnp.finfo(jnp.result_type(x, float)).dtype, axis=axis,
                   keepdims=keepdims)
  if ord == 1:
    return jnp.sum(jnp.abs(x), axis=axis, keepdims=keepdims)
  abs_x = jnp.abs(x)
  power = np.array(ord, abs_x.dtype)
  return jnp.power(jnp.sum(abs_x ** power, axis=axis, keepdims=keepdims),
                   np.array(1 / power, abs_x.dtype))


def _matrix_norm(x: Any, ord: Any, rows: int, cols: int, keepdims: bool) -> Any:  # noqa: A002
  """The `ord`-norm of the matrices over axes (rows, cols)."""
  if ord is None or ord in ("f", "fro"):
    return _abs_squared_sum(x, (rows, cols), keepdims)
  if ord in (1, -1, np.inf, -np.inf):
    summed, kept = (rows, cols) if ord in (1, -1) else (cols, rows)
    if not keepdims and kept > summed:
      kept -= 1
    sums = jnp.sum(jnp.abs(x), axis=summed, keepdims=keepdims)
    if ord > 0:
      return jnp.max(sums, axis=kept, keepdims=keepdims, initial=0)
    return jnp.min(sums, axis=kept, keepdims=keepdims)
  if ord in ("nuc", 2, -2):
    raise NotImplementedError(f"jnp.linalg.norm with ord={ord!r} needs the singular values, "
                              "and stablejax has no svd yet")
  raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def norm(x: Any, ord: Any = None, axis: int | tuple[int, ...] | None = None,  # noqa: A002
         keepdims: bool = False) -> Any:
  """A vector norm (one axis) or a matrix norm (two axes) of `x`, as numpy.linalg.norm."""
  (x,) = promote_dtypes_inexact(*ensure_arraylike("jnp.linalg.norm", x))
  ndim = jnp.ndim(x)
  if axis is None:
    if ord is None:  # numpy's undocumented case: the 2-norm of all of x, any rank
      return _abs_squared_sum(x, None, keepdims)
    axis = tuple(range(ndim))
  axes = tuple(canonicalize_axis(operator.index(a), ndim)
               for a in (axis if isinstance(axis, tuple) else (axis,)))
  if len(axes) == 1:
    return vector_norm(x, ord=2 if ord is None else ord, axis=axes, keepdims=keepdims)
  if len(axes) == 2:
    return _matrix_norm(x, ord, *axes, keepdims)
  raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to compute a "
                   "vector-norm, or two axes to compute a matrix-norm.")


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:  # noqa: A002
  """The `ord`-norm of each matrix over the last two axes."""
  return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# ----------------------------------------------------------------------------------------------
# Array-API spellings over the last axes

def matrix_transpose(x: Any, /) -> Any:
  return jnp.matrix_transpose(x)


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
  """The diagonals of the matrices over the last two axes."""
  return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
  """The traces of the matrices over the last two axes."""
  return jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def outer(x1: Any, x2: Any, /) -> Any:
  """The outer product of two vectors."""
  x1, x2 = ensure_arraylike("jnp.linalg.outer", x1, x2)
  if jnp.ndim(x1) != 1 or jnp.ndim(x2) != 1:
    raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim="
                     f"{jnp.ndim(x1)} and x2.ndim={jnp.ndim(x2)}")
  return jnp.outer(x1, x2)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
  """The cross product of 3-vectors along `axis`."""
  x1, x2 = ensure_arraylike("jnp.linalg.cross", x1, x2)
  if jnp.shape(x1)[axis] != 3 or jnp.shape(x2)[axis] != 3:
    raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                     f"have x1.shape[axis]={jnp.shape(x1)[axis]} and x2.shape[axis]="
                     f"{jnp.shape(x2)[axis]}")
  return jnp.cross(x1, x2, axis=axis)


def matmul(x1: Any, x2: Any, /, *, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
  return jnp.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
  return jnp.tensordot(x1, x2, axes=axes, precision=precision,
                       preferred_element_type=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
  return jnp.vecdot(x1, x2, axis=axis, precision=precision,
                    preferred_element_type=preferred_element_type)
