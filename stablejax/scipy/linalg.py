"""jax.scipy.linalg: Cholesky factorizations and triangular solves over `stablejax.lax.linalg`."""
from __future__ import annotations

from typing import Any

from stablejax import numpy as jnp
from stablejax.jit import jit
from stablejax.lax import linalg as lax_linalg
from stablejax.numpy._promotion import ensure_arraylike, promote_dtypes_inexact

__all__ = ["cho_factor", "cho_solve", "cholesky", "solve_triangular"]

# scipy's `trans` argument: (transpose_a, conjugate_a)
_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


@jit(static_argnames=("lower",))
def _cholesky(a: Any, lower: bool) -> Any:
  (a,) = promote_dtypes_inexact(a)
  factor = lax_linalg.cholesky(a if lower else jnp.conj(jnp.matrix_transpose(a)),
                               symmetrize_input=False)
  return factor if lower else jnp.conj(jnp.matrix_transpose(factor))


def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Any:
  """The Cholesky factor of each Hermitian positive-definite matrix: upper U with U^H U = a
  (scipy's default), or lower L with L L^H = a. Reads only that triangle of `a`."""
  del overwrite_a, check_finite  # no effect on immutable arrays
  (a,) = ensure_arraylike("jax.scipy.linalg.cholesky", a)
  return _cholesky(a, bool(lower))


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Any, bool]:
  """(c, lower): a Cholesky factor for `cho_solve`."""
  del overwrite_a, check_finite
  return cholesky(a, lower=lower), lower


def _solve_vectorized(a: Any, b: Any, **params: Any) -> Any:
  """Left triangular solves, broadcasting the batch axes of `a` and `b` as scipy does: `b` is a
  vector (or batch of vectors) when it has one axis fewer than `a` and matches its last."""
  vector = jnp.ndim(b) == 1 or (jnp.ndim(a) == jnp.ndim(b) + 1
                                and jnp.shape(a)[-1] == jnp.shape(b)[-1])
  signature = "(n,n),(n)->(n)" if vector else "(n,n),(n,k)->(n,k)"
  def solve(a, b):
    return lax_linalg.triangular_solve(a, b, left_side=True, **params)
  return jnp.vectorize(solve, signature=signature)(a, b)


@jit(static_argnames=("lower",))
def _cho_solve(c: Any, b: Any, lower: bool) -> Any:
  c, b = promote_dtypes_inexact(c, b)
  # c c^H x = b (lower) or c^H c x = b: two triangular solves
  y = _solve_vectorized(c, b, lower=lower, transpose_a=not lower, conjugate_a=not lower)
  return _solve_vectorized(c, y, lower=lower, transpose_a=lower, conjugate_a=lower)


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
  """x with a x = b, for a given by its Cholesky factor `(c, lower)` from `cho_factor`."""
  del overwrite_b, check_finite
  c, lower = c_and_lower
  c, b = ensure_arraylike("jax.scipy.linalg.cho_solve", c, b)
  return _cho_solve(c, b, bool(lower))


@jit(static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a: Any, b: Any, trans: Any, lower: bool, unit_diagonal: bool) -> Any:
  transpose_a, conjugate_a = _TRANS[trans]
  a, b = promote_dtypes_inexact(a, b)
  return _solve_vectorized(a, b, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                           unit_diagonal=unit_diagonal)


def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False, debug: Any = None,
                     check_finite: bool = True) -> Any:
  """x with op(a) x = b for triangular `a` (its lower or upper triangle), op given by `trans`:
  0/'N' as is, 1/'T' transposed, 2/'C' conjugate-transposed."""
  del overwrite_b, debug, check_finite
  if trans not in _TRANS:
    raise ValueError(f"Invalid 'trans' value {trans}")
  a, b = ensure_arraylike("jax.scipy.linalg.solve_triangular", a, b)
  return _solve_triangular(a, b, trans, bool(lower), bool(unit_diagonal))
