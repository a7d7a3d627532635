"""Reductions (sum, prod, max, min over axes), `reduce` (several operands, a traced
computation: `reduce_p`), argmax/argmin and the cumulative reductions,
with their rules and numpy references. Lowering rules live in
`stablejax.lowering.rules.reductions`."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.config import config
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.jaxpr import ClosedJaxpr, Literal, jaxpr_as_fun
from stablejax.lax import elementwise
from stablejax.lax.bitwise import bitwise_xor
from stablejax.lax.control_flow.common import trace_to_jaxpr_with_consts, tree_args
from stablejax.lax.control_flow.loops import associative_scan
from stablejax.lax.primitive_kit import (any_dtype, bool_or_int_dtypes, check_dtype, def_reference,
                                         evaluate_reference, float_dtypes, numeric_dtypes,
                                         standard_primitive)
from stablejax.lax.structural import canonical_axes, check_axes, shift_axes
from stablejax import typed_sharding as typed
from stablejax.tree_util import tree_flatten, tree_unflatten
from stablejax.util import canonicalize_axis

__all__ = [
    "argmax", "argmax_p", "argmin", "argmin_p", "cumlogsumexp", "cumlogsumexp_p", "cummax",
    "cummax_p", "cummin", "cummin_p", "cumprod", "cumprod_p", "cumsum", "cumsum_p", "reduce",
    "reduce_and",
    "reduce_and_p", "reduce_max", "reduce_max_p", "reduce_min", "reduce_min_p", "reduce_or",
    "reduce_or_p", "reduce_p", "reduce_prod", "reduce_prod_p", "reduce_sum", "reduce_sum_p", "reduce_xor",
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
# reduce: several operands reduced with a traced computation (XLA's variadic Reduce)

def _max_identity(dtype: np.dtype) -> Any:
  if dtype == np.bool_:
    return False
  return -np.inf if dtypes.kind(dtype) in "fc" else np.iinfo(dtype).min


def _min_identity(dtype: np.dtype) -> Any:
  if dtype == np.bool_:
    return True
  return np.inf if dtypes.kind(dtype) in "fc" else np.iinfo(dtype).max


# computation -> (the reduction it amounts to, its identity for a dtype, whether it needs a
# boolean or integer dtype): JAX's monoid reducers, used when the one initial value is the
# identity.
_MONOID_REDUCTIONS = {
    elementwise.add: (reduce_sum, lambda dtype: 0, False),
    elementwise.mul: (reduce_prod, lambda dtype: 1, False),
    elementwise.max: (reduce_max, _max_identity, False),
    elementwise.min: (reduce_min, _min_identity, False),
    elementwise.bitwise_and: (reduce_and, lambda dtype: np.array(-1).astype(dtype), True),
    elementwise.bitwise_or: (reduce_or, lambda dtype: 0, True),
    bitwise_xor: (reduce_xor, lambda dtype: 0, True),
}


def _monoid_reducer(computation: Any, inits: Sequence[Any]) -> Callable | None:
  """The reduction `computation` amounts to from `inits`, as JAX picks one: one concrete scalar
  initial value, the identity of a known monoid."""
  if len(inits) != 1 or not core.is_concrete(inits[0]) or np.ndim(inits[0]):
    return None
  try:
    reducer, identity, int_like = _MONOID_REDUCTIONS[computation]
  except (KeyError, TypeError):  # (an unhashable computation)
    return None
  dtype = core.get_aval(inits[0]).dtype
  if int_like and dtypes.kind(dtype) not in "biu":
    return None
  return reducer if np.equal(np.asarray(inits[0]), identity(dtype)) else None


def flatten_operands(operands: Any, init_values: Any) -> tuple[list, list, Any]:
  """The leaves of a reduction's `operands` and `init_values` (pytrees of one structure, as
  JAX's errors say), and that structure."""
  leaves, tree = tree_flatten(operands)
  inits, init_tree = tree_flatten(init_values)
  if init_tree != tree:
    raise ValueError(f"Operands must have the same tree structure as init_values: {tree} vs. "
                     f"{init_tree}")
  if len(leaves) != len(inits):
    raise ValueError(f"Must have same total number of operands as init_values:  {len(leaves)} "
                     f"vs. {len(inits)}")
  return leaves, inits, tree


