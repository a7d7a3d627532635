"""Reductions (sum, prod, max, min over axes), argmax/argmin and the cumulative reductions,
with their rules and numpy references. Lowering rules live in
`stablejax.lowering.rules.reductions`."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.config import config
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.control_flow.loops import associative_scan
from stablejax.lax.primitive_kit import (any_dtype, bool_or_int_dtypes, check_dtype, def_reference,
                                         float_dtypes, numeric_dtypes, standard_primitive)
from stablejax.lax.structural import canonical_axes, check_axes, shift_axes
from stablejax import typed_sharding as typed
from stablejax.util import canonicalize_axis

__all__ = [
    "argmax", "argmax_p", "argmin", "argmin_p", "cumlogsumexp", "cumlogsumexp_p", "cummax",
    "cummax_p", "cummin", "cummin_p", "cumprod", "cumprod_p", "cumsum", "cumsum_p", "reduce_and",
    "reduce_and_p", "reduce_max", "reduce_max_p", "reduce_min", "reduce_min_p", "reduce_or",
    "reduce_or_p", "reduce_prod", "reduce_prod_p", "reduce_sum", "reduce_sum_p", "reduce_xor",
    "reduce_xor_p",
]


def _reduction_abstract_eval(name: str, accepted, check: Callable = lambda x, axes: None):
  def abstract_eval(x: ShapedArray, *, axes):
    check_dtype(name, accepted, x)
    check_axes(name, axes, x)
    check(x, axes)
    return ShapedArray(tuple(n for i, n in enumerate(x.shape) if i not in axes), x.dtype,
                       x.weak_type)
  return abstract_eval


def _check_f16_sum_allowed(x: ShapedArray, axes: Sequence[int]) -> None:
  """`jax_allow_f16_reductions=False` forbids summing float16/bfloat16 over a non-trivial axis."""
  if (not config.allow_f16_reductions and x.dtype in (np.float16, dtypes.bfloat16)
      and any(x.shape[a] != 1 for a in axes)):
    raise ValueError(f"reduce_sum on operand {x.str_short()} is not allowed when "
                     "jax_allow_f16_reductions=False.")


def _reduction(name: str, accepted, reference: Callable,
               check: Callable = lambda x, axes: None) -> core.Primitive:
  """A reduction over `axes`, with `reference(x, *, axes)` as its numpy reference and
  `check(aval, axes)` run on its operand."""
  prim = standard_primitive(name, _reduction_abstract_eval(name, accepted, check))
  def_reference(prim, reference)
  batching.primitive_batchers[prim] = lambda args, dims, **params: _reduction_batcher(
      prim, args, dims, **params)
  return prim


def _reduction_batcher(prim: core.Primitive, args, dims, *, axes, **params):
  """Renumber the reduced axes around the batch axis; the batch axis moves left past them."""
  (x,), (d,) = args, dims
  return prim.bind(x, axes=shift_axes(axes, d), **params), d - sum(a < d for a in axes)


def _extremum_reference(ufunc: np.ufunc, x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
  """max/min over `axes`; an empty reduction gives the identity (-inf for max), as in XLA."""
  if x.size:
    return ufunc.reduce(x, axis=tuple(axes))
  is_max = ufunc is np.maximum
  if x.dtype == np.bool_:
    initial = not is_max
  elif dtypes.kind(x.dtype) in "fc":
    initial = -np.inf if is_max else np.inf
  else:
    initial = np.iinfo(x.dtype).min if is_max else np.iinfo(x.dtype).max
  return ufunc.reduce(x, axis=tuple(axes), initial=initial)


reduce_sum_p = _reduction("reduce_sum", numeric_dtypes,
                          lambda x, *, axes: np.sum(x, axis=tuple(axes), dtype=x.dtype),
                          _check_f16_sum_allowed)
reduce_prod_p = _reduction("reduce_prod", numeric_dtypes,
                           lambda x, *, axes: np.prod(x, axis=tuple(axes), dtype=x.dtype))
reduce_max_p = _reduction("reduce_max", any_dtype,
                          lambda x, *, axes: _extremum_reference(np.maximum, x, axes))
reduce_min_p = _reduction("reduce_min", any_dtype,
                          lambda x, *, axes: _extremum_reference(np.minimum, x, axes))


reduce_and_p = _reduction("reduce_and", bool_or_int_dtypes,
                          lambda x, *, axes: np.bitwise_and.reduce(x, axis=tuple(axes)))
reduce_or_p = _reduction("reduce_or", bool_or_int_dtypes,
                         lambda x, *, axes: np.bitwise_or.reduce(x, axis=tuple(axes)))
reduce_xor_p = _reduction("reduce_xor", bool_or_int_dtypes,
                          lambda x, *, axes: np.bitwise_xor.reduce(x, axis=tuple(axes)))
for _prim in (reduce_and_p, reduce_or_p, reduce_xor_p):
  ad.defjvp_zero(_prim)


def reduce_and(operand: Any, axes: Sequence[int]) -> Any:
  """Bitwise (logical, for booleans) AND over `axes`."""
  return _bind_reduction(reduce_and_p, operand, axes)


def reduce_or(operand: Any, axes: Sequence[int]) -> Any:
  """Bitwise (logical, for booleans) OR over `axes`."""
  return _bind_reduction(reduce_or_p, operand, axes)


def reduce_xor(operand: Any, axes: Sequence[int]) -> Any:
  """Bitwise (logical, for booleans) XOR over `axes`."""
  return _bind_reduction(reduce_xor_p, operand, axes)


def _bind_reduction(prim: core.Primitive, operand: Any, axes: Sequence[int]) -> Any:
  return prim.bind(operand, axes=canonical_axes(prim.name, axes, core.get_aval(operand).ndim))


def reduce_sum(operand: Any, axes: Sequence[int]) -> Any:
  """Sum over `axes`."""
  return _bind_reduction(reduce_sum_p, operand, axes)


def reduce_prod(operand: Any, axes: Sequence[int]) -> Any:
  """Product over `axes`."""
  return _bind_reduction(reduce_prod_p, operand, axes)


def reduce_max(operand: Any, axes: Sequence[int]) -> Any:
  """Maximum over `axes`."""
  return _bind_reduction(reduce_max_p, operand, axes)


def reduce_min(operand: Any, axes: Sequence[int]) -> Any:
  """Minimum over `axes`."""
  return _bind_reduction(reduce_min_p, operand, axes)


def _kept_dims(ndim: int, axes: Sequence[int]) -> tuple[int, ...]:
  return tuple(i for i in range(ndim) if i not in axes)


def _reduce_sum_transpose(ct, operand, *, axes):
  shape = operand.aval.shape
  return [lax.broadcast_in_dim(ct, shape, _kept_dims(len(shape), axes))]


ad.deflinear2(reduce_sum_p, _reduce_sum_transpose)


def _chooser_jvp(prim: core.Primitive):
  """JAX's rule for max/min: the tangent averaged over the locations of the extremum (ties
  share it equally), op for op: the tangents are multiplied by the 0/1 indicator, so XLA treats
  them as it does JAX's (compiled, it rewrites the product of a converted bool as a select)."""
  def jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    ans = prim.bind(x, axes=axes)
    shape = core.get_aval(x).shape
    at_ans = lax.eq(x, lax.broadcast_in_dim(ans, shape, _kept_dims(len(shape), axes)))
    indicator = lax.convert_element_type(at_ans, core.get_aval(t).dtype)
    return ans, lax.div(reduce_sum(lax.mul(t, indicator), axes), reduce_sum(indicator, axes))
  return jvp


