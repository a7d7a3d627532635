"""The pipeline, stage by stage: trace -> jaxpr passes -> lower -> compile -> cached executable
-> run. `jit` (stablejax/jit.py), the ahead-of-time API (stages.py), eager evaluation of every
primitive without an `impl` (the bottom trace calls `apply_primitive`) and the CLI all go through
these functions, each one call into the package of its stage."""
from __future__ import annotations

import time
import weakref
from typing import Any, Callable, Sequence, Union

from jaxlib.mlir import ir

from stablejax import (compile_log, core, debug_special, ir_dump, lowering, monitoring, runtime,
                       sharding as sharding_lib, spmd)
from stablejax.config import config
from stablejax.interpreters import partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr, Jaxpr
from stablejax.lowering import registry as lowering_registry
from stablejax.passes import registry
from stablejax.lax.state import Ref
from stablejax.passes.discharge import discharge_refs, discharge_state, has_refs
from stablejax.runtime import Array
from stablejax.runtime.arguments import Signature
from stablejax.runtime.sharded import (ShardedExecutable, compile_spmd, output_hlo_shardings,
                                       parameter_hlo_shardings)
from stablejax.util import on_clear_caches, weak_cache


def close_over_tracers(jaxpr: Jaxpr, consts: Sequence[Any]) -> tuple[ClosedJaxpr, list]:
  """`jaxpr` closed over `consts`, those of them that are tracers of an enclosing trace made
  its leading arguments instead; and those tracers."""
  is_tracer = [isinstance(c, core.Tracer) for c in consts]
  if not any(is_tracer):
    return ClosedJaxpr(jaxpr, consts), []
  traced_vars = [v for v, t in zip(jaxpr.constvars, is_tracer) if t]
  jaxpr = jaxpr.replace(constvars=[v for v, t in zip(jaxpr.constvars, is_tracer) if not t],
                        invars=traced_vars + jaxpr.invars)
  return (ClosedJaxpr(jaxpr, [c for c, t in zip(consts, is_tracer) if not t]),
          [c for c, t in zip(consts, is_tracer) if t])


def trace(fun: Callable[..., Sequence], in_avals: Sequence[core.ShapedArray]
          ) -> tuple[ClosedJaxpr, list]:
  """Stage flat-in, flat-out `fun` on arguments of types `in_avals` into a jaxpr: (the jaxpr,
  the values of enclosing traces `fun` closes over, which the jaxpr takes before its
  arguments; none outside a transformation)."""
  if not config.log_compiles:
    return close_over_tracers(*pe.trace_to_jaxpr(fun, in_avals))
  start = time.perf_counter()
  closed, closed_over = close_over_tracers(*pe.trace_to_jaxpr(fun, in_avals))
  compile_log.traced(closed, time.perf_counter() - start)
  return closed, closed_over


def jaxpr_passes(closed: ClosedJaxpr, passes: Sequence[str] | None = None,
                 observer: registry.Observer | None = None) -> ClosedJaxpr:
  """The jaxpr passes among `passes` (default: `sj.config.passes`, dead-code elimination as
  JAX does), run between tracing and lowering, after the `discharge` of any refs (which
  lowering cannot take); each run through `observer` if given (the IR dumps)."""
  if has_refs(closed):
    closed = (discharge_state(closed) if observer is None else
              observer("discharge", discharge_state, closed))
  return registry.run(closed, passes, observer)


def lower(closed: ClosedJaxpr, name: str, platform: str | Sequence[str],
          debug_info: bool = False, passes: Sequence[str] | None = None,
          donated: Sequence[bool] = (), axis_context: lowering.ShardingContext | None = None,
          lowering_rules: dict[core.Primitive, Callable] | None = None) -> ir.Module:
  """The verified StableHLO module `@jit_<name>` computing `closed` on `platform` (no device
  needed: any platform of `stablejax.platforms` can be lowered for). With a sequence of two or
  more platforms, one module for all of them whose `@main` takes the platform index first.
  The `passes` (default: `sj.config.passes`) run on the jaxpr, then on the module; the
  arguments flagged in `donated` give their buffers to results of their type. With an
  `axis_context` (the mesh, argument and result shardings: `spmd.plan`) the module is
  partitioned over the mesh's devices. `debug_info` gives each op its name stack and the
  user's frames (what XLA's metadata of the compiled ops reports); `lowering_rules`
  (primitive -> rule) replace the registry's rules for this module only. Under
  `sj.config.dump_ir_to` each stage and pass is dumped (`ir_dump`), under `log_compiles` each
  is timed (`compile_log`)."""
  passes = registry.choose(passes)
  if config.dump_ir_to is not None or config.log_compiles:
    return _lower_observed(closed, name, platform, debug_info, passes, donated, axis_context,
                           lowering_rules)
  module = lowering.lower_jaxpr(jaxpr_passes(closed, passes), name, platform, debug_info,
                                donated, axis_context, lowering_rules)
  return registry.run_mlir(module, passes)


