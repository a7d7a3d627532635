"""`fori_loop`: a `scan` carrying the loop index when the bounds are concrete (so it is
reverse-differentiable), a `while_loop` otherwise. `map` (a scan without a carry) and
`associative_scan` (a parallel prefix scan of slices)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from stablejax import core, dtypes
from stablejax.interpreters import batching
from stablejax.lax.control_flow.scan import scan
from stablejax.lax.control_flow.while_loop import while_loop
from stablejax.lax.dimensions import dimension_as_value
from stablejax.lax.elementwise import add, bitwise_or, convert_element_type
from stablejax.lax.structural import concatenate, pad, reshape, rev, slice_in_dim
from stablejax.shape_poly import is_symbolic_dim
from stablejax.tree_util import tree_flatten, tree_map, tree_unflatten
from stablejax.util import canonicalize_axis

__all__ = ["associative_scan", "fori_loop", "map"]


def fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any, *,
              unroll: int | bool | None = None) -> Any:
  """`for i in range(lower, upper): val = body_fun(i, val)`, staged; returns the final `val`."""
  if not callable(body_fun):
    raise TypeError(f"lax.fori_loop: body_fun argument should be callable, got {body_fun!r}")
  lower, upper = dimension_as_value(lower), dimension_as_value(upper)  # (symbolic: traced)
  dtype = _bounds_dtype(lower, upper)
  lower_c, upper_c = _concrete_int(lower), _concrete_int(upper)
  if lower_c is not None and upper_c is not None:
    (_, result), _ = scan(lambda carry, _: ((carry[0] + 1, body_fun(*carry)), None),
                          (lower_c, init_val), None, length=max(upper_c - lower_c, 0),
                          unroll=1 if unroll is None else unroll)
    return result
  if unroll not in (None, False, 1):
    raise ValueError("fori_loop can only use `unroll` when the loop bounds are statically "
                     "known (concrete integers)")
  lower, upper = (x if dtypes.dtype_of(x) == dtype else convert_element_type(x, dtype)
                  for x in (lower, upper))
  _, _, result = while_loop(lambda c: c[0] < c[1],
                            lambda c: (c[0] + 1, c[1], body_fun(c[0], c[2])),
                            (lower, upper, init_val))
  return result


def _weak(x: Any) -> bool:
  return core.get_aval(x).weak_type


def _bounds_dtype(lower: Any, upper: Any) -> Any:
  """The loop index dtype: the bounds' dtype; a weakly typed (Python int) bound takes the
  other's signed integer dtype, as in JAX."""
  lo, hi = dtypes.dtype_of(lower), dtypes.dtype_of(upper)
  if lo == hi:
    return lo
  if lo.kind == hi.kind == "i" and _weak(lower) != _weak(upper):
    return hi if _weak(lower) else lo
  raise TypeError(f"lower and upper arguments to fori_loop must have equal types, got "
                  f"{lo.name} and {hi.name}")


def _concrete_int(x: Any) -> int | None:
  """`x` as a Python int when it is concrete (also behind a tracer of concrete values)."""
  value = x.to_concrete_value() if isinstance(x, core.Tracer) else x
  if value is None:
    return None
  try:
    return int(value)
  except TypeError:
    return None


# ----------------------------------------------------------------------------------------------
# map