ad.primitive_jvps[reduce_max_p] = _chooser_jvp(reduce_max_p)
ad.primitive_jvps[reduce_min_p] = _chooser_jvp(reduce_min_p)


def _reduce_prod_jvp(primals, tangents, *, axes):
  """JAX's rule: the JVP of a balanced tree of pairwise products (exact where elements are 0)."""
  (x,), (t,) = primals, tangents
  shape = core.get_aval(x).shape
  kept = _kept_dims(len(shape), axes)
  n = int(np.prod([shape[a] for a in axes], dtype=np.int64))
  flat_shape = (n,) + tuple(shape[i] for i in kept)
  to_rows = lambda v: lax.reshape(v, flat_shape, tuple(axes) + kept)  # noqa: E731
  (out,), (t_out,) = ad.jvp_flat(lambda v: [_product_tree(v)], [to_rows(x)], [to_rows(t)])
  return out, t_out


def _product_tree(x: Any) -> Any:
  """The product over axis 0 by repeatedly multiplying the two halves (padding with 1)."""
  aval = core.get_aval(x)
  one = np.ones((), aval.dtype)
  while core.get_aval(x).shape[0] > 1:
    n = core.get_aval(x).shape[0]
    half = (n + 1) // 2
    lo, hi = lax.slice_in_dim(x, 0, half), lax.slice_in_dim(x, half, n)
    if n % 2:
      hi = lax.pad(hi, one, [(0, 1, 0)] + [(0, 0, 0)] * (aval.ndim - 1))
    x = lax.mul(lo, hi)
  if core.get_aval(x).shape[0] == 0:
    return lax.full(aval.shape[1:], one)
  return lax.squeeze(x, (0,))


