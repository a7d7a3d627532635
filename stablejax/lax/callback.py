"""Host callbacks: a Python function called on the host with numpy arrays, from eager code or
from a compiled program (lowered to a `stablehlo.custom_call` back into Python, see
lowering/rules/callback.py).

- `pure_callback`: a function of its operands with results of known types (`result_avals`);
  not differentiable, batched as `vmap_method` says.
- `debug_callback`: an effect with no results (its `effect` param, so dead-code elimination keeps
  it); `sj.debug.print` and `sj.debug.callback` are built on it.

Evaluated eagerly they call the function at once (their `impl`): nothing to compile.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from stablejax import core
from stablejax.interpreters import ad, batching, flops
from stablejax.lax.primitive_kit import def_reference

__all__ = ["debug_callback_p", "io_callback_p", "pure_callback_p"]


class HostCallback:
  """A Python function over flat numpy arrays returning the arrays `result_avals` describe
  (converted and checked here, as JAX does); printed as the user's function. Host callbacks
  are registered with compiled programs by (weak) reference to this object."""
  __slots__ = ("fn", "result_avals", "name", "__weakref__")

  def __init__(self, fn: Callable[..., Sequence], result_avals: Sequence[core.ShapedArray],
               name: str):
    self.fn = fn
    self.result_avals = tuple(result_avals)
    self.name = name

  def __call__(self, *args: Any) -> tuple[np.ndarray, ...]:
    outs = self.fn(*[np.asarray(x) for x in args])
    outs = () if outs is None and not self.result_avals else tuple(outs)
    if len(outs) != len(self.result_avals):
      raise RuntimeError(f"callback {self.name}: mismatched number of outputs. Expected "
                         f"{len(self.result_avals)}, got {len(outs)}")
    checked = []
    for i, (out, aval) in enumerate(zip(outs, self.result_avals)):
      out = np.asarray(out)
      if out.shape != aval.shape or out.dtype != aval.dtype:
        raise RuntimeError(f"callback {self.name}: return value #{i} has shape {out.shape} "
                           f"and dtype {out.dtype}, expected {aval.str_short()}")
      checked.append(out)
    return tuple(checked)

  def __str__(self) -> str:
    return self.name

  __repr__ = __str__


def _unbatched_calls(callback: HostCallback, size: int, dims: Sequence[int | None],
                     result_avals: Sequence[core.ShapedArray]) -> HostCallback:
  """`callback` called once per batch element (operands batched at axis 0 where `dims` is not
  None), its results stacked at axis 0."""
  def call(*args):
    rows = [callback(*[x[i] if d is not None else x for x, d in zip(args, dims)])
            for i in range(size)]
    return [np.stack([r[k] for r in rows]) if rows else np.zeros(a.shape, a.dtype)
            for k, a in enumerate(result_avals)]
  return HostCallback(call, _batched_avals(result_avals, size), callback.name)


def _batched_avals(avals: Sequence[core.ShapedArray], size: int) -> tuple:
  return tuple(a.update(shape=(size,) + a.shape) for a in avals)


# ----------------------------------------------------------------------------------------------
# pure_callback

pure_callback_p = core.Primitive("pure_callback")
pure_callback_p.multiple_results = True


def _pure_callback_abstract_eval(*avals, callback: HostCallback, result_avals: tuple,
                                 vmap_method: str | None):
  return list(result_avals)


def _pure_callback_impl(*args, callback: HostCallback, result_avals: tuple,
                        vmap_method: str | None):
  return list(callback(*args))


def _pure_callback_jvp(primals, tangents, **params):
  raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                   "callbacks while taking gradients.")


def _pure_callback_batch(axis_data, args, dims, *, callback: HostCallback, result_avals: tuple,
                         vmap_method: str | None):
  """`sequential`: one call per element; `expand_dims`: one call, unbatched operands given a
  leading axis of size 1; `broadcast_all`: one call, every operand batched."""
  size = axis_data.size
  out_avals = _batched_avals(result_avals, size)
  if vmap_method == "sequential":
    args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
    new = _unbatched_calls(callback, size, [None if d is None else 0 for d in dims],
                           result_avals)
  elif vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
    width = 1 if vmap_method == "expand_dims" else size
    args = [batching.matchaxis(width, d, 0, x) for x, d in zip(args, dims)]
    new = HostCallback(callback.fn, out_avals, callback.name)
  else:
    raise NotImplementedError(
        f"vmap of pure_callback {callback.name} needs a vmap_method: 'sequential', "
        f"'expand_dims' or 'broadcast_all' (got {vmap_method!r})")
  outs = pure_callback_p.bind(*args, callback=new, result_avals=out_avals,
                              vmap_method=vmap_method)
  return outs, [0] * len(outs)


pure_callback_p.def_abstract_eval(_pure_callback_abstract_eval)
pure_callback_p.def_impl(_pure_callback_impl)
ad.primitive_jvps[pure_callback_p] = _pure_callback_jvp
batching.fancy_primitive_batchers[pure_callback_p] = _pure_callback_batch
def_reference(pure_callback_p, _pure_callback_impl)


# ----------------------------------------------------------------------------------------------
# debug_callback

class _DebugEffect(core.Effect):
  """The effect of `debug_callback`, printed as JAX prints it."""

  def __repr__(self) -> str:
    return "Debug"


class _OrderedDebugEffect(core.Effect):
  """The effect of an ordered `debug_callback` (`ordered=True`): such callbacks run in program
  order (the lowering threads a token through them)."""
  ordered = True

  def __repr__(self) -> str:
    return "OrderedDebug"


debug_effect = _DebugEffect()
ordered_debug_effect = _OrderedDebugEffect()

debug_callback_p = core.Primitive("debug_callback")
debug_callback_p.multiple_results = True
debug_callback_p.def_effects(lambda *, effect, **_: (effect,))


def _debug_callback_impl(*args, callback: HostCallback, effect: Any, partitioned: bool):
  callback(*args)
  return []


def _debug_callback_jvp(primals, tangents, **params):
  """The callback sees the primal values only."""
  return debug_callback_p.bind(*primals, **params), []


def _debug_callback_batch(axis_data, args, dims, *, callback: HostCallback, **params):
  """One call per batch element, in order."""
  size = axis_data.size
  args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
  new = _unbatched_calls(callback, size, [None if d is None else 0 for d in dims], ())
  return debug_callback_p.bind(*args, callback=new, **params), []


debug_callback_p.def_abstract_eval(lambda *avals, **params: [])
debug_callback_p.def_impl(_debug_callback_impl)
ad.primitive_jvps[debug_callback_p] = _debug_callback_jvp
batching.fancy_primitive_batchers[debug_callback_p] = _debug_callback_batch
def_reference(debug_callback_p, _debug_callback_impl)

# ----------------------------------------------------------------------------------------------
# io_callback

class _IOEffect(core.Effect):
  """The effect of `io_callback`: it is never removed, but may be reordered."""

  def __repr__(self) -> str:
    return "IO"


class _OrderedIOEffect(core.Effect):
  """The effect of an ordered `io_callback`: such callbacks run in program order."""
  ordered = True

  def __repr__(self) -> str:
    return "OrderedIO"


io_effect = _IOEffect()
ordered_io_effect = _OrderedIOEffect()

io_callback_p = core.Primitive("io_callback")
io_callback_p.multiple_results = True
io_callback_p.def_effects(lambda *, ordered, **_: (ordered_io_effect if ordered else io_effect,))


def _io_callback_impl(*args, callback: HostCallback, result_avals: tuple, sharding: Any,
                      ordered: bool):
  return list(callback(*args))


def _io_callback_jvp(primals, tangents, **params):
  raise ValueError("IO callbacks do not support JVP.")


def _io_callback_batch(axis_data, args, dims, *, callback: HostCallback, result_avals: tuple,
                       ordered: bool, **params):
  """One call per batch element, in order (an ordered callback cannot be batched, as JAX)."""
  if ordered:
    raise ValueError("Cannot `vmap` ordered IO callback.")
  size = axis_data.size
  args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
  new = _unbatched_calls(callback, size, [None if d is None else 0 for d in dims],
                         result_avals)
  outs = io_callback_p.bind(*args, callback=new, result_avals=_batched_avals(result_avals, size),
                            ordered=False, **params)
  return outs, [0] * len(outs)


io_callback_p.def_abstract_eval(lambda *avals, result_avals, **params: list(result_avals))
io_callback_p.def_impl(_io_callback_impl)
ad.primitive_jvps[io_callback_p] = _io_callback_jvp
batching.fancy_primitive_batchers[io_callback_p] = _io_callback_batch
def_reference(io_callback_p, _io_callback_impl)

# ----------------------------------------------------------------------------------------------
# FLOPS (conventions: stablejax.flops)

flops.flops_rules[pure_callback_p] = flops.free
flops.flops_rules[debug_callback_p] = flops.free
flops.flops_rules[io_callback_p] = flops.free
