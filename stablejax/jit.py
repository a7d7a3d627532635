"""`sj.jit`: the user-facing wrapper that traces a function once per signature, caches the
trace and its executable (weakly in the function, as JAX does, so a fresh `jit(f)` of the same
`f` hits the cache), runs it through the pipeline, and under a transformation binds the `jit`
primitive (stablejax/lax/call.py)."""
from __future__ import annotations

import functools
import inspect
import warnings
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import (cache_misses, config, core, debug_special, leak_checks, packed_arguments,
                       pipeline, platforms, spmd)
from stablejax.config import TRACE_CONTEXT, disable_jit
from stablejax.sharding import current_mesh
from stablejax.core import eval_trace, trace_state
from stablejax.interpreters import dce
from stablejax.jaxpr import ClosedJaxpr, eval_jaxpr
from stablejax.lax.call import jit_p
from stablejax.lowering import ShardingContext
from stablejax.passes import registry as pass_registry
from stablejax.passes.discharge import discharge_refs, hoist_ref_consts
from stablejax.lax.state import AbstractRef
from stablejax.runtime.backend import get_backend
from stablejax.runtime import Array, Executable, devices as runtime_devices, pjrt
from stablejax.runtime.arguments import Signature
from stablejax.stages import Lowered, Traced, arg_names_of
from stablejax.tree_util import (LEAF, PyTreeDef, flatten_fun, tree_flatten, tree_structure,
                                 tree_unflatten)
from stablejax.util import on_clear_caches

# Argument types that are pytree leaves, for the fast path that skips flattening.
_LEAF_TYPES = frozenset({Array, np.ndarray, float, int, bool, complex, np.float32, np.float64,
                         np.int32, np.int64, np.bool_})

_TRACES_PER_FUNCTION = 1024  # each function's trace cache is bounded (the oldest is dropped)

# function -> {(static_argnums, static_argnames) -> {signature -> _Traced}}, weak in the function
_trace_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@on_clear_caches
def _clear_trace_caches() -> None:
  for per_statics in _trace_caches.values():
    for cache in per_statics.values():
      cache.clear()  # in place: the jitted functions hold these dicts
  config.epoch += 1  # and their dispatch fast paths' last calls are stale


def _shared_cache(fun: Callable, statics: tuple) -> dict:
  """The trace cache every `jit` of `fun` with these static arguments shares (a private one
  when `fun` cannot be weakly referenced)."""
  try:
    return _trace_caches.setdefault(fun, {}).setdefault(statics, {})
  except TypeError:
    return {}


def _fun_name(fun: Callable) -> str:
  return getattr(fun, "__name__", None) or type(fun).__name__


class _Traced:
  """What tracing `fun` once for a signature gives: the jaxpr to bind, the tracers it closed
  over (passed as leading arguments), and the output tree."""
  __slots__ = ("jaxpr", "closed_over", "in_tree", "out_tree", "donated", "executables",
               "kept", "compiled_jaxpr", "refs", "takes_refs", "ref_jaxpr", "traced_jaxpr",
               "packed")

  def __init__(self, jaxpr: ClosedJaxpr, closed_over: list, in_tree, out_tree,
               donated: tuple[bool, ...], keep_unused: bool = True):
    # the refs `fun` closes over are passed as leading arguments (after `closed_over`); with
    # those it takes, they make the call write back into refs (`ref_jaxpr`: discharged when
    # first called)
    self.traced_jaxpr = jaxpr  # (as traced: what make_jaxpr shows, the refs closed over)
    jaxpr, self.refs = hoist_ref_consts(jaxpr)
    self.takes_refs = any(isinstance(a, AbstractRef) for a in jaxpr.in_avals)
    self.ref_jaxpr = None
    self.jaxpr = jaxpr
    # per flat argument: whether the compiled module takes it (None: all of them), and the
    # jaxpr it computes (unused arguments pruned unless `keep_unused`, as JAX's)
    self.kept, self.compiled_jaxpr = None, jaxpr
    if not keep_unused and not closed_over:
      used = dce.prune_jaxpr(jaxpr, [True] * len(jaxpr.out_avals), False)[1]
      if not all(used):
        self.kept = tuple(used)
        self.compiled_jaxpr = ClosedJaxpr(jaxpr.jaxpr.replace(
            invars=dce.keep(jaxpr.jaxpr.invars, used)), jaxpr.consts)
        donated = tuple(dce.keep(donated, used)) if donated else donated
    self.closed_over = closed_over
    self.in_tree = in_tree
    self.out_tree = out_tree
    self.donated = donated  # per flat argument: whether its buffer is donated (() for none)
    self.executables: dict = {}  # (passes, device) -> the executable compiled with them
    self.packed: dict = {}  # (packed positions, passes) -> its executable (packed_arguments)


