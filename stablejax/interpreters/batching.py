"""Batching (vmap): tracers carry a value with an optional batch axis."""
from __future__ import annotations

import functools
import threading
from typing import Any, Callable, Hashable, NamedTuple, Sequence

from stablejax import core
from stablejax.core import ShapedArray, Trace, Tracer
from stablejax.interpreters import partial_eval as pe, rule_checks
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr
from stablejax.util import weak_cache

not_mapped = None


class AxisData(NamedTuple):
  """The axis a batching rule maps over: its `size`, its `name` (`vmap(axis_name=)`, for the
  collectives over it; None if unnamed) and `spmd_name`, the mesh axis it is sharded over (None:
  not sharded), as JAX's `batching.AxisData`."""
  name: Hashable | None
  size: int
  spmd_name: Hashable | None = None


# primitive -> rule(batched_args, batch_dims, **params) -> (out, out_dim)  (lists for
# multiple results); a batch dim is an int or `not_mapped`.
primitive_batchers: dict[core.Primitive, Callable] = rule_checks.register_rule_table({})

# primitive -> rule(axis_data, batched_args, batch_dims, **params): the rules needing the axis
# (its size where no operand shows it, its name for the jaxprs they batch: `batch_jaxpr`), as
# JAX's table of the same name; used before `primitive_batchers`.
fancy_primitive_batchers: dict[core.Primitive, Callable] = rule_checks.register_rule_table({})

# The primitives batched even when no operand is, by their `fancy_primitive_batchers` rule:
# those allocating refs (a ref made under vmap holds one value per batch element, as JAX's).
always_batched: set[core.Primitive] = set()


class AxisPrimitiveBatchers:
  """JAX's `axis_primitive_batchers`, write-only: `axis_primitive_batchers[p] = rule` with
  `rule(axis_size, axis_name, trace, batched_args, batch_dims, **params)` (`trace` is None, as
  in JAX) registers it in `fancy_primitive_batchers`."""

  def __setitem__(self, primitive: core.Primitive, rule: Callable) -> None:
    @functools.wraps(rule)  # (errors about its results name `rule`)
    def fancy_rule(axis_data: AxisData, args: Sequence, dims: Sequence, **params: Any):
      return rule(axis_data.size, axis_data.name, None, args, dims, **params)
    fancy_primitive_batchers[primitive] = fancy_rule

  def __delitem__(self, primitive: core.Primitive) -> None:
    del fancy_primitive_batchers[primitive]


axis_primitive_batchers = AxisPrimitiveBatchers()

# collective primitive -> rule(axis_data, batched_args, batch_dims, **params), used instead of
# the tables above under a vmap with an axis name (even for unbatched operands: `psum(1, "i")`
# is the axis size): a collective over that name reduces, gathers or permutes along the batch
# axis.
collective_batchers: dict[core.Primitive, Callable] = rule_checks.register_rule_table({})


# ----------------------------------------------------------------------------------------------
# Named axes: those of the enclosing `vmap(..., axis_name=)`s and `shard_map`s, innermost last

class _AxisEnv(threading.local):
  def __init__(self):
    self.frames: list[tuple[Hashable, int]] = []


_axis_env = _AxisEnv()


class extend_axis_env:
  """Context manager binding named axes (`(name, size)` pairs) while a function is traced."""
  __slots__ = ("axes",)

  def __init__(self, axes: Sequence[tuple[Hashable, int]]):
    self.axes = list(axes)

  def __enter__(self) -> None:
    _axis_env.frames.extend(self.axes)

  def __exit__(self, *exc: Any) -> None:
    del _axis_env.frames[len(_axis_env.frames) - len(self.axes):]


def bound_axes() -> list[tuple[Hashable, int]]:
  """The named axes bound now, `(name, size)` pairs, outermost first."""
  return list(_axis_env.frames)


def axis_size(name: Hashable, api_name: str = "axis_size") -> int:
  """The size of the innermost bound axis `name`; NameError (as JAX) when none is bound."""
  for frame_name, size in reversed(_axis_env.frames):
    if frame_name == name:
      return size
  raise NameError(f"Found an unbound axis name: {name}. To fix this, please call {api_name} "
                  "under `stablejax.shard_map` or `stablejax.vmap(..., axis_name=...)`.")


class AxisOps:
  """The structural ops moving and adding batch axes bind: lax's `transpose(x, permutation)` and
  `broadcast_in_dim(x, shape, broadcast_dimensions)`. lax registers them with
  `register_axis_ops`: their own batching rules are written with this module, so this module
  cannot import lax (as JAX's ad_util holds what lax gives the transformations)."""
  transpose: Callable[[Any, tuple], Any]
  broadcast_in_dim: Callable[[Any, tuple, tuple], Any]


