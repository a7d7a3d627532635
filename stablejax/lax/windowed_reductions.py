"""Windowed reductions: `reduce_window_sum`, `reduce_window_max` and `reduce_window_min` (XLA's
ReduceWindow with an add/max/min region), `reduce_window` (those monoids from their identity;
else several operands reduced by a traced computation: `reduce_window_p`), JAX's
`select_and_scatter_p`, `select_and_scatter_add_p` and `select_and_gather_add_p`, and
`padtype_to_pads`, with their rules and numpy references. Lowering rules live in
`stablejax.lowering.rules.windowed_reductions`.

The tangent of a max/min window is the tangent at the first position holding the extremum:
the windows are unrolled into one strided slice per window position (exact, and cheap for the
small windows of pooling)."""
from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core, dtypes, lax
from stablejax.core import ShapedArray
from stablejax.interpreters import ad, batching, flops
from stablejax.interpreters import partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, jaxpr_as_fun
from stablejax.lax.primitive_kit import any_dtype, check_dtype, def_reference, numeric_dtypes
from stablejax.lax.primitive_kit import evaluate_reference, standard_primitive
from stablejax.lax.reductions import evaluate_jaxpr_reference, flatten_operands, trace_reduction
from stablejax.shape_poly import max_dim
from stablejax.tree_util import tree_unflatten

__all__ = [
    "padtype_to_pads", "reduce_window", "reduce_window_max", "reduce_window_max_p",
    "reduce_window_min", "reduce_window_min_p", "reduce_window_p", "reduce_window_sum",
    "reduce_window_sum_p", "select_and_gather_add_p", "select_and_scatter_add_p",
    "select_and_scatter_p",
]