class _Hit:
  """The signature of a jitted function's last call and what runs it again (the dispatch fast
  path), valid while `sj.config` is unchanged (its `epoch`)."""
  __slots__ = ("in_tree", "signature", "call", "finish", "epoch")

  @classmethod
  def of(cls, flat: Sequence, in_tree: PyTreeDef | None, exe: Executable, out_tree: PyTreeDef,
         kept: Sequence[bool] | None = None, donates: bool = False) -> _Hit | None:
    """The hit for the flat arguments `flat` of the tree `in_tree` of (args, kwargs) (None:
    `flat` are the positional arguments), or None unless each is an Array on the executable's
    device or a host value (`Signature`). `kept` flags the arguments the executable takes
    (None: all; unused ones pruned, and never transferred). A call that `donates` arguments
    has no staged ones (`Signature`)."""
    take = None if kept is None else [i for i, k in enumerate(kept) if k]
    signature = Signature.of(flat, exe.device, take, stage=not donates)
    if signature is None:
      return None
    hit = cls()
    hit.in_tree, hit.signature, hit.call = in_tree, signature, signature.caller(exe.run)
    hit.finish, hit.epoch = out_tree.unflattener(), config.epoch
    return hit


class Jitted:
  """A jitted function: call it, or `.lower(*args)` it for the ahead-of-time API. `passes`
  (names in `stablejax.passes`; None: `sj.config.passes`) choose the passes it is compiled
  with; under a transformation or an enclosing `jit`, the outermost computation's apply."""

  def __init__(self, fun: Callable, static_argnums: Sequence[int], static_argnames: Sequence[str],
               shared_cache: bool = True, passes: Sequence[str] | None = None,
               backend: str | None = None, in_shardings: Any = None, out_shardings: Any = None,
               donate_argnums: Sequence[int] = (), donate_argnames: Sequence[str] = (),
               device: Any = None, inline: bool = False,
               compiler_options: dict[str, Any] | None = None, keep_unused: bool = True,
               traced_through: bool = False):
    self.fun = fun
    self.keep_unused = keep_unused  # else the compiled module takes only the arguments used
    self.device = device  # run on this device (None: the default device)
    self.inline = inline  # under a trace: its equations inlined, not one `jit` equation
    self.traced_through = traced_through  # under a trace: `fun` called as it is (`eager_jit`)
    self.compiler_options = dict(compiler_options or {})  # XLA's, per option name
    # the backend compiling it ("xla", "iree"; None: `sj.config.default_backend`)
    self.backend = None if backend is None else platforms.backend(backend)
    self.passes = None if passes is None else pass_registry.choose(passes)
    self.name = _fun_name(fun)
    self.static_argnums = tuple(static_argnums)
    self.static_argnames = tuple(static_argnames)
    # (read for static and donated arguments only: inspecting a signature was 8 us of a fresh
    # jit's 35 us first call)
    self._signature = _signature_or_none(fun) if (
        static_argnums or static_argnames or donate_argnums or donate_argnames) else None
    _check_static_argnames(self._signature, self.static_argnames, self.name)
    self._has_static = bool(self.static_argnums or self.static_argnames)
    # the positions and names of the donated arguments, each completed from the other through
    # the signature (as JAX does), so that either way of passing an argument donates it
    self.donate_argnums, self.donate_argnames = _donated_args(
        self._signature, tuple(donate_argnums), tuple(donate_argnames), self.static_argnums,
        self.static_argnames, self.name)
    statics = (self.static_argnums, self.static_argnames, self.donate_argnums,
               self.donate_argnames, device, tuple(sorted(self.compiler_options.items())),
               keep_unused)
    self._cache: dict = _shared_cache(fun, statics) if shared_cache else {}
    self._hit: _Hit | None = None
    # in_shardings/out_shardings (pytree prefixes; None: not given; stablejax/spmd.py)
    self.in_shardings, self.out_shardings = in_shardings, out_shardings
    self._sharded = spmd.names_a_sharding((in_shardings, out_shardings))
    functools.update_wrapper(self, fun, updated=())  # never copy a wrapped Jitted's state

  def __repr__(self) -> str:
    return f"<jitted function {self.name}>"

  def __get__(self, obj, objtype=None):
    return self if obj is None else functools.partial(self, obj)

  def _split_args(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, tuple]:
    """(dynamic args, dynamic kwargs, hashable static key)."""
    if not self._has_static:
      return args, kwargs, ((), ())
    static_nums = _normalize_argnums(self.static_argnums, len(args), self.name)
    static_names = set(self.static_argnames)
    if self._signature is not None and (static_nums or static_names):
      names = list(self._signature.parameters)
      static_names |= {names[i] for i in static_nums if i < len(names)}
      static_nums |= {i for i, n in enumerate(names[:len(args)]) if n in static_names}
    dyn_args = tuple(a for i, a in enumerate(args) if i not in static_nums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
    static = (tuple((i, args[i]) for i in sorted(static_nums)),
              tuple(sorted((k, v) for k, v in kwargs.items() if k in static_names)))
    try:
      hash(static)
    except TypeError as e:
      raise TypeError(f"jit of {self.name}: static arguments must be hashable: {e}") from None
    return dyn_args, dyn_kwargs, static

  def _trace(self, args: tuple, kwargs: dict) -> tuple[_Traced, Sequence]:
    """The cached trace for these arguments' signature, and the flat dynamic arguments."""
    if not kwargs and not self._has_static and _all_leaves(args):
      # the common case: positional array arguments, no pytree to flatten
      avals = tuple(map(core.get_aval, args))
      # the config options a trace depends on, and the context mesh (which names the axes of
      # PartitionSpecs in the function): a trace per context
      key = (len(args), avals, (config.trace_context(), current_mesh()))
      traced = self._cache.get(key)
      if traced is None:
        traced = self._insert(key, self._trace_new(tree_structure((args, {})), avals, ((), ())))
      return traced, args
    dyn_args, dyn_kwargs, static = self._split_args(args, kwargs)
    flat, in_tree = tree_flatten((dyn_args, dyn_kwargs))
    avals = tuple(core.get_aval(x) for x in flat)
    key = (in_tree, avals, static, (config.trace_context(), current_mesh()))
    traced = self._cache.get(key)
    if traced is None:
      traced = self._insert(key, self._trace_new(in_tree, avals, static))
    return traced, flat

  def _insert(self, key: tuple, traced: _Traced) -> _Traced:
    if config.explain_cache_misses:
      cache_misses.explain(self.fun, self.name, key, self._cache)
    if len(self._cache) >= _TRACES_PER_FUNCTION:
      self._cache.pop(next(iter(self._cache)), None)
    self._cache[key] = traced
    return traced

  def _trace_new(self, in_tree, avals, static) -> _Traced:
    if config.no_tracing:
      raise RuntimeError(f"re-tracing function {self.name} for `jit`, but 'no_tracing' is set")
    static_pos, static_kw = static

    def fun(*dyn, **dyn_kw):
      full, it = [], iter(dyn)
      pos = dict(static_pos)
      for i in range(len(dyn) + len(pos)):
        full.append(pos[i] if i in pos else next(it))
      return self.fun(*full, **dyn_kw, **dict(static_kw))

    flat_fun, out_tree = flatten_fun(fun, in_tree)
    closed, closed_over = pipeline.trace(flat_fun, avals)
    if config.check_tracer_leaks and trace_state.trace is eval_trace:
      leak_checks.check_leaks()  # (at the top level: no transformation's frames are alive)
    return _Traced(closed, closed_over, in_tree, out_tree(), self._donated_leaves(in_tree, static),
                   self.keep_unused)

  def _donated_leaves(self, in_tree: PyTreeDef, static: tuple) -> tuple[bool, ...]:
    """Per flat argument of (dynamic args, kwargs) of structure `in_tree`: whether donated."""
    if not (self.donate_argnums or self.donate_argnames):
      return ()
    args_tree, kwargs_tree = in_tree.children
    static_nums = {i for i, _ in static[0]}
    positions = [i for i in range(len(args_tree.children) + len(static_nums))
                 if i not in static_nums]
    mask = []
    for i, child in zip(positions, args_tree.children):
      mask += [i in self.donate_argnums] * child.num_leaves
    for name, child in zip(kwargs_tree.aux, kwargs_tree.children):
      mask += [name in self.donate_argnames] * child.num_leaves
    return tuple(mask)

  def __call__(self, *args, **kwargs):
    hit = self._hit
    if hit is not None and trace_state.trace is eval_trace and hit.epoch == config.epoch:
      # The dispatch fast path: the last call's signature again (argument structure, and types
      # compared by identity: Arrays share canonical avals; host values by type, dtype, shape)
      if hit.in_tree is None:
        flat = None if kwargs else args
      else:
        flat = hit.in_tree.leaves_if_match((args, kwargs))
      outs = None if flat is None else hit.call(flat)
      if outs is not None:
        return hit.finish(outs)
    if config.disable_jit or (self.traced_through and trace_state.trace is not eval_trace):
      return self.fun(*args, **kwargs)
    traced, flat = self._trace(args, kwargs)
    if config.no_execution and trace_state.trace is eval_trace:
      raise RuntimeError(f"JAX tried to execute function jit({self.name}), but the "
                         "no_execution config option is set")
    if trace_state.trace is eval_trace and traced.takes_refs:
      outs = self._call_with_refs(traced, (*traced.refs, *flat))
    elif trace_state.trace is eval_trace and not traced.closed_over and (
        self._sharded or spmd.is_multi_device(traced.jaxpr, flat)):
      _warn_not_donated(traced.donated, "over several devices")
      outs = pipeline.executable(traced.jaxpr, self.name, self._sharding(traced, flat),
                                 self._passes(), compiler_options=self.compiler_options)(*flat)
    elif trace_state.trace is eval_trace and not traced.closed_over:
      for x in flat:  # (a tracer here escaped the transformation that made it)
        if isinstance(x, core.Tracer):
          raise core.leak_error(x)
      exe = self._executable(traced, self.device or _argument_device(flat))
      # the next call of this signature takes the fast path; this one its transfers
      self._hit = hit = None if self._has_static or debug_special.enabled() else _Hit.of(
          flat, None if flat is args else traced.in_tree, exe, traced.out_tree, traced.kept,
          any(traced.donated))
      outs = None if hit is None else hit.call(flat)
      if outs is not None:
        self._pack_from_next_call(traced, hit, exe)
      else:
        outs = exe(*(flat if traced.kept is None else dce.keep(flat, traced.kept)))
      if debug_special.enabled():
        self._check_special(outs, args, kwargs)
    elif self.inline:
      outs = eval_jaxpr(traced.jaxpr.jaxpr, traced.jaxpr.consts, *traced.refs,
                        *traced.closed_over, *flat)
    else:
      outs = jit_p.bind(*traced.refs, *traced.closed_over, *flat, jaxpr=traced.jaxpr,
                        name=self.name)
    return outs[0] if traced.out_tree is LEAF else tree_unflatten(traced.out_tree, outs)

  def _pack_from_next_call(self, traced: _Traced, hit: _Hit, exe: Any) -> None:
    """If `hit`'s signature has several numpy arguments to pack into one transfer (and does not
    stage them), pack them once it is called again."""
    if any(traced.donated) or hit.signature.staged or not isinstance(exe, Executable):
      return
    avals = traced.compiled_jaxpr.in_avals
    positions = tuple(i for i in hit.signature.packable() if packed_arguments.packable(avals[i]))
    if len(positions) < 2:
      return
    unpacked = hit.call

    def call_then_pack(flat: Sequence) -> list | None:
      outs = unpacked(flat)
      if outs is not None:
        self._pack(traced, hit, positions)
      return outs
    hit.call = call_then_pack

  def _pack(self, traced: _Traced, hit: _Hit, positions: tuple[int, ...]) -> None:
    """Run `hit`'s signature with its numpy arguments in one transfer (`packed_arguments`)."""
    key = (positions, self._passes())
    exe = traced.packed.get(key)
    if exe is None:
      closed = packed_arguments.unpacking(traced.compiled_jaxpr, positions)
      exe = traced.packed[key] = pipeline.executable(
          closed, self.name, hit.signature.device, key[1], (), self.compiler_options)
    hit.signature = hit.signature.packing(positions)
    hit.call = hit.signature.caller(exe.run)

  def _call_with_refs(self, traced: _Traced, args: Sequence) -> list:
    """Call a function taking refs: with their values, writing their final values back."""
    if traced.ref_jaxpr is None:
      traced.ref_jaxpr = discharge_refs(traced.jaxpr)
    exe = pipeline.executable(traced.ref_jaxpr, self.name, self.device, self._passes(), (),
                              self.compiler_options)
    return pipeline.run_with_refs(exe, args)

  def _check_special(self, outs: Sequence, args: tuple, kwargs: dict) -> None:
    """`config.debug_nans`/`debug_infs`: on a NaN (an infinity) among the results, call the
    function again op by op, where the primitive making it raises, as JAX does."""
    kind = debug_special.special_kind(outs)
    if kind is None:
      return
    print("Invalid nan value encountered in the output of a jax.jit function. Calling the "
          "de-optimized version.")
    with disable_jit():
      self.fun(*args, **kwargs)
    raise FloatingPointError(
        f"invalid value ({kind}) encountered in jit({self.name}). Because jax_debug_nans "
        "and/or jax_debug_infs is set, the de-optimized function (the function as if the "
        "`jit` decorator were removed) was called in an attempt to get a more precise error "
        "message. However, the de-optimized function did not produce invalid values during "
        "its execution: `jit` optimizations, or nan/inf literals as inputs or outputs, can "
        "cause this.")

  def _executable(self, traced: _Traced, device: Any) -> Executable:
    """The executable of `traced` for `device` (None: the default one), compiled with this
    jit's passes (again if they changed)."""
    passes = self._passes()
    backend = self.backend or config.default_backend
    if backend != "xla":  # (cached by the pipeline, per backend)
      _warn_not_donated(traced.donated, f"by the {backend} backend")
      return pipeline.backend_executable(traced.jaxpr, self.name, backend, passes=passes)
    exe = traced.executables.get((passes, device))
    if exe is None:
      exe = traced.executables[passes, device] = pipeline.executable(
          traced.compiled_jaxpr, self.name, device, passes, traced.donated,
          self.compiler_options)
    return exe

  def _sharding(self, traced: _Traced, flat: Sequence) -> ShardingContext:
    """The mesh and the shardings of a call over several devices."""
    return spmd.plan(self.in_shardings, self.out_shardings, traced.in_tree, traced.out_tree,
                     flat, traced.jaxpr, self.name)

  def _passes(self) -> tuple[str, ...]:
    """The passes to compile with (the same object while the choice is unchanged)."""
    return config.passes if self.passes is None else self.passes

  def trace(self, *args, **kwargs) -> Traced:
    """The function traced for these arguments (arrays or ShapeDtypeStructs): its jaxpr, its
    output types, and `.lower()`."""
    traced, _ = self._trace(args, kwargs)
    jaxpr = _closed_over_as_consts(traced.traced_jaxpr, traced.closed_over)
    return Traced(jaxpr, self.name, traced.in_tree, traced.out_tree,
                  lambda platform=None, platforms=None, passes=None, lowering_rules=None:
                  self.lower(*args, platform=platform, platforms=platforms, passes=passes,
                             lowering_rules=lowering_rules, **kwargs))

  def lower(self, *args, platform: str | None = None, platforms: Sequence[str] | None = None,
            passes: Sequence[str] | None = None,
            lowering_rules: dict[core.Primitive, Callable] | None = None, **kwargs):
    """Lower for these arguments to a StableHLO module (the ahead-of-time API), for one
    `platform` or several `platforms` (see `stages.Lowered`), with `passes` (default: this
    jit's) and `lowering_rules` (primitive -> rule) in place of the registry's for this
    lowering only."""
    traced, flat = self._trace(args, kwargs)
    if traced.closed_over:
      raise TypeError(f"jit of {self.name}: cannot lower a function that closes over traced "
                      "values; pass them as arguments")
    passes = self._passes() if passes is None else pass_registry.choose(passes)
    backend = self.backend or config.default_backend
    if platform is None and platforms is None and backend != "xla":
      platform = get_backend(backend).platform()  # the module the backend compiles
    static = _normalize_argnums(self.static_argnums, len(args), self.name)
    sharded = self._sharded or spmd.is_multi_device(traced.jaxpr, flat)
    if sharded:
      _warn_not_donated(traced.donated, "over several devices")
    names = arg_names_of(self.fun, traced.in_tree, static)
    if sharded:
      return Lowered(traced.jaxpr, self.name, traced.out_tree, traced.in_tree, platform,
                     platforms, arg_names=names, passes=passes,
                     axis_context=self._sharding(traced, flat), lowering_rules=lowering_rules)
    kept = traced.kept
    return Lowered(traced.compiled_jaxpr, self.name, traced.out_tree, traced.in_tree, platform,
                   platforms, arg_names=names if kept is None else dce.keep(names, kept),
                   passes=passes, donated=traced.donated, kept=kept,
                   lowering_rules=lowering_rules)


def _closed_over_as_consts(closed: ClosedJaxpr, tracers: Sequence) -> ClosedJaxpr:
  """`closed` with the traced values it closes over (its leading inputs) as its constants, as
  JAX's `make_jaxpr` shows them under an outer transformation."""
  if not tracers:
    return closed
  jaxpr, n = closed.jaxpr, len(tracers)
  return ClosedJaxpr(jaxpr.replace(constvars=[*jaxpr.constvars, *jaxpr.invars[:n]],
                                   invars=jaxpr.invars[n:]), [*closed.consts, *tracers])


def _all_leaves(args: tuple) -> bool:
  for a in args:
    if type(a) not in _LEAF_TYPES:
      return False
  return True


def _check_static_argnames(signature, names: Sequence[str], fun_name: str) -> None:
  """static_argnames must name parameters (unless the function takes **kwargs), as in JAX."""
  if signature is None or any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
    return
  unknown = set(names) - set(signature.parameters)
  if unknown:
    raise ValueError(f"jit of {fun_name}: static_argnames {sorted(unknown)} are not parameters "
                     f"of the function (it takes {list(signature.parameters)})")


def _donated_args(signature, nums: tuple[int, ...], names: tuple[str, ...],
                  static_nums: tuple[int, ...], static_names: tuple[str, ...], fun_name: str
                  ) -> tuple[tuple[int, ...], tuple[str, ...]]:
  """(donate_argnums, donate_argnames), each completed from the other through `signature`;
  a ValueError if a donated argument is also static."""
  if not nums and not names:
    return (), ()
  if any(not isinstance(i, int) or i < 0 for i in nums):
    raise ValueError(f"jit of {fun_name}: donate_argnums must be non-negative integers, got "
                     f"{nums}")
  params = [] if signature is None else [
      p.name for p in signature.parameters.values()
      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
  takes_varargs = signature is None or any(
      p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
  if not takes_varargs and any(i >= len(params) for i in nums):
    raise ValueError(f"jit of {fun_name}: donate_argnums {nums} refers to an argument beyond "
                     f"the {len(params)} positional parameters of the function")
  nums = set(nums) | {params.index(n) for n in names if n in params}
  names = set(names) | {params[i] for i in nums if i < len(params)}
  both = (nums & set(static_nums)) or (names & set(static_names))
  if both:
    raise ValueError(f"jit of {fun_name}: static and donated arguments cannot intersect; "
                     f"{sorted(both)} are both")
  return tuple(sorted(nums)), tuple(sorted(names))


def _warn_not_donated(donated: tuple[bool, ...], where: str) -> None:
  if any(donated):
    warnings.warn(f"donate_argnums/donate_argnames are not supported for programs run {where} "
                  "yet: the arguments are not donated", stacklevel=3)


def _signature_or_none(fun: Callable):
  try:
    return inspect.signature(fun)
  except (TypeError, ValueError):
    return None


def _normalize_argnums(argnums: tuple[int, ...], nargs: int, name: str) -> set[int]:
  out = set()
  for i in argnums:
    j = i + nargs if i < 0 else i
    if not 0 <= j < nargs:
      raise ValueError(f"jit of {name}: static_argnums {argnums} refers to argument {i}, but "
                       f"only {nargs} positional arguments were given")
    out.add(j)
  return out


def _argument_device(flat: Sequence) -> Any:
  """The device of the first Array argument that lives on one device, where a call without a
  `device` runs, as JAX runs a computation where its (committed) arguments are; None: the
  default device."""
  for x in flat:
    if type(x) is Array and pjrt.is_single_device(x._buf):
      return x.device
  return None


def eager_jit(fun: Callable) -> Jitted:
  """`fun` jitted where it runs on concrete values (one compiled program per signature, called
  through the cached dispatch), and called as it is under a trace: its equations inline, as
  JAX's `jit(inline=True)` gives them, without tracing `fun` apart first. For the library's
  own small functions (jax.numpy's elementwise ones), as JAX jits them."""
  return Jitted(fun, (), (), backend="xla", traced_through=True)  # (eager ops stay on XLA)


def traced_form(fun: Callable) -> Callable:
  """What `fun` runs on traced values: an `eager_jit`'s own function (which it calls as it is
  under a trace), else `fun`. For the operators of tracers, which skip the jit's checks."""
  return fun.fun if type(fun) is Jitted and fun.traced_through else fun


def jit(fun: Callable | None = None, *, in_shardings: Any = None, out_shardings: Any = None,
        static_argnums: int | Sequence[int] | None = (),
        static_argnames: str | Sequence[str] | None = (),
        donate_argnums: int | Sequence[int] | None = (),
        donate_argnames: str | Sequence[str] | None = (), keep_unused: bool = False,
        device: Any = None, backend: str | None = None, inline: bool = False,
        compiler_options: dict[str, Any] | None = None, passes: Sequence[str] | None = None
        ) -> Jitted | Callable[[Callable], Jitted]:
  """Stage `fun` out as one compiled program, traced once per argument signature; `passes`
  (names registered in `stablejax.passes`, default `sj.config.passes`) rewrite it between
  tracing and compiling. `in_shardings`/`out_shardings` (a sharding, None, or a pytree prefix
  of the arguments/results) make it one program partitioned over a mesh (stablejax/spmd.py).
  The arguments in `donate_argnums`/`donate_argnames` give their buffers to results of the
  same type (XLA writes the result in place); a donated Array is deleted by the call.
  `backend` is a compiler (`platforms.BACKENDS`) or, as JAX's (deprecated), a platform whose
  first device runs it, as `device` does; `inline`: called under a trace, its equations are
  inlined into the caller's jaxpr; `compiler_options`: XLA's options, by name. Unless
  `keep_unused`, the compiled module takes only the arguments the function uses (the call
  still takes them all), as JAX's."""
  options = dict(in_shardings=in_shardings, out_shardings=out_shardings,
                 static_argnums=_as_tuple(static_argnums),
                 static_argnames=_as_tuple(static_argnames),
                 donate_argnums=_as_tuple(donate_argnums),
                 donate_argnames=_as_tuple(donate_argnames), keep_unused=keep_unused,
                 device=device, backend=backend, inline=inline,
                 compiler_options=compiler_options, passes=passes)
  if fun is None:
    return lambda f: jit(f, **options)
  if not callable(fun):
    raise TypeError(f"jit expects a callable, got {fun!r}")
  options["device"], options["backend"] = _device_and_backend(device, backend, in_shardings,
                                                              out_shardings)
  return Jitted(fun, options.pop("static_argnums"), options.pop("static_argnames"), **options)


def _device_and_backend(device: Any, backend: str | None, in_shardings: Any,
                        out_shardings: Any) -> tuple[Any, str | None]:
  """(device, compiler backend) of `jit(device=, backend=)`: JAX's platform `backend` means its
  first device; either one warns as JAX's (deprecated) and excludes shardings."""
  if backend is None or backend in platforms.BACKENDS:
    if device is None:
      return None, backend
  elif backend.lower() not in platforms.PLATFORMS + ("gpu",):
    raise ValueError(f"unknown backend {backend!r}; known backends: "
                     f"{', '.join(platforms.BACKENDS)}, or a platform: "
                     f"{', '.join(platforms.PLATFORMS)} (JAX's deprecated backend=)")
  warnings.warn("backend and device argument on jit is deprecated. You can use "
                "`jax.device_put(..., jax.local_devices(backend=\"cpu\")[0])` on the inputs to "
                "the jitted function to get the same behavior.", DeprecationWarning, stacklevel=3)
  if device is not None and backend is not None:
    raise ValueError(f"can't specify both a device and a backend for jit, got device={device} "
                     f"and backend={backend!r}")
  for name, given in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
    if given is not None:
      raise ValueError(f"If backend or device is specified on jit, then {name} should not be "
                       "specified.")
  return (device if device is not None else runtime_devices(backend)[0]), None


def _as_tuple(x: Any) -> tuple:
  """An int or a str as a one-element tuple, a sequence as a tuple, None as ()."""
  if x is None:
    return ()
  return (x,) if isinstance(x, (int, str)) else tuple(x)