ad.primitive_jvps[reduce_prod_p] = _reduce_prod_jvp


# ----------------------------------------------------------------------------------------------
# argmax and argmin

def _argminmax_abstract_eval(name: str):
  def abstract_eval(x: ShapedArray, *, axes, index_dtype):
    if dtypes.is_complex(x.dtype):
      raise TypeError(f"{name} does not accept complex operands, got {x.str_short()}")
    if len(axes) != 1:
      raise ValueError(f"{name}: axes must hold exactly one axis, got {axes}")
    check_axes(name, axes, x)
    if x.shape[axes[0]] == 0:
      raise ValueError(f"{name} requires a non-empty reduced axis, got operand {x.str_short()} "
                       f"and axes {axes}")
    if np.dtype(index_dtype).kind not in "iu":
      raise TypeError(f"{name}: index_dtype must be an integer type, got {index_dtype}")
    return ShapedArray(tuple(n for i, n in enumerate(x.shape) if i != axes[0]), index_dtype)
  return abstract_eval


def _argminmax(name: str, reference: Callable) -> core.Primitive:
  """argmax or argmin, with numpy's function of that name (`reference`) as its reference."""
  prim = standard_primitive(name, _argminmax_abstract_eval(name))
  def_reference(prim, lambda x, *, axes, index_dtype:
                reference(x, axis=axes[0]).astype(index_dtype))
  ad.defjvp_zero(prim)
  batching.primitive_batchers[prim] = lambda args, dims, **params: _reduction_batcher(
      prim, args, dims, **params)
  return prim


argmax_p = _argminmax("argmax", np.argmax)
argmin_p = _argminmax("argmin", np.argmin)


def _bind_argminmax(prim: core.Primitive, operand: Any, axis: int, index_dtype: Any) -> Any:
  ndim = core.get_aval(operand).ndim
  return prim.bind(operand, axes=canonical_axes(prim.name, (axis,), ndim),
                   index_dtype=dtypes.canonicalize(index_dtype))


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
  """The index of the (first) maximum along `axis`."""
  return _bind_argminmax(argmax_p, operand, axis, index_dtype)


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
  """The index of the (first) minimum along `axis`."""
  return _bind_argminmax(argmin_p, operand, axis, index_dtype)


# ----------------------------------------------------------------------------------------------
# cumulative reductions: cumsum, cumprod, cummax, cummin, cumlogsumexp

def _cumulative_abstract_eval(name: str, accepted):
  def abstract_eval(x: ShapedArray, *, axis, reverse):
    check_dtype(name, accepted, x)
    check_axes(name, (axis,), x, "axis")
    return x
  return abstract_eval


def _cumulative_batcher(prim: core.Primitive, args, dims, *, axis, reverse):
  (x,), (d,) = args, dims
  return prim.bind(x, axis=axis + (axis >= d), reverse=reverse), d


