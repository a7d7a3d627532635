"""Running on a device: compile a jaxpr (or a single primitive) once, cache the executable,
and call it. Eager application of every built-in primitive goes through `apply_primitive`."""
from __future__ import annotations

import functools
from typing import Any

from stablejax import core, runtime
from stablejax.interpreters import ad, partial_eval as pe
from stablejax.jaxpr import ClosedJaxpr
from stablejax.lax.standard import builtin_primitives
from stablejax.runtime import Array


class JaxprExecutable:
  """A compiled jaxpr: call it on Arrays, numpy values or Python scalars."""
  __slots__ = ("executable", "device", "_run")

  def __init__(self, executable: runtime.Executable):
    self.executable = executable
    self.device = executable.device
    self._run = executable

  def __call__(self, *args: Any) -> list[Array]:
    device = self.device
    for x in args:
      if type(x) is not Array or x.device is not device:
        return self._run(*[x if type(x) is Array and x.device is device
                           else runtime.device_put(x, device) for x in args])
    return self._run(*args)


def lower(closed: ClosedJaxpr, name: str, platform: str, debug_info: bool = False):
  """The jit pipeline's lowering: jaxpr passes (dead-code elimination), then StableHLO."""
  from stablejax import lowering, passes
  return lowering.lower_jaxpr(passes.dce_closed_jaxpr(closed), name, platform, debug_info)


@functools.lru_cache(maxsize=4096)
def _compile_jaxpr(closed: ClosedJaxpr, name: str, device: runtime.Device) -> JaxprExecutable:
  module = lower(closed, name, runtime.pjrt.platform_of(device))
  return JaxprExecutable(runtime.compile_module(str(module), device, closed.out_avals))


def jaxpr_executable(closed: ClosedJaxpr, name: str, device: runtime.Device | None = None
                     ) -> JaxprExecutable:
  """The cached executable computing `closed` on `device` (default: the default device)."""
  return _compile_jaxpr(closed, name, device or runtime.default_device())


_primitive_cache: dict = {}
_PRIMITIVE_CACHE_SIZE = 4096  # bounded: eager control flow makes a new jaxpr param per call


def _primitive_jaxpr(prim: core.Primitive, avals: tuple, params: dict) -> ClosedJaxpr:
  def f(*args):
    out = prim.bind(*args, **params)
    return out if prim.multiple_results else [out]
  return pe.trace_to_closed_jaxpr(f, avals)


def apply_primitive(prim: core.Primitive, *args: Any, **params: Any) -> Any:
  """Evaluate `prim` eagerly: compiled once per (primitive, params, avals, device)."""
  avals, device, on_device = [], None, True
  for x in args:
    if type(x) is Array:
      avals.append(x.aval)
      d = x.device
      if device is None:
        device = d
      elif d is not device:
        on_device = False
    else:
      avals.append(core.get_aval(x))
      on_device = False
  if device is None:
    device = runtime.default_device()
  key = (prim, tuple(avals), tuple(params.items()) if params else (), device)
  exe = _primitive_cache.get(key)
  if exe is None:
    if len(_primitive_cache) >= _PRIMITIVE_CACHE_SIZE:
      del _primitive_cache[next(iter(_primitive_cache))]  # evict the oldest entry
    exe = _primitive_cache[key] = jaxpr_executable(
        _primitive_jaxpr(prim, key[1], params), prim.name, device)
  outs = exe._run(*args) if on_device else exe(*args)
  return outs if prim.multiple_results else outs[0]


def use_device_impl(prim: core.Primitive) -> None:
  """Make eager application of `prim` compile and run it on the device."""
  prim.def_impl(functools.partial(apply_primitive, prim))


for _prim in builtin_primitives + [ad.add_jaxvals_p]:
  use_device_impl(_prim)