def _lower_observed(closed: ClosedJaxpr, name: str, platform: str | Sequence[str],
                    debug_info: bool, passes: tuple[str, ...], donated: Sequence[bool],
                    axis_context: lowering.ShardingContext | None,
                    lowering_rules: dict[core.Primitive, Callable] | None) -> ir.Module:
  """`lower`, each stage and pass dumped (if dumps are on) and timed."""
  dump, record = ir_dump.start(name), compile_log.start(closed, name)
  observer = None if dump is None else dump.run_pass
  if dump is not None:
    dump.jaxpr("jaxpr", closed)
  with record.stage("jaxpr passes"):
    closed = jaxpr_passes(closed, passes, observer)
  with record.stage("lowering"):
    try:
      module = lowering.lower_jaxpr(closed, name, platform, debug_info, donated, axis_context,
                                    lowering_rules)
    except Exception as e:
      if dump is not None:
        dump.failed("lowering", e, is_module=False)
      raise
  if dump is not None:
    dump.module("stablehlo", module)
  with record.stage("MLIR passes"):
    module = registry.run_mlir(module, passes, observer)
  ir_dump.attach(module, dump)
  compile_log.attach(module, record)
  return module


Target = Union[runtime.Device, lowering.ShardingContext]


def compile(module: ir.Module, device: Target | None,  # noqa: A001  (the stage's name)
            out_avals: Sequence[core.ShapedArray], platforms: Sequence[str] | None = None,
            in_avals: Sequence[core.ShapedArray] | None = None, backend: str = "xla",
            target: str | None = None, compiler_options: Sequence[tuple[str, Any]] = ()
            ) -> Any:
  """The executable of `module`, compiled by XLA for `device` (None: the default device), or
  over the mesh of the `lowering.ShardingContext` it was lowered with (by XLA's SPMD
  partitioner; `in_avals` needed); `out_avals` give the results' weak types. A module lowered
  for several `platforms` takes the platform index first: it is fixed here to the device's
  platform, so the executable takes the arguments of the function. Another `backend`
  (`platforms.BACKENDS`) compiles it for its `target` instead (`device` unused). XLA's
  `compiler_options` are (name, value) pairs (`jit(compiler_options=)`)."""
  if backend != "xla":
    if platforms is not None and len(platforms) > 1:
      raise ValueError(f"the {backend} backend compiles a module lowered for one platform, not "
                       f"for {tuple(platforms)}")
    return runtime.get_backend(backend).compile(module, out_avals, target, in_avals)
  device = device or runtime.default_device()
  if config.dump_ir_to is not None or config.log_compiles:
    return _compile_observed(module, device, out_avals, platforms, in_avals, compiler_options)
  return _compile_xla(module, device, out_avals, platforms, in_avals, compiler_options)


def _compile_xla(module: ir.Module, device: Target, out_avals: Sequence[core.ShapedArray],
                 platforms: Sequence[str] | None, in_avals: Sequence[core.ShapedArray] | None,
                 compiler_options: Sequence[tuple[str, Any]]) -> Any:
  sharded = isinstance(device, lowering.ShardingContext)
  if platforms is not None and len(platforms) > 1:
    module = _for_platform(module, platforms, device.devices[0] if sharded else device)
  if lowering.is_polymorphic(module):  # its shapes made static for its arguments' (JAX's)
    module = lowering.refine_shapes(module)
  callbacks = lowering.host_callbacks(module)
  # with its locations, which XLA keeps as each op's metadata (op_name, source_file/line)
  text_or_module = module if callbacks else lowering.module_text(module, debug_info=True)
  start = time.perf_counter()
  if sharded:
    out = _compile_sharded(text_or_module, device, in_avals, out_avals, callbacks,
                           compiler_options)
  else:
    out = runtime.compile_module(text_or_module, device, out_avals, callbacks,
                                 compiler_options)
  monitoring.record_event_duration_secs(monitoring.BACKEND_COMPILE_EVENT,
                                        time.perf_counter() - start)
  return out