def _cumulative_reference(ufunc: np.ufunc):
  def reference(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
      return np.flip(ufunc.accumulate(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return ufunc.accumulate(x, axis=axis, dtype=x.dtype)
  return reference


def _cumulative(name: str, accepted, ufunc: np.ufunc) -> core.Primitive:
  """A running reduction along `axis` (inclusive; from the end if `reverse`)."""
  prim = standard_primitive(name, _cumulative_abstract_eval(name, accepted))
  def_reference(prim, _cumulative_reference(ufunc))
  batching.primitive_batchers[prim] = lambda args, dims, **params: _cumulative_batcher(
      prim, args, dims, **params)
  return prim


def _bind_cumulative(prim: core.Primitive, operand: Any, axis: int, reverse: bool) -> Any:
  axis = canonicalize_axis(axis, core.get_aval(operand).ndim)
  return prim.bind(operand, axis=axis, reverse=bool(reverse))


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
  """Inclusive running sum along `axis` (from the end if `reverse`)."""
  return _bind_cumulative(cumsum_p, operand, axis, reverse)


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
  """Inclusive running product along `axis` (from the end if `reverse`)."""
  return _bind_cumulative(cumprod_p, operand, axis, reverse)


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
  """Inclusive running maximum along `axis` (from the end if `reverse`)."""
  return _bind_cumulative(cummax_p, operand, axis, reverse)


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
  """Inclusive running minimum along `axis` (from the end if `reverse`)."""
  return _bind_cumulative(cummin_p, operand, axis, reverse)


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
  """Inclusive running log-sum-exp along `axis` (from the end if `reverse`)."""
  return _bind_cumulative(cumlogsumexp_p, operand, axis, reverse)


def _logaddexp_with_tangent(a: tuple, b: tuple) -> tuple:
  """log(exp(x1) + exp(x2)) and its tangent, by JAX's `lax.logaddexp` and its custom JVP: x1 + x2
  where x1 - x2 is NaN (equal infinities, NaNs); the tangents weighted by exp(x - out), with
  +inf read as 0 there."""
  (x1, t1), (x2, t2) = a, b
  delta = lax.sub(x1, x2)
  finite = lax.add(lax.max(x1, x2), lax.log1p(lax.exp(lax.neg(lax.abs(delta)))))
  out = lax.select_n(lax.ne(delta, delta), finite, lax.add(x1, x2))
  inf = np.array(np.inf, core.get_aval(out).dtype)
  no_inf = lambda v: lax.select_n(lax.eq(v, inf), v, lax.full_like(v, 0))  # noqa: E731
  weight = lambda x: lax.exp(lax.sub(no_inf(x), no_inf(out)))  # noqa: E731
  return out, lax.add(lax.mul(t1, weight(x1)), lax.mul(t2, weight(x2)))


def _cumlogsumexp_jvp(primals, tangents, *, axis, reverse):
  """The scan of (value, tangent) pairs: `logaddexp` has a custom JVP in JAX."""
  (x,), (t,) = primals, tangents
  return associative_scan(_logaddexp_with_tangent, (x, ad.instantiate_zeros(t)), reverse, axis)


def _scan_jvp(combine: Callable):
  """JAX's rule: the JVP of `associative_scan` (reduce_window is not differentiable). The same
  odd/even scan as JAX's, so products associate alike and infinities meet zeros alike."""
  def jvp(primals, tangents, *, axis, reverse):
    scan = lambda v: [associative_scan(combine, v, reverse, axis)]  # noqa: E731
    (out,), (t_out,) = ad.jvp_flat(scan, list(primals), [ad.instantiate_zeros(tangents[0])])
    return out, t_out
  return jvp


cumsum_p = _cumulative("cumsum", numeric_dtypes, np.add)
ad.deflinear2(cumsum_p, lambda ct, x, *, axis, reverse: [cumsum(ct, axis, not reverse)])
cumprod_p = _cumulative("cumprod", numeric_dtypes, np.multiply)
ad.primitive_jvps[cumprod_p] = _scan_jvp(lax.mul)
cummax_p = _cumulative("cummax", numeric_dtypes, np.maximum)
ad.primitive_jvps[cummax_p] = _scan_jvp(lax.max)
cummin_p = _cumulative("cummin", numeric_dtypes, np.minimum)
ad.primitive_jvps[cummin_p] = _scan_jvp(lax.min)
cumlogsumexp_p = _cumulative("cumlogsumexp", float_dtypes, np.logaddexp)
ad.primitive_jvps[cumlogsumexp_p] = _cumlogsumexp_jvp

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

for _prim in (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p, reduce_and_p, reduce_or_p,
              reduce_xor_p, argmax_p, argmin_p, cumsum_p, cumprod_p, cummax_p, cummin_p,
              cumlogsumexp_p):
  flops.flops_rules[_prim] = flops.in_size  # (XLA: input - output elements)
del _prim

# ----------------------------------------------------------------------------------------------
# Sharding in types (stablejax.typed_sharding): reduced dimensions go, scans keep the layout

def _cumulative_sharding(x: ShapedArray, *, axis: int, reverse: bool) -> tuple:
  spec = typed.parts(x)
  if spec[axis] is not None:
    raise typed.ShardingTypeError("Input should be unsharded over the axis being reduced. Got "
                                  f"input type={x.str_short()} and axis={axis}")
  return spec


for _prim in (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p, reduce_and_p, reduce_or_p,
              reduce_xor_p, argmax_p, argmin_p):
  typed.sharding_rules[_prim] = typed.drop_axes_rule
for _prim in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
  typed.sharding_rules[_prim] = _cumulative_sharding
del _prim