axis_ops = AxisOps()


def register_axis_ops(transpose: Callable, broadcast_in_dim: Callable) -> None:
  axis_ops.transpose = transpose
  axis_ops.broadcast_in_dim = broadcast_in_dim


def moveaxis(x: Any, src: int, dst: int) -> Any:
  """Move axis `src` of `x` to position `dst` (with a transpose, or not at all)."""
  if src == dst:
    return x
  ndim = core.get_aval(x).ndim
  perm = [i for i in range(ndim) if i != src]
  perm.insert(dst, src)
  return axis_ops.transpose(x, tuple(perm))


def broadcast(x: Any, size: int, axis: int) -> Any:
  """Insert a new axis of length `size` at `axis`, repeating `x` along it."""
  aval = core.get_aval(x)
  shape = list(aval.shape)
  shape.insert(axis, size)
  dims = tuple(i if i < axis else i + 1 for i in range(aval.ndim))
  return axis_ops.broadcast_in_dim(x, tuple(shape), dims)


def matchaxis(size: int, src: int | None, dst: int, x: Any) -> Any:
  """Put the batch axis of `x` (currently `src`, possibly not mapped) at `dst`."""
  if src is not_mapped:
    return broadcast(x, size, dst)
  return moveaxis(x, src, dst)


def bdim_at_front(x: Any, bdim: int | None, size: int) -> Any:
  return matchaxis(size, bdim, 0, x)


def axis_size_of(args: Sequence, dims: Sequence) -> int:
  """The batch axis size, read off the first batched argument (for a `primitive_batchers` rule;
  a `fancy_primitive_batchers` rule is given it)."""
  for x, d in zip(args, dims):
    if d is not not_mapped:
      return core.get_aval(x).shape[d]
  raise ValueError("no batched argument")


def vectorized_batcher(prim: core.Primitive, args, dims, **params):
  """Elementwise unary primitives: apply to the batched value, keep its batch axis."""
  (x,), (d,) = args, dims
  return prim.bind(x, **params), d


def defvectorized(prim: core.Primitive) -> None:
  primitive_batchers[prim] = lambda args, dims, **params: vectorized_batcher(
      prim, args, dims, **params)


def broadcast_batcher(prim: core.Primitive, args, dims, **params):
  """Elementwise n-ary primitives (which broadcast rank-0 and size-1 axes): move every batch
  axis to the front, giving unbatched operands of nonzero rank a leading size-1 axis."""
  ndims = [core.get_aval(x).ndim - (d is not not_mapped) for x, d in zip(args, dims)]
  if len(set(dims)) == 1 and len(set(ndims)) == 1:
    return prim.bind(*args, **params), dims[0]
  out_args = []
  for x, d, nd in zip(args, dims, ndims):
    if d is not_mapped:
      out_args.append(x if nd == 0 else broadcast(x, 1, 0))
    else:
      x = moveaxis(x, d, 0)
      if nd == 0 and max(ndims) > 0:  # a batched scalar must line up with the others' axes
        x = axis_ops.broadcast_in_dim(x, (core.get_aval(x).shape[0],) + (1,) * max(ndims), (0,))
      out_args.append(x)
  return prim.bind(*out_args, **params), 0


def defbroadcasting(prim: core.Primitive) -> None:
  primitive_batchers[prim] = lambda args, dims, **params: broadcast_batcher(
      prim, args, dims, **params)


# ----------------------------------------------------------------------------------------------
# The batching trace

def mapped_aval(aval: ShapedArray, axis: int) -> ShapedArray:
  """The type of one element along `axis` (a typed sharding loses that dimension's split)."""
  shape = list(aval.shape)
  del shape[axis]
  if type(aval) is not ShapedArray:  # (a ref type: one of the same kind)
    return aval.update(shape=tuple(shape))
  typed = aval.typed_sharding
  if typed is not None:
    typed = typed.update(spec=typed.spec[:axis] + typed.spec[axis + 1:])
  return ShapedArray(tuple(shape), aval.dtype, aval.weak_type, sharding=typed)