Pads = tuple[tuple[int, int], ...]


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int],
                    window_strides: Sequence[int], padding: str) -> list[tuple[int, int]]:
  """The (low, high) pads of "SAME", "SAME_LOWER" or "VALID" padding."""
  name = padding.upper() if isinstance(padding, str) else padding
  if name == "VALID":
    return [(0, 0)] * len(in_shape)
  if name not in ("SAME", "SAME_LOWER"):
    raise TypeError(f"Unknown padding type: {padding}.")
  pads = []
  for n, w, s in zip(in_shape, window_shape, window_strides):
    out = -(-n // s)
    total = max((out - 1) * s + w - n, 0)
    lo = total // 2 if name == "SAME" else total - total // 2
    pads.append((lo, total - lo))
  return pads


def _dilate(n: int, d: int) -> int:
  return 0 if n == 0 else 1 + d * (n - 1)


def window_output_shape(shape: Sequence[int], window_dimensions: Sequence[int],
                        window_strides: Sequence[int], padding: Pads,
                        base_dilation: Sequence[int], window_dilation: Sequence[int]
                        ) -> tuple[int, ...]:
  """The shape of a windowed reduction (or of a convolution's spatial axes)."""
  out = []
  for n, w, s, (lo, hi), bd, wd in zip(shape, window_dimensions, window_strides, padding,
                                       base_dilation, window_dilation):
    span = _dilate(n, bd) + lo + hi - _dilate(w, wd)
    out.append(max_dim(0, span // s + 1))  # (0 where the window does not fit)
  return tuple(out)


def _params(name: str, aval: ShapedArray, window_dimensions, window_strides, padding,
            base_dilation, window_dilation) -> dict:
  """The canonical params of a windowed reduction, checked against the operand."""
  ndim = aval.ndim
  ones = (1,) * ndim
  window_dimensions = tuple(int(w) for w in window_dimensions)
  window_strides = tuple(int(s) for s in window_strides)
  base_dilation = ones if base_dilation is None else tuple(int(d) for d in base_dilation)
  window_dilation = ones if window_dilation is None else tuple(int(d) for d in window_dilation)
  if isinstance(padding, str):
    padding = padtype_to_pads(
        tuple(_dilate(n, d) for n, d in zip(aval.shape, base_dilation)),
        tuple(_dilate(w, d) for w, d in zip(window_dimensions, window_dilation)),
        window_strides, padding)
  padding = tuple((int(lo), int(hi)) for lo, hi in padding)
  for what, v in [("window_dimensions", window_dimensions), ("window_strides", window_strides),
                  ("padding", padding), ("base_dilation", base_dilation),
                  ("window_dilation", window_dilation)]:
    if len(v) != ndim:
      raise TypeError(f"{name}: {what} {v} must have one entry per axis of the operand "
                      f"{aval.str_short()}")
  if min(window_dimensions + window_strides + base_dilation + window_dilation, default=1) < 1:
    raise TypeError(f"{name}: window dimensions, strides and dilations must be positive")
  return dict(window_dimensions=window_dimensions, window_strides=window_strides,
              padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)


def _abstract_eval(name: str, accepted):
  def abstract_eval(x: ShapedArray, **params):
    check_dtype(name, accepted, x)
    _params(name, x, **params)
    return ShapedArray(window_output_shape(x.shape, **params), x.dtype, x.weak_type)
  return abstract_eval


def _batcher(prim: core.Primitive, args, dims, **params):
  """The batch axis gets a window of 1."""
  (x,), (d,) = args, dims
  ins = lambda t, v: t[:d] + (v,) + t[d:]  # noqa: E731
  new = {k: ins(v, (0, 0) if k == "padding" else 1) for k, v in params.items()}
  return prim.bind(x, **new), d


def _identity(name: str, dtype: np.dtype) -> Any:
  if name == "reduce_window_sum":
    return np.zeros((), dtype)
  hi = name == "reduce_window_min"
  if dtype == np.bool_:
    return np.array(hi)
  if dtypes.kind(dtype) in "fc":  # complex max/min order by real part first: -inf+0j is least
    return np.array(np.inf if hi else -np.inf, dtype)
  info = np.iinfo(dtype)
  return np.array(info.max if hi else info.min, dtype)


def _window_views(pad: Callable, slicer: Callable, x: Any, shape: Sequence[int], fill: Any,
                  window_dimensions, window_strides, padding, base_dilation, window_dilation
                  ) -> list:
  """One strided slice of the padded, dilated operand per window position (the operand of
  `pad(x, fill, config)` and `slicer(x, start, limit, strides)`, numpy's or lax's)."""
  config = [(lo, hi, bd - 1) for (lo, hi), bd in zip(padding, base_dilation)]
  padded = pad(x, fill, config)
  out_shape = window_output_shape(shape, window_dimensions, window_strides, padding,
                                  base_dilation, window_dilation)
  views = []
  for offsets in itertools.product(*[range(w) for w in window_dimensions]):
    start = [o * wd for o, wd in zip(offsets, window_dilation)]
    limit = [s + (n - 1) * st + 1 if n else s
             for s, n, st in zip(start, out_shape, window_strides)]
    views.append(slicer(padded, start, limit, window_strides))
  return views


def _np_pad(x: np.ndarray, fill: Any, config) -> np.ndarray:
  for axis, (lo, hi, interior) in enumerate(config):
    if interior and x.shape[axis]:
      idx = np.repeat(np.arange(1, x.shape[axis]), interior)
      x = np.insert(x, idx, fill, axis=axis)
    before = [(max(lo, 0), max(hi, 0)) if a == axis else (0, 0) for a in range(x.ndim)]
    x = np.pad(x, before, constant_values=fill)
    x = x[tuple(slice(max(-lo, 0), x.shape[a] - max(-hi, 0)) if a == axis else slice(None)
                for a in range(x.ndim))]
  return x


def _np_slice(x: np.ndarray, start, limit, strides) -> np.ndarray:
  return x[tuple(slice(s, lim, st) for s, lim, st in zip(start, limit, strides))]


def _reference(name: str, ufunc: np.ufunc) -> Callable:
  def reference(x: np.ndarray, **params) -> np.ndarray:
    init = _identity(name, x.dtype)
    views = _window_views(_np_pad, _np_slice, x, x.shape, init, **params)
    out_shape = window_output_shape(x.shape, **params)
    out = np.full(out_shape, init, x.dtype)
    for v in views:
      out = ufunc(out, v).astype(x.dtype)
    return out
  return reference


def _lax_views(x: Any, fill: Any, **params) -> list:
  return _window_views(lax.pad, lax.slice, x, core.get_aval(x).shape, fill, **params)


def _chooser_jvp(prim: core.Primitive):
  """The tangent at the first window position holding the extremum."""
  def jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = prim.bind(x, **params)
    dtype = core.get_aval(x).dtype
    xs = _lax_views(x, _identity(prim.name, dtype)[()], **params)
    ts = _lax_views(t, np.zeros((), dtype)[()], **params)
    t_out = ts[-1]
    for xv, tv in zip(xs[-2::-1], ts[-2::-1]):
      t_out = lax.select_n(lax.eq(xv, out), t_out, tv)
    return out, t_out
  return jvp


def _sum_transpose(ct, operand, *, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
  """Spread each cotangent over its window: dilate it by the strides, pad it so every input
  position sees the windows covering it, sum windows again, strided by the base dilation."""
  in_shape = operand.aval.shape
  out_shape = core.get_aval(ct).shape
  config = []
  for n, w, s, (lo, _), bd, wd, m in zip(in_shape, window_dimensions, window_strides, padding,
                                         base_dilation, window_dilation, out_shape):
    before = _dilate(w, wd) - lo - 1
    after = _dilate(n, bd) + _dilate(w, wd) - 1 - _dilate(m, s) - before
    config.append((before, after, s - 1))
  padded = lax.pad(ct, np.zeros((), core.get_aval(ct).dtype)[()], config)
  ndim = len(in_shape)
  return [reduce_window_sum_p.bind(
      padded, window_dimensions=window_dimensions, window_strides=base_dilation,
      padding=((0, 0),) * ndim, base_dilation=(1,) * ndim, window_dilation=window_dilation)]


def _windowed(name: str, accepted, ufunc: np.ufunc) -> core.Primitive:
  prim = standard_primitive(name, _abstract_eval(name, accepted))
  def_reference(prim, _reference(name, ufunc))
  batching.primitive_batchers[prim] = lambda args, dims, **params: _batcher(
      prim, args, dims, **params)
  return prim


reduce_window_sum_p = _windowed("reduce_window_sum", numeric_dtypes, np.add)
ad.deflinear2(reduce_window_sum_p, _sum_transpose)
reduce_window_max_p = _windowed("reduce_window_max", any_dtype, np.maximum)
ad.primitive_jvps[reduce_window_max_p] = _chooser_jvp(reduce_window_max_p)
reduce_window_min_p = _windowed("reduce_window_min", any_dtype, np.minimum)
ad.primitive_jvps[reduce_window_min_p] = _chooser_jvp(reduce_window_min_p)


def _bind(prim: core.Primitive, operand: Any, window_dimensions, window_strides, padding,
          base_dilation=None, window_dilation=None) -> Any:
  return prim.bind(operand, **_params(prim.name, core.get_aval(operand), window_dimensions,
                                      window_strides, padding, base_dilation, window_dilation))


def reduce_window_sum(operand: Any, window_dimensions: Sequence[int],
                      window_strides: Sequence[int], padding: Any,
                      base_dilation: Sequence[int] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Any:
  """The sum over each window (padding: (low, high) pairs or "SAME"/"VALID")."""
  return _bind(reduce_window_sum_p, operand, window_dimensions, window_strides, padding,
               base_dilation, window_dilation)


def reduce_window_max(operand: Any, window_dimensions: Sequence[int],
                      window_strides: Sequence[int], padding: Any,
                      base_dilation: Sequence[int] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Any:
  """The maximum over each window (padding: (low, high) pairs or "SAME"/"VALID")."""
  return _bind(reduce_window_max_p, operand, window_dimensions, window_strides, padding,
               base_dilation, window_dilation)


def reduce_window_min(operand: Any, window_dimensions: Sequence[int],
                      window_strides: Sequence[int], padding: Any,
                      base_dilation: Sequence[int] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Any:
  """The minimum over each window (padding: (low, high) pairs or "SAME"/"VALID")."""
  return _bind(reduce_window_min_p, operand, window_dimensions, window_strides, padding,
               base_dilation, window_dilation)


# ----------------------------------------------------------------------------------------------
# reduce_window: several operands, a traced computation (XLA's variadic ReduceWindow)

def reduce_window(operand: Any, init_value: Any, computation: Callable,
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  padding: Any = "VALID", base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
  """Reduce each window of the pytree `operand` with `computation(accumulators, values)` on
  pytrees of scalars like `init_value`, starting from it (padding holds `init_value`; strides
  default to 1, padding to "VALID"). lax.add, max and min from their identity are the
  monoid reductions."""
  leaves, inits, tree = flatten_operands(operand, init_value)
  if not leaves:
    raise ValueError("reduce_window must have at least one operand.")
  ones = (1,) * len(window_dimensions)
  window_strides = ones if window_strides is None else tuple(window_strides)
  if isinstance(padding, str):  # (from the operand's shape, as JAX, whatever the base dilation)
    window = window_dimensions if window_dilation is None else tuple(
        _dilate(w, d) for w, d in zip(window_dimensions, window_dilation))
    padding = padtype_to_pads(core.get_aval(leaves[0]).shape, window, window_strides, padding)
  monoid = _monoid_window_reducer(computation, inits)
  if monoid is not None:
    return tree_unflatten(tree, [_bind(monoid, leaves[0], window_dimensions, window_strides,
                                       padding, base_dilation, window_dilation)])
  jaxpr, out_tree = trace_reduction(computation, tree, [core.get_aval(x) for x in inits])
  if out_tree != tree:
    raise ValueError(f"reduce_window output must have the same tree structure as the operands "
                     f"{tree} vs. {out_tree}")
  params = _params("reduce_window", core.get_aval(leaves[0]), window_dimensions, window_strides,
                   padding, base_dilation, window_dilation)
  return tree_unflatten(tree, reduce_window_p.bind(*leaves, *inits, jaxpr=jaxpr, **params))


# computation -> the windowed reduction it amounts to from its identity (as JAX picks one)
_MONOIDS = {lax.add: reduce_window_sum_p, lax.max: reduce_window_max_p,
            lax.min: reduce_window_min_p}


def _monoid_window_reducer(computation: Any, inits: Sequence[Any]) -> core.Primitive | None:
  if len(inits) != 1 or not core.is_concrete(inits[0]) or np.ndim(inits[0]):
    return None
  try:
    prim = _MONOIDS.get(computation)
  except TypeError:  # (an unhashable computation)
    return None
  dtype = core.get_aval(inits[0]).dtype
  if prim is None or np.asarray(inits[0]) != _identity(prim.name, dtype):
    return None
  return prim


def _general_abstract_eval(*avals: ShapedArray, jaxpr, **params):
  n = len(avals) // 2
  operands, inits = avals[:n], avals[n:]
  if any(o.dtype != i.dtype for o, i in zip(operands, inits)):
    raise TypeError(f"reduce_window got inconsistent dtypes for operands and init_values: got "
                    f"operand dtypes {[o.dtype for o in operands]} and init_value dtypes "
                    f"{[i.dtype for i in inits]}.")
  if any(i.shape for i in inits):
    raise TypeError(f"reduce_window expected init_values to be scalars but init_values have "
                    f"shapes {[i.shape for i in inits]}.")
  if len({o.shape for o in operands}) > 1:
    raise TypeError(f"reduce_window operands must have the same shape, got "
                    f"{', '.join(o.str_short() for o in operands)}")
  if [(a.shape, a.dtype) for a in jaxpr.out_avals] != [((), i.dtype) for i in inits]:
    raise TypeError(f"reduce_window computation must map two trees of scalars like the initial "
                    f"values ({', '.join(a.str_short() for a in inits)}) to one; it returns "
                    f"{', '.join(a.str_short() for a in jaxpr.out_avals)}")
  _params("reduce_window", operands[0], **params)
  shape = window_output_shape(operands[0].shape, **params)
  return [ShapedArray(shape, o.dtype) for o in operands]


def _general_reference(*args: np.ndarray, jaxpr, **params) -> list[np.ndarray]:
  """Fold each window's elements (padding: the initial values) into the initial values."""
  n = len(args) // 2
  operands, inits = args[:n], args[n:]
  views = [_window_views(_np_pad, _np_slice, x, x.shape, i, **params)
           for x, i in zip(operands, inits)]
  shape = window_output_shape(operands[0].shape, **params)
  outs = [np.empty(shape, x.dtype) for x in operands]
  for index in np.ndindex(*shape):
    acc = list(inits)
    for k in range(len(views[0])):
      acc = evaluate_jaxpr_reference(jaxpr, *acc, *(v[k][index] for v in views))
    for o, a in zip(outs, acc):
      o[index] = a
  return outs


def _general_batcher(args, dims, *, jaxpr, **params):
  n = len(args) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("reduce_window batching is not implemented for initial values")
  size = batching.axis_size_of(args, dims)
  operands = [batching.bdim_at_front(x, d, size) for x, d in zip(args[:n], dims[:n])]
  new = {k: ((0, 0) if k == "padding" else 1,) + v for k, v in params.items()}
  return reduce_window_p.bind(*operands, *args[n:], jaxpr=jaxpr, **new), [0] * n


def _general_jvp(primals, tangents, *, jaxpr, **params):
  """JAX's rule: one reduce_window of the primals and tangents with the JVP of the body."""
  n = len(primals) // 2
  if any(type(t) is not ad.Zero for t in tangents[n:]):
    raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
  body, _ = ad.jvp_jaxpr(jaxpr, (True,) * len(primals), (False,) * n + (True,) * n)

  def computation(left, right):
    return tuple(jaxpr_as_fun(body)(*left[:n], *right[:n], *left[n:], *right[n:]))

  operands = [*primals[:n], *map(ad.instantiate_zeros, tangents[:n])]
  inits = [*primals[n:], *(lax.full_like(p, 0) for p in primals[n:])]
  outs = reduce_window(tuple(operands), tuple(inits), computation, **params)
  return list(outs[:n]), list(outs[n:])


reduce_window_p = standard_primitive("reduce_window", _general_abstract_eval,
                                     multiple_results=True)
def_reference(reduce_window_p, _general_reference)
batching.primitive_batchers[reduce_window_p] = _general_batcher
ad.primitive_jvps[reduce_window_p] = _general_jvp

# ----------------------------------------------------------------------------------------------
# select_and_scatter (XLA's SelectAndScatter), select_and_scatter_add and select_and_gather_add
# (JAX's primitives for the derivatives of a max/min window: the tangent at the selected
# element of each window, and its transpose)

def _window_positions(shape: Sequence[int], window_dimensions, window_strides, padding):
  """For each window (by output index): the in-bounds operand indices it covers, in order."""
  out_shape = window_output_shape(shape, window_dimensions, window_strides, padding,
                                  (1,) * len(shape), (1,) * len(shape))
  for index in np.ndindex(*out_shape):
    starts = [i * s - lo for i, s, (lo, _) in zip(index, window_strides, padding)]
    cover = [tuple(range(a, a + w)) for a, w in zip(starts, window_dimensions)]
    yield index, [p for p in itertools.product(*cover)
                  if all(0 <= q < n for q, n in zip(p, shape))]


def _select_and_scatter_reference(operand, source, init_value, *, select_jaxpr, scatter_jaxpr,
                                  window_dimensions, window_strides, padding) -> np.ndarray:
  """Each window's element chosen by `select` (the first one unless select(chosen, next) is
  false) accumulates the window's source value with `scatter` (padding is never chosen)."""
  out = np.full(operand.shape, init_value, operand.dtype)
  for index, positions in _window_positions(operand.shape, window_dimensions, window_strides,
                                            padding):
    if not positions:
      continue
    chosen = positions[0]
    for p in positions[1:]:
      (keep,) = evaluate_jaxpr_reference(select_jaxpr, operand[chosen], operand[p])
      chosen = chosen if keep else p
    (out[chosen],) = evaluate_jaxpr_reference(scatter_jaxpr, out[chosen], source[index])
  return out


def _select_and_scatter_abstract_eval(operand: ShapedArray, source: ShapedArray,
                                      init_value: ShapedArray, *, select_jaxpr, scatter_jaxpr,
                                      window_dimensions, window_strides, padding) -> ShapedArray:
  if len(window_dimensions) != len(window_strides):
    raise TypeError(f"select_and_scatter got inconsistent window_strides and window_dimensions: "
                    f"got window_strides {window_strides} and window_dimensions "
                    f"{window_dimensions}.")
  if source.dtype != operand.dtype or init_value.dtype != operand.dtype or init_value.shape:
    raise TypeError(f"select_and_scatter takes a source and a scalar init_value of the "
                    f"operand's dtype, got {operand.str_short()}, {source.str_short()} and "
                    f"{init_value.str_short()}")
  want = window_output_shape(operand.shape, window_dimensions, window_strides, padding,
                             (1,) * operand.ndim, (1,) * operand.ndim)
  if source.shape != want:
    raise TypeError(f"select_and_scatter: source {source.str_short()} must have the shape of "
                    f"the windows, {want}")
  return ShapedArray(operand.shape, operand.dtype)


def _select_and_scatter_batcher(args, dims, **params):
  """The batch axis gets a window of 1 (the initial value must be unbatched)."""
  if dims[2] is not None:
    raise NotImplementedError("select_and_scatter batching is not implemented for a batched "
                              "init_value")
  size = batching.axis_size_of(args, dims)
  operand, source = (batching.bdim_at_front(x, d, size) for x, d in zip(args[:2], dims[:2]))
  return select_and_scatter_p.bind(operand, source, args[2], **_windowed_front(params)), 0


def _windowed_front(params: dict) -> dict:
  """Window params with a leading batch axis of window 1."""
  front = {"padding": (0, 0)}
  return {k: (front.get(k, 1),) + v if k in _WINDOW_PARAMS else v for k, v in params.items()}


_WINDOW_PARAMS = ("window_dimensions", "window_strides", "padding", "base_dilation",
                  "window_dilation")


def _no_jvp(name: str) -> Callable:
  def jvp(primals, tangents, **params):
    raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")
  return jvp


select_and_scatter_p = standard_primitive("select_and_scatter", _select_and_scatter_abstract_eval)
def_reference(select_and_scatter_p, _select_and_scatter_reference)
batching.primitive_batchers[select_and_scatter_p] = _select_and_scatter_batcher
ad.primitive_jvps[select_and_scatter_p] = _no_jvp("select_and_scatter")


def _scalar_jaxpr(fn: Callable, dtype: np.dtype) -> ClosedJaxpr:
  aval = ShapedArray((), dtype)
  return pe.trace_to_closed_jaxpr(lambda x, y: [fn(x, y)], [aval, aval])


def select_and_scatter_add_decomposition(source: Any, operand: Any, *, select_prim,
                                         window_dimensions, window_strides, padding) -> Any:
  """select_and_scatter_add as select_and_scatter on the operand padded with the selection's
  identity (JAX's lowering on CPU and GPU)."""
  dtype = core.get_aval(operand).dtype
  shape = core.get_aval(operand).shape
  identity = _identity("reduce_window_max" if select_prim is lax.ge_p else "reduce_window_min",
                       dtype)[()]
  padded = lax.pad(operand, identity, [(lo, hi, 0) for lo, hi in padding])
  out = select_and_scatter_p.bind(
      padded, source, np.zeros((), dtype),
      select_jaxpr=_scalar_jaxpr(select_prim.bind, dtype),
      scatter_jaxpr=_scalar_jaxpr(lax.bitwise_or if dtype == np.bool_ else lax.add, dtype),
      window_dimensions=window_dimensions, window_strides=window_strides,
      padding=((0, 0),) * len(shape))
  return lax.slice(out, [lo for lo, _ in padding],
                   [lo + n for (lo, _), n in zip(padding, shape)])


def _select_and_scatter_add_abstract_eval(source: ShapedArray, operand: ShapedArray, *,
                                          select_prim, window_dimensions, window_strides,
                                          padding) -> ShapedArray:
  if select_prim not in (lax.ge_p, lax.le_p):
    raise TypeError(f"select_and_scatter_add selects with lax.ge_p or lax.le_p, got "
                    f"{select_prim}")
  return ShapedArray(operand.shape, source.dtype)


def _select_and_scatter_add_transpose(t, source, operand, **params):
  ones = (1,) * len(params["window_dimensions"])
  return [select_and_gather_add_p.bind(t, operand, base_dilation=ones, window_dilation=ones,
                                       **params), None]


def _tangent_in_source(prim: core.Primitive) -> Callable:
  """The JVP of an op linear in its first operand (the second one selects)."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if type(tangents[0]) is ad.Zero:
      return out, ad.Zero.from_primal_value(out)
    return out, prim.bind(tangents[0], primals[1], **params)
  return jvp


def _selected_batcher(prim: core.Primitive) -> Callable:
  def rule(args, dims, **params):
    size = batching.axis_size_of(args, dims)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    return prim.bind(*args, **_windowed_front(params)), 0
  return rule


def _select_and_scatter_add_reference(source, operand, *, select_prim, **params):
  dtype = operand.dtype
  return _select_and_scatter_reference(
      operand, source, np.zeros((), dtype),
      select_jaxpr=_scalar_jaxpr(select_prim.bind, dtype),
      scatter_jaxpr=_scalar_jaxpr(lax.add, dtype), **params)


select_and_scatter_add_p = standard_primitive("select_and_scatter_add",
                                              _select_and_scatter_add_abstract_eval)
def_reference(select_and_scatter_add_p, _select_and_scatter_add_reference)
ad.primitive_jvps[select_and_scatter_add_p] = _tangent_in_source(select_and_scatter_add_p)
ad.primitive_transposes[select_and_scatter_add_p] = _select_and_scatter_add_transpose
batching.primitive_batchers[select_and_scatter_add_p] = _selected_batcher(
    select_and_scatter_add_p)


def select_and_gather_add_decomposition(tangents: Any, operand: Any, *, select_prim, **params
                                        ) -> Any:
  """The tangent of each window's selected element: a reduce_window of (operand, tangent)
  pairs keeping the pair `select_prim` prefers (JAX's variadic form)."""
  def reducer(x, y):
    which = select_prim.bind(x[0], y[0])
    return lax.select(which, x[0], y[0]), lax.select(which, x[1], y[1])
  dtype = core.get_aval(operand).dtype
  init = -np.inf if select_prim is lax.ge_p else np.inf
  return reduce_window((operand, tangents), (np.array(init, dtype), np.zeros((), dtype)),
                       reducer, **params)[1]


def _select_and_gather_add_abstract_eval(tangents: ShapedArray, operand: ShapedArray, *,
                                         select_prim, **params) -> ShapedArray:
  if tangents.shape != operand.shape:
    raise TypeError(f"select_and_gather_add tangents and operand shapes must match, got "
                    f"{tangents.shape} and {operand.shape}.")
  _params("select_and_gather_add", operand, **params)
  return ShapedArray(window_output_shape(operand.shape, **params), tangents.dtype)


def _select_and_gather_add_transpose(t, tangents, operand, *, base_dilation, window_dilation,
                                     **params):
  if any(d != 1 for d in window_dilation):
    raise NotImplementedError(f"VJP not implemented for select_and_gather (MaxPool) with "
                              f"window dilation, got window_dilation={window_dilation}.")
  if type(t) is ad.Zero:
    return [ad.Zero(tangents.aval), None]
  shape = core.get_aval(operand).shape
  if any(d != 1 for d in base_dilation):
    identity = _identity("reduce_window_max" if params["select_prim"] is lax.ge_p
                         else "reduce_window_min", core.get_aval(operand).dtype)[()]
    operand = lax.pad(operand, identity, [(0, 0, d - 1) for d in base_dilation])
  out = select_and_scatter_add_p.bind(t, operand, **params)
  return [lax.slice(out, (0,) * len(shape), core.get_aval(out).shape, base_dilation), None]


def _select_and_gather_add_reference(tangents, operand, *, select_prim, **params):
  dtype = operand.dtype
  init = -np.inf if select_prim is lax.ge_p else np.inf
  ops = _window_views(_np_pad, _np_slice, operand, operand.shape, np.array(init, dtype), **params)
  ts = _window_views(_np_pad, _np_slice, tangents, tangents.shape, np.zeros((), dtype), **params)
  out_o = np.full(window_output_shape(operand.shape, **params), init, dtype)
  out_t = np.zeros(out_o.shape, dtype)
  for vo, vt in zip(ops, ts):
    keep = evaluate_reference(select_prim, out_o, vo)
    out_o, out_t = np.where(keep, out_o, vo), np.where(keep, out_t, vt)
  return out_t


select_and_gather_add_p = standard_primitive("select_and_gather_add",
                                             _select_and_gather_add_abstract_eval)
def_reference(select_and_gather_add_p, _select_and_gather_add_reference)
ad.primitive_jvps[select_and_gather_add_p] = _tangent_in_source(select_and_gather_add_p)
ad.primitive_transposes[select_and_gather_add_p] = _select_and_gather_add_transpose
batching.primitive_batchers[select_and_gather_add_p] = _selected_batcher(
    select_and_gather_add_p)


# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

def _reduce_window_flops(avals_in, avals_out, *, window_dimensions, **_) -> float:
  return avals_out[0].size * math.prod(window_dimensions)


flops.flops_rules[reduce_window_sum_p] = _reduce_window_flops
flops.flops_rules[reduce_window_max_p] = _reduce_window_flops
flops.flops_rules[reduce_window_min_p] = _reduce_window_flops
for _prim in (select_and_scatter_p, select_and_scatter_add_p, select_and_gather_add_p):
  flops.flops_rules[_prim] = flops.in_size  # (one selection per element)
flops.flops_rules[reduce_window_p] = lambda avals_in, avals_out, *, jaxpr, window_dimensions, **_: (
    avals_out[0].size * math.prod(window_dimensions) * flops.jaxpr_flops(jaxpr))