def reduce(operands: Any, init_values: Any, computation: Callable[[Any, Any], Any],
           dimensions: Sequence[int], out_sharding: Any = None) -> Any:
  """XLA's Reduce: the pytree `operands` (arrays of one shape) reduced over `dimensions` by
  `computation(accumulators, values)` on pytrees of scalars like `init_values`, starting from
  them. `init_values` and `computation` must form a monoid (XLA may reassociate)."""
  leaves, inits, tree = flatten_operands(operands, init_values)
  monoid = _monoid_reducer(computation, inits)
  if monoid is not None:
    weak = core.get_aval(leaves[0]).weak_type and core.get_aval(inits[0]).weak_type
    out = monoid(leaves[0], dimensions)
    out = lax.convert_element_type(out, core.get_aval(out).dtype, weak_type=weak)
    return tree_unflatten(tree, [out])
  init_avals = [core.get_aval(x) for x in inits]
  jaxpr, out_tree = trace_reduction(computation, tree, init_avals)
  outs = reduce_p.bind(*leaves, *inits, computation=computation, jaxpr=jaxpr,
                       dimensions=tuple(int(d) for d in dimensions))
  return tree_unflatten(out_tree, outs)


def trace_reduction(computation: Callable, tree: Any, avals: Sequence[ShapedArray]
                     ) -> tuple[ClosedJaxpr, Any]:
  """`computation` on two pytrees `tree` of scalars of `avals`, traced (cached by function)."""
  pair = (tree_unflatten(tree, list(avals)),) * 2
  traced, consts, out_tree = trace_to_jaxpr_with_consts(computation, tree_args(pair),
                                                        list(avals) * 2)
  if any(isinstance(c, core.Tracer) for c in consts):
    raise NotImplementedError("Reduction computations can't close over Tracers. Please open "
                              "an issue at https://github.com/jax-ml/jax.")
  if consts:  # closed-over arrays: consts of the jaxpr again
    j = traced.jaxpr
    traced = ClosedJaxpr(j.replace(constvars=j.invars[:len(consts)],
                                   invars=j.invars[len(consts):]), list(consts))
  return traced, out_tree


def _general_reduce_abstract_eval(*avals: ShapedArray, computation, jaxpr, dimensions):
  n = len(avals) // 2
  operands, inits = avals[:n], avals[n:]
  if any(a.shape for a in inits):
    raise ValueError(f"reduce found non-scalar initial value: {[a.shape for a in inits]}")
  if [a.dtype for a in operands] != [a.dtype for a in inits]:
    raise TypeError("reduce operand dtypes should match corresponding initial value dtypes, "
                    f"got operands={list(operands)} and initial_values={list(inits)}")
  if len({a.shape for a in operands}) > 1:
    raise TypeError(f"reduce operands must have the same shape, got "
                    f"{', '.join(a.str_short() for a in operands)}")
  body = [(a.shape, a.dtype) for a in jaxpr.out_avals]
  if body != [((), a.dtype) for a in inits] or len(jaxpr.in_avals) != 2 * n:
    raise TypeError(f"reduce computation must map two trees of scalars like the initial "
                    f"values ({', '.join(a.str_short() for a in inits)}) to one; it returns "
                    f"{', '.join(a.str_short() for a in jaxpr.out_avals)}")
  check_axes("reduce", dimensions, operands[0], "dimensions")
  shape = tuple(s for i, s in enumerate(operands[0].shape) if i not in dimensions)
  return [ShapedArray(shape, x.dtype, x.weak_type and i.weak_type)
          for x, i in zip(operands, inits)]


def evaluate_jaxpr_reference(closed: ClosedJaxpr, *args: Any) -> list[np.ndarray]:
  """Evaluate `closed` on numpy values, each equation by its primitive's numpy reference (the
  reference of a primitive whose params hold a body, as `reduce`'s)."""
  jaxpr = closed.jaxpr
  env = dict(zip(jaxpr.constvars, closed.consts))
  env.update(zip(jaxpr.invars, args))
  read = lambda v: v.val if type(v) is Literal else env[v]  # noqa: E731
  for eqn in jaxpr.eqns:
    out = evaluate_reference(eqn.primitive, *map(read, eqn.invars), **eqn.params)
    env.update(zip(eqn.outvars, out if eqn.primitive.multiple_results else [out]))
  return [np.asarray(read(v)) for v in jaxpr.outvars]