def _compile_observed(module: ir.Module, device: Target, out_avals: Sequence[core.ShapedArray],
                      platforms: Sequence[str] | None,
                      in_avals: Sequence[core.ShapedArray] | None,
                      compiler_options: Sequence[tuple[str, Any]]) -> Any:
  """`compile` with XLA's HLO dumped among the module's stages (if dumps are on) and the
  compile logged with the times of all its stages (under `log_compiles`)."""
  record = compile_log.for_compile(module)
  dump = ir_dump.for_compile(module, record.name)
  options = [*compiler_options, *(dump.xla_options() if dump is not None else ())]
  try:
    with record.stage("XLA compile"):
      out = _compile_xla(module, device, out_avals, platforms, in_avals, options)
  except Exception as e:
    if dump is not None:
      dump.failed("xla-compile", e, is_module=False)
    raise
  finally:
    if dump is not None:
      dump.collect_xla()
  if config.log_compiles:
    compile_log.log(record, device)
  return out


def _for_platform(module: ir.Module, platforms: Sequence[str], device: runtime.Device
                  ) -> ir.Module:
  """Multi-platform `module` with its platform index fixed to `device`'s platform."""
  platform = runtime.platform_of(device)
  if platform not in platforms:
    raise ValueError(f"cannot compile a module lowered for platforms {tuple(platforms)} for "
                     f"a {platform} device")
  return lowering.fix_platform_index(module, list(platforms).index(platform))


def _compile_sharded(module: Any, ctx: lowering.ShardingContext,
                     in_avals: Sequence[core.ShapedArray] | None,
                     out_avals: Sequence[core.ShapedArray], callbacks: Sequence[Callable],
                     compiler_options: Sequence[tuple[str, Any]] = ()) -> ShardedExecutable:
  """The executable of `module` partitioned over `ctx`'s mesh: its arguments and results in
  the shardings `ctx` gives, else in those the partitioner chose (NamedShardings where
  they are)."""
  if in_avals is None:
    raise TypeError("compiling a module partitioned over a mesh needs its in_avals")
  exe = compile_spmd(module, ctx.devices, callbacks, compiler_options)
  chosen = lambda given, hlo, avals: [
      s if s is not None else sharding_lib.named_or_gspmd(ctx.mesh, hs, a.ndim)
      for s, hs, a in zip(given, hlo, avals)]
  ins = chosen(ctx.in_shardings, parameter_hlo_shardings(exe, len(in_avals)), in_avals)
  outs = chosen(ctx.out_shardings, output_hlo_shardings(exe, len(out_avals)), out_avals)
  return ShardedExecutable(exe, in_avals, ins, out_avals, outs, sharding_lib.put, callbacks)


@weak_cache(maxsize=64)
def _executable(closed: ClosedJaxpr, name: str, device: Target, passes: tuple[str, ...],
                donated: tuple[bool, ...], compiler_options: tuple[tuple[str, Any], ...]) -> Any:
  sharded = isinstance(device, lowering.ShardingContext)
  platform = runtime.platform_of(device.devices[0] if sharded else device)
  module = lower(closed, name, platform, debug_info=True, passes=passes, donated=donated,
                 axis_context=device if sharded else None)
  return compile(module, device, closed.out_avals, in_avals=closed.in_avals,
                 compiler_options=compiler_options)


def executable(closed: ClosedJaxpr, name: str, device: Target | None = None,
               passes: Sequence[str] | None = None, donated: Sequence[bool] = (),
               compiler_options: dict[str, Any] | None = None) -> Any:
  """The executable computing `closed` on `device` (default: the default device), or
  partitioned over the mesh of a `lowering.ShardingContext`, after the `passes` (default:
  `sj.config.passes`), taking the buffers of the arguments flagged in `donated`, compiled with
  XLA's `compiler_options`; lowered and compiled once (`lower`, `compile`) and cached for as
  long as `closed` lives."""
  return _executable(closed, name, device or runtime.default_device(),
                     registry.choose(passes), tuple(donated),
                     tuple(sorted((compiler_options or {}).items())))


