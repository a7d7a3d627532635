"""Helpers of the distributions: standardizing, and pdf/sf from logpdf/cdf."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import lax
from stablejax import numpy as jnp
from stablejax.numpy._promotion import promote_args_inexact, scalar_like


def standardize(name: str, x: Any, loc: Any, scale: Any) -> tuple[Any, Any]:
  """(x - loc) / scale and scale, promoted to one inexact dtype."""
  x, loc, scale = promote_args_inexact(name, x, loc, scale)
  return lax.div(lax.sub(x, loc), scale), scale


def exp_of(fn: Callable) -> Callable:
  """pdf from logpdf (or pmf from logpmf)."""
  def wrapped(*args: Any, **kwargs: Any) -> Any:
    return lax.exp(fn(*args, **kwargs))
  wrapped.__doc__ = f"exp({fn.__name__})."
  return wrapped


def one_minus(fn: Callable) -> Callable:
  """sf from cdf."""
  def wrapped(*args: Any, **kwargs: Any) -> Any:
    out = fn(*args, **kwargs)
    return lax.sub(scalar_like(out, 1), out)
  wrapped.__doc__ = f"1 - {fn.__name__}."
  return wrapped


def log_of(fn: Callable) -> Callable:
  """logcdf from cdf (or logsf from sf)."""
  def wrapped(*args: Any, **kwargs: Any) -> Any:
    return lax.log(fn(*args, **kwargs))
  wrapped.__doc__ = f"log({fn.__name__})."
  return wrapped


def log1mexp(t: Any) -> Any:
  """log(1 - exp(-t)) for t >= 0, accurate for small and large t."""
  small = lax.lt(t, scalar_like(t, np.log(2)))
  return jnp.where(small, lax.log(lax.neg(lax.expm1(lax.neg(t)))),
                   lax.log1p(lax.neg(lax.exp(lax.neg(t)))))


def gumbel_args(name: str, x: Any, loc: Any, scale: Any) -> tuple[Any, Any, Callable]:
  """z = (x - loc) / scale, scale, and a function putting nan where scale <= 0."""
  z, scale = standardize(name, x, loc, scale)
  ok = lax.gt(scale, scalar_like(scale, 0))
  return z, scale, lambda value: jnp.where(ok, value, scalar_like(value, np.nan))


def gumbel_ppf(name: str, p: Any, loc: Any, scale: Any, right: bool) -> Any:
  """The Gumbel quantile: loc - scale log(-log p) (right), loc + scale log(-log1p(-p))."""
  p, loc, scale = promote_args_inexact(name, p, loc, scale)
  inside = lax.gt(p, scalar_like(p, 0)) & lax.lt(p, scalar_like(p, 1))
  if right:
    value = lax.sub(loc, lax.mul(scale, lax.log(lax.neg(lax.log(p)))))
  else:
    value = lax.add(loc, lax.mul(scale, lax.log(lax.neg(lax.log1p(lax.neg(p))))))
  return jnp.where(inside, value, scalar_like(p, np.nan))