def _general_reduce_reference(*args: np.ndarray, computation, jaxpr, dimensions):
  """Fold the reduced elements into the initial values in order, the body by references."""
  n = len(args) // 2
  operands, inits = args[:n], args[n:]
  kept = _kept_dims(operands[0].ndim, dimensions)
  rows = [np.transpose(x, tuple(dimensions) + kept).reshape(
      (-1,) + tuple(x.shape[i] for i in kept)) for x in operands]
  out_shape = rows[0].shape[1:]
  outs = [np.empty(out_shape, x.dtype) for x in operands]
  for index in np.ndindex(*out_shape):
    acc = list(inits)
    for r in range(rows[0].shape[0]):
      acc = evaluate_jaxpr_reference(jaxpr, *acc, *(x[(r,) + index] for x in rows))
    for o, a in zip(outs, acc):
      o[index] = a
  return outs


def _general_reduce_batcher(args, dims, *, computation, jaxpr, dimensions):
  n = len(args) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("vmap of lax.reduce over batched initial values is not "
                              "implemented (nor in JAX)")
  size = batching.axis_size_of(args, dims)
  operands = [batching.bdim_at_front(x, d, size) for x, d in zip(args[:n], dims[:n])]
  outs = reduce_p.bind(*operands, *args[n:], computation=computation, jaxpr=jaxpr,
                       dimensions=tuple(d + 1 for d in dimensions))
  return outs, [0] * n


def _general_reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
  """JAX's rule: the JVP of a tree of pairwise reductions (the body vmapped over the rest)."""
  n = len(primals) // 2
  if any(type(t) is not ad.Zero for t in tangents[n:]):
    raise NotImplementedError("Gradient of general lax.reduce with non-zero tangents for "
                              "initial values to reduction not implemented")
  shape = core.get_aval(primals[0]).shape
  kept = _kept_dims(len(shape), dimensions)
  rows = int(np.prod([shape[a] for a in dimensions], dtype=np.int64))
  to_rows = lambda v: lax.reshape(v, (rows,) + tuple(shape[i] for i in kept),  # noqa: E731
                                  tuple(dimensions) + kept)
  body = _vmapped(jaxpr_as_fun(jaxpr), len(kept) + 1)
  inits = primals[n:]
  tree = lambda *xs: _reduction_tree(body, inits, xs, tuple(shape[i] for i in kept))  # noqa: E731
  return ad.jvp_flat(tree, [to_rows(x) for x in primals[:n]],
                     [to_rows(ad.instantiate_zeros(t)) for t in tangents[:n]])


def _vmapped(fn: Callable, times: int) -> Callable:
  """`fn` mapped over the leading axis of all its arguments, `times` deep."""
  for _ in range(times):
    fn = (lambda f: lambda *xs: batching.vmap_flat(
        f, core.get_aval(xs[0]).shape[0], [0] * len(xs), lambda k: [0] * k, xs))(fn)
  return fn


def _reduction_tree(body: Callable, inits: Sequence[Any], xs: Sequence[Any],
                    out_shape: tuple[int, ...]) -> list:
  """Reduce axis 0 of `xs` by combining its two halves (the shorter padded with the initial
  values) until one row is left."""
  xs = list(xs)
  while core.get_aval(xs[0]).shape[0] > 1:
    n = core.get_aval(xs[0]).shape[0]
    half = (n + 1) // 2
    lo = [lax.slice_in_dim(x, 0, half) for x in xs]
    hi = [lax.slice_in_dim(x, half, n) for x in xs]
    if n % 2:
      config = [(0, 1, 0)] + [(0, 0, 0)] * len(out_shape)
      hi = [lax.pad(x, i, config) for x, i in zip(hi, inits)]
    xs = body(*lo, *hi)
  if core.get_aval(xs[0]).shape[0] == 0:
    return [lax.broadcast_in_dim(i, out_shape, ()) for i in inits]
  return [lax.squeeze(x, (0,)) for x in xs]


reduce_p = standard_primitive("reduce", _general_reduce_abstract_eval, multiple_results=True)
def_reference(reduce_p, _general_reduce_reference)
batching.primitive_batchers[reduce_p] = _general_reduce_batcher
ad.primitive_jvps[reduce_p] = _general_reduce_jvp

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


# reduce: its body once per reduced element (as XLA counts a reduction: input - output elements)
flops.flops_rules[reduce_p] = lambda avals_in, avals_out, *, jaxpr, **_: (
    (avals_in[0].size - avals_out[0].size) * flops.jaxpr_flops(jaxpr))