def backend_executable(closed: ClosedJaxpr, name: str, backend: str, target: str | None = None,
                       passes: Sequence[str] | None = None) -> Any:
  """The executable computing `closed` compiled by `backend` (`platforms.BACKENDS`) for `target`
  (XLA: a platform, default the default device's; IREE: a target backend, default llvm-cpu):
  the same passes and lowering, for the backend's platform; compiled once and cached."""
  if backend == "xla":
    return executable(closed, name, None if target is None else runtime.devices(target)[0],
                      passes)
  return _backend_executable(closed, name, backend, target, registry.choose(passes))


@weak_cache(maxsize=64)
def _backend_executable(closed: ClosedJaxpr, name: str, backend: str, target: str | None,
                        passes: tuple[str, ...]) -> Any:
  module = lower(closed, name, runtime.get_backend(backend).platform(target), passes=passes)
  return compile(module, None, closed.out_avals, in_avals=closed.in_avals, backend=backend,
                 target=target)


# ----------------------------------------------------------------------------------------------
# Eager evaluation: one primitive, compiled once per (primitive, avals, params, device)

_EAGER_CACHE_SIZE = 4096  # bounded: the oldest entry goes first
_eager: dict[tuple, tuple] = {}  # key -> (executable, the jaxprs of its params)
# A primitive whose params hold jaxprs (eager control flow, `vmap` of a `jit`) has its
# executables cached with the first of those jaxprs, so that they die with it.
_eager_per_jaxpr: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _eager_cache(prim: core.Primitive, avals: tuple, params: dict, device: Any
                 ) -> tuple[dict, tuple, tuple]:
  """(the cache, the key, the jaxprs in `params`) of `prim`'s eager executable. Jaxprs appear
  in the key by identity: the entry keeps them alive (all but the first, its cache's weak key,
  which the entry must not hold)."""
  jaxprs = tuple(v for value in params.values()
                 for v in (value if type(value) is tuple else (value,))
                 if isinstance(v, (Jaxpr, ClosedJaxpr)))
  if not jaxprs:
    return _eager, (prim, avals, tuple(params.items()), device,
                    config.default_matmul_precision), ()
  by_id = {id(j) for j in jaxprs}

  def key_of(v: Any) -> Any:
    return id(v) if id(v) in by_id else v
  items = tuple((k, tuple(map(key_of, value)) if type(value) is tuple else key_of(value))
                for k, value in params.items())
  cache = _eager_per_jaxpr.get(jaxprs[0])
  if cache is None:
    cache = _eager_per_jaxpr[jaxprs[0]] = {}
  return cache, (prim, avals, items, device, config.default_matmul_precision), jaxprs[1:]


def _primitive_jaxpr(prim: core.Primitive, avals: Sequence[core.ShapedArray], params: dict
                     ) -> ClosedJaxpr:
  def apply(*args):
    out = prim.bind(*args, **params)
    return out if prim.multiple_results else [out]
  return trace(apply, avals)[0]


def _check_evaluable(prim: core.Primitive, any_primitive: bool) -> None:
  """A RuntimeError under `no_execution`; a NotImplementedError for a user's primitive unless
  `any_primitive` (it needs an impl)."""
  if config.no_execution:
    raise RuntimeError(f"JAX tried to execute function {prim.name}, but the no_execution "
                       "config option is set")
  if not any_primitive and not lowering_registry.is_builtin(prim):
    raise NotImplementedError(
        f"Evaluation rule for '{prim.name}' not implemented: give the primitive an impl with "
        f"def_impl (`{prim.name}_p.def_impl(functools.partial(stablejax.dispatch."
        f"apply_primitive, {prim.name}_p))` compiles it through its lowering rule)")