def map(f: Callable, xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001
  """`f` applied to each slice of `xs` along its leading axis, stacked: a scan without carry.
  With `batch_size`, each scan step applies `f` vectorized to `batch_size` slices."""
  if not callable(f):
    raise TypeError(f"lax.map: f argument should be callable, got {f!r}")
  if batch_size is None:
    return scan(lambda _, x: ((), f(x)), (), xs)[1]
  leaves, tree = tree_flatten(xs)
  n = core.get_aval(leaves[0]).shape[0]
  batch_size = min(int(batch_size), n)
  if batch_size < 1:
    raise ValueError(f"lax.map: batch_size must be at least 1, got {batch_size}")
  vf = lambda batch: _vmap(f, batch, batch_size)  # noqa: E731
  steps, rest = divmod(n, batch_size)
  batched = [reshape(slice_in_dim(x, 0, steps * batch_size), (steps, batch_size) + _tail(x))
             for x in leaves]
  ys = scan(lambda _, x: ((), vf(x)), (), tree_unflatten(tree, batched))[1]
  ys = tree_map(lambda y: reshape(y, (steps * batch_size,) + _tail(y)[1:]), ys)
  if not rest:
    return ys
  remainder = _vmap(f, tree_unflatten(tree, [slice_in_dim(x, steps * batch_size, n)
                                              for x in leaves]), rest)
  return tree_map(lambda y, r: concatenate([y, r], 0), ys, remainder)


def _tail(x: Any) -> tuple[int, ...]:
  return core.get_aval(x).shape[1:]


def _vmap(f: Callable, xs: Any, size: int) -> Any:
  """`f` mapped over the leading axis of every leaf of `xs` (outputs stacked at axis 0)."""
  leaves, tree = tree_flatten(xs)
  out_tree = []

  def flat_f(*flat):
    out, treedef = tree_flatten(f(tree_unflatten(tree, list(flat))))
    out_tree.append(treedef)
    return out

  outs = batching.vmap_flat(flat_f, size, [0] * len(leaves), lambda n: [0] * n, leaves)
  return tree_unflatten(out_tree[0], outs)


# ----------------------------------------------------------------------------------------------
# associative_scan

def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
  """All prefix combinations `fn(...fn(fn(e0, e1), e2)..., ei)` along `axis` for an associative
  `fn` of pytrees of arrays, computed in O(log n) rounds of slices (from the end if
  `reverse`)."""
  if not callable(fn):
    raise TypeError("lax.associative_scan: fn argument should be callable.")
  leaves, tree = tree_flatten(elems)
  if not leaves:
    raise ValueError("lax.associative_scan: elems must hold at least one array")
  axis = canonicalize_axis(axis, core.get_aval(leaves[0]).ndim)
  sizes = [core.get_aval(x).shape[axis] for x in leaves]
  if len(set(sizes)) != 1:
    raise ValueError(f"Array inputs to associative_scan must have the same first dimension. "
                     f"(saw: {[core.get_aval(x).shape for x in leaves]})")
  if is_symbolic_dim(sizes[0]):  # (the rounds of slices depend on the size, as JAX's do)
    raise NotImplementedError(f"associative scan over axis of non-constant size: {sizes[0]}")

  def combine(a: list, b: list) -> list:
    out, out_tree = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
    if out_tree != tree:
      raise TypeError(f"lax.associative_scan: fn must return the structure of its inputs "
                      f"{tree}, got {out_tree}")
    return out

  if reverse:
    leaves = [rev(x, (axis,)) for x in leaves]
  out = _prefix_scan(combine, leaves, axis)
  if reverse:
    out = [rev(x, (axis,)) for x in out]
  return tree_unflatten(tree, out)


def _prefix_scan(combine: Callable, elems: list, axis: int) -> list:
  """Combine adjacent pairs, scan those recursively (the odd outputs), then combine each with
  the next element (the even outputs), and interleave."""
  n = core.get_aval(elems[0]).shape[axis]
  if n < 2:
    return elems
  pairs = combine([slice_in_dim(e, 0, n - 1, 2, axis) for e in elems],
                  [slice_in_dim(e, 1, n, 2, axis) for e in elems])
  odd = _prefix_scan(combine, pairs, axis)
  prev = [slice_in_dim(o, 0, (n - 1) // 2, 1, axis) for o in odd]
  even = combine(prev, [slice_in_dim(e, 2, n, 2, axis) for e in elems])
  even = [concatenate([slice_in_dim(e, 0, 1, 1, axis), r], axis) for e, r in zip(elems, even)]
  return [_interleave(a, b, axis) for a, b in zip(even, odd)]


def _interleave(a: Any, b: Any, axis: int) -> Any:
  """a0 b0 a1 b1 ... along `axis`, where `a` has as many or one more elements than `b`: each
  spread out with zeros and the two added, as JAX does (so a -0.0 comes out as +0.0)."""
  na, nb = core.get_aval(a).shape[axis], core.get_aval(b).shape[axis]
  spread_a = _spread(a, axis, low=0, high=1 if na == nb else 0)
  spread_b = _spread(b, axis, low=1, high=0 if na == nb else 1)
  join = bitwise_or if core.get_aval(a).dtype == np.bool_ else add
  return join(spread_a, spread_b)


def _spread(x: Any, axis: int, low: int, high: int) -> Any:
  """`x` with a zero between neighbours along `axis`, and `low`/`high` zeros at its ends."""
  aval = core.get_aval(x)
  config = [(0, 0, 0)] * len(aval.shape)
  config[axis] = (low, high, 1)
  return pad(x, np.zeros((), aval.dtype), config)