class BatchTracer(Tracer):
  __slots__ = ("val", "batch_dim", "_aval")

  def __init__(self, trace: BatchTrace, val: Any, batch_dim: int | None):
    self._trace = trace
    self.val = val
    self.batch_dim = batch_dim
    self._aval = None

  @property
  def aval(self) -> ShapedArray:
    """The type of one element (found once: jax.numpy asks it of each operand)."""
    aval = self._aval
    if aval is None:
      aval = core.get_aval(self.val)
      if self.batch_dim is not not_mapped:
        aval = mapped_aval(aval, self.batch_dim)
      self._aval = aval
    return aval


class BatchTrace(Trace):
  def __init__(self, parent: Trace, axis_data: AxisData):
    super().__init__(parent)
    self.axis_data = axis_data

  def val_dim(self, x: Any) -> tuple[Any, int | None]:
    if type(x) is BatchTracer and x._trace is self:
      return x.val, x.batch_dim
    return x, not_mapped

  def process_primitive(self, primitive, args, params):
    vals, dims = [], []
    for x in args:
      v, d = self.val_dim(x)
      vals.append(v)
      dims.append(d)
    axis = self.axis_data
    with core.set_current_trace(self.parent):
      if axis.name is not None and primitive in collective_batchers:
        rule = collective_batchers[primitive]
        out, out_dim = rule(axis, vals, dims, **params)
      elif all(d is not_mapped for d in dims) and primitive not in always_batched:
        return primitive.bind(*vals, **params)
      elif primitive in fancy_primitive_batchers:
        rule = fancy_primitive_batchers[primitive]
        out, out_dim = rule(axis, vals, dims, **params)
      else:
        rule = primitive_batchers.get(primitive)
        if rule is None:
          raise NotImplementedError(f"Batching rule for '{primitive.name}' not implemented "
                                    "(register one in batching.primitive_batchers)")
        out, out_dim = rule(vals, dims, **params)
    if rule_checks.is_checked(rule):
      _check_batch_result(primitive, rule, axis.size, vals, dims, params, out, out_dim)
    if primitive.multiple_results:
      return [BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
    return BatchTracer(self, out, out_dim)


def _check_batch_result(primitive: core.Primitive, rule: Callable, size: int, vals: Sequence,
                        dims: Sequence, params: dict, out: Any, out_dim: Any) -> None:
  """Each output's batch dim is an axis of size `size` (or `not_mapped`), and without it the
  outputs are of the types the primitive gives the unbatched inputs."""
  outs, out_dims = (out, out_dim) if primitive.multiple_results else ((out,), (out_dim,))
  if not (isinstance(outs, (list, tuple)) and isinstance(out_dims, (list, tuple))):
    raise rule_checks.bad_result("batching", primitive, rule, f"({out!r}, {out_dim!r}); a rule "
                                 "of a primitive with multiple results returns a list of "
                                 "outputs and a list of their batch dims")
  if len(outs) != len(out_dims):
    raise rule_checks.bad_result("batching", primitive, rule, f"{len(outs)} outputs and "
                                 f"{len(out_dims)} batch dims")
  for i, (o, d) in enumerate(zip(outs, out_dims)):
    aval = core.get_aval(o)
    if d is not not_mapped:
      if not (isinstance(d, int) and 0 <= d < aval.ndim and aval.shape[d] == size):
        raise rule_checks.bad_result(
            "batching", primitive, rule, f"output {i} of type {aval.str_short()} with batch "
            f"dim {d!r}, which is not an axis of size {size} (the batch size)")
  if size:  # (an empty batch has no example: its rule may batch what no example could be)
    _check_unbatched_types(primitive, rule, vals, dims, params, outs, out_dims)


def _check_unbatched_types(primitive: core.Primitive, rule: Callable, vals: Sequence,
                           dims: Sequence, params: dict, outs: Sequence, out_dims: Sequence
                           ) -> None:
  """Without their batch dims, the outputs are of the types the primitive gives the unbatched
  inputs."""
  in_avals = [core.get_aval(v) if d is not_mapped else mapped_aval(core.get_aval(v), d)
              for v, d in zip(vals, dims)]
  want = primitive.out_avals(in_avals, params)
  if len(outs) != len(want):
    raise rule_checks.bad_result("batching", primitive, rule, f"{len(outs)} outputs; the "
                                 f"primitive has {len(want)}")
  for i, (o, d, w) in enumerate(zip(outs, out_dims, want)):
    aval = core.get_aval(o)
    aval = aval if d is not_mapped else mapped_aval(aval, d)
    if aval.shape != w.shape or aval.dtype != w.dtype:
      raise rule_checks.bad_result(
          "batching", primitive, rule, f"output {i} of type {aval.str_short()} without its "
          f"batch dim {d!r}; the primitive gives the unbatched inputs {w.str_short()}")


def vmap_flat(f: Callable[..., Sequence], axis_size: int, in_dims: Sequence[int | None],
              out_dims: Sequence[int | None] | Callable[[int], Sequence], args: Sequence,
              axis_name: Hashable | None = None, spmd_axis_name: Hashable | None = None
              ) -> list:
  """Map flat-in, flat-out `f` over axis `in_dims[i]` of each argument (None: not mapped),
  putting the mapped axis of each output at `out_dims[i]`. `out_dims` may be a function of the
  number of outputs, for when that is only known after tracing. Collectives over `axis_name`
  in `f` act along the mapped axis; `spmd_axis_name` is the mesh axis it is sharded over."""
  parent = core.current_trace()
  trace = BatchTrace(parent, AxisData(axis_name, axis_size, spmd_axis_name))
  tracers = [x if d is not_mapped else BatchTracer(trace, x, d) for x, d in zip(args, in_dims)]
  env = extend_axis_env([] if axis_name is None else [(axis_name, axis_size)])
  try:
    with core.set_current_trace(trace), core.extend_name_stack("vmap", transform=True), env:
      outs = f(*tracers)
    if callable(out_dims):
      out_dims = out_dims(len(outs))
    results = []
    for i, (o, dst) in enumerate(zip(outs, out_dims)):
      val, src = trace.val_dim(o)
      if dst is not not_mapped:
        ndim = core.get_aval(val).ndim + (src is not_mapped)  # the rank of the stacked output
        if not -ndim <= dst < ndim:
          raise ValueError(f"vmap out_axes {dst} is out of bounds for output {i}, of rank "
                           f"{ndim} with the mapped axis")
        dst %= ndim
      if dst is not_mapped:
        if src is not not_mapped:
          raise ValueError(f"vmap has mapped output {i} but out_axes is None for it")
        results.append(val)
      else:
        results.append(matchaxis(axis_size, src, dst, val))
  finally:
    trace.invalidate()
  return results


# ----------------------------------------------------------------------------------------------
# Batching a whole jaxpr (for higher-order primitives such as jit)

def batch_jaxpr(closed: ClosedJaxpr, axis_data: AxisData, in_dims: Sequence[int | None],
                instantiate: bool | Sequence[bool] = False
                ) -> tuple[ClosedJaxpr, list[int | None]]:
  """A jaxpr over the batched inputs (batch axis where `in_dims` says, unbatched inputs as
  they were) whose batched outputs have their batch axis at 0; and each output's batch dim.
  `axis_data` is the axis a `fancy_primitive_batchers` rule was given (collectives over its
  name inside the jaxpr act along it)."""
  if type(axis_data) is not AxisData:
    raise TypeError(f"batch_jaxpr takes the rule's batching.AxisData, got {axis_data!r}")
  if isinstance(instantiate, bool):
    instantiate = (instantiate,) * len(closed.out_avals)
  return _batch_jaxpr_cached(closed, axis_data, tuple(in_dims), tuple(instantiate))


@weak_cache(maxsize=64)
def _batch_jaxpr_cached(closed, axis_data, in_dims, instantiate):
  out_dims: list[int | None] = []
  size = axis_data.size

  def f(*args):
    trace = BatchTrace(core.current_trace(), axis_data)
    tracers = [x if d is not_mapped else BatchTracer(trace, x, d) for x, d in zip(args, in_dims)]
    try:
      with core.set_current_trace(trace):
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *tracers)
      results = []
      out_dims.clear()
      for o, inst in zip(outs, instantiate):
        val, d = trace.val_dim(o)
        if d is not_mapped and not inst:
          out_dims.append(not_mapped)
          results.append(val)
        else:
          out_dims.append(0)
          results.append(matchaxis(size, d, 0, val))
      return results
    finally:
      trace.invalidate()

  in_avals = [a if d is not_mapped else unmapped_aval(a, size, d)
              for a, d in zip(closed.in_avals, in_dims)]
  return pe.trace_to_closed_jaxpr(f, in_avals), out_dims


def unmapped_aval(aval: ShapedArray, size: int, axis: int) -> ShapedArray:
  shape = list(aval.shape)
  shape.insert(axis, size)
  typed = aval.typed_sharding
  if typed is not None:  # (the new dimension is not split)
    typed = typed.update(spec=[*typed.spec[:axis], None, *typed.spec[axis:]])
  return ShapedArray(tuple(shape), aval.dtype, aval.weak_type, sharding=typed)