def apply_primitive(prim: core.Primitive, args: Sequence[Any], params: dict,
                    any_primitive: bool = False) -> Any:
  """Evaluate `prim` on concrete values: on the device of the first Array argument (else the
  default device), through an executable cached by primitive, avals, params and device. The
  bottom trace's evaluator: a user's primitive needs an impl, as in JAX (which may be
  `dispatch.apply_primitive`, passing `any_primitive`)."""
  hit = _last_call.get(prim)
  if hit is not None and hit.epoch == config.epoch and (
      params is hit.params or params == hit.params):
    # The fast path: this primitive's last call again (argument types compared by identity:
    # Arrays share canonical avals; host values by type, dtype and shape), in the same config
    # (none is kept under no_execution, debug_nans or debug_infs: they check each call)
    outs = hit.call(args)
    if outs is not None:
      return outs if prim.multiple_results else outs[0]
  _check_evaluable(prim, any_primitive)
  avals, device, on_device, spread, refs = [], None, True, [], False
  for x in args:
    spread.append(None)
    if type(x) is Array:
      avals.append(x.aval)
      d = x.device
      if not isinstance(d, runtime.Device):  # a multi-device Array: run over its mesh
        on_device, spread[-1] = False, spmd.mesh_sharding(x.sharding)
      elif device is None:
        device = d
      elif d is not device:
        on_device = False
    else:  # (a host value goes to the device; a ref is discharged)
      avals.append(core.get_aval(x))
      refs = refs or type(x) is Ref
  device, avals, spread = device or runtime.default_device(), tuple(avals), tuple(spread)
  where = device if not any(spread) else spread
  cache, key, keep = _eager_cache(prim, avals, params, where)
  entry = cache.get(key)
  if entry is None:
    if len(cache) >= _EAGER_CACHE_SIZE:
      del cache[next(iter(cache))]  # the oldest entry
    closed = _primitive_jaxpr(prim, avals, params)
    if refs:  # (a loop or a branch writing into refs it closes over)
      closed = discharge_refs(closed)
    entry = cache[key] = (_eager_executable(closed, prim.name, device, spread), keep)
  exe = entry[0]
  if refs:
    return run_with_refs(exe, args)
  signature = Signature.of(args, exe.device) if on_device and isinstance(
      exe, runtime.Executable) else None
  last = None if signature is None else _LastCall(params, signature, exe)
  outs = None if last is None else last.call(args)
  if outs is None:
    outs = exe(*args)
  elif not debug_special.enabled():
    _last_call[prim] = last
  if debug_special.enabled():
    debug_special.check_special(prim.name, outs)
  return outs if prim.multiple_results else outs[0]


def run_with_refs(exe: Any, args: Sequence[Any]) -> list:
  """Run `exe`, compiled from a jaxpr taking refs and discharged (`discharge_refs`), on the
  refs' values, and write their final values (its trailing results) back into them."""
  outs = exe(*[x._buf if type(x) is Ref else x for x in args])
  refs = [x for x in args if type(x) is Ref]
  n = len(outs) - len(refs)
  for ref, value in zip(refs, outs[n:]):
    ref._buf = value
  return outs[:n]


def _eager_executable(closed: ClosedJaxpr, name: str, device: runtime.Device,
                      spread: tuple) -> Any:
  """The eager executable of `closed`: on `device`, or partitioned over the mesh of its
  arguments laid out on one (`spread`: each one's NamedSharding, else None), as JAX runs an
  operation on sharded arrays, or over the mesh its body names (a call of a `shard_map`, as
  `grad` of a `pmap` evaluates eagerly). Results are laid out by their types, else by the
  partitioner."""
  mesh = next((s.mesh for s in spread if s is not None), None) or spmd.constraint_mesh(closed)
  if mesh is None:
    return compile(lower(closed, name, runtime.platform_of(device)), device, closed.out_avals)
  ins = tuple(s if s is not None and s.mesh == mesh else None for s in spread)
  outs = tuple(spmd.typed_result(a, mesh) for a in closed.out_avals)
  ctx = lowering.ShardingContext(mesh, ins, outs)
  return _executable(closed, name, ctx, registry.choose(None), (), ())


class _LastCall:
  """A primitive's last eager call on Arrays and host values, and what runs it again."""
  __slots__ = ("params", "call", "epoch")

  def __init__(self, params: dict, signature: Signature, exe: runtime.Executable):
    self.params, self.call = params, signature.caller(exe.run)
    self.epoch = config.epoch  # (a config change, such as the matmul precision, voids it)


_last_call: dict[core.Primitive, _LastCall] = {}


@on_clear_caches
def _clear_eager_caches() -> None:
  _eager.clear()
  _eager_per_jaxpr.clear()
  _last_call.clear()


core.install_compiled_eval(apply_primitive)
