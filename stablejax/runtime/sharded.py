"""`ShardedExecutable`: a program partitioned by XLA's SPMD partitioner over several devices.

The module carries its sharding annotations (Shardy's `sdy` dialect, as JAX 0.10 emits); XLA
partitions it for the devices in order, and each argument is a multi-device buffer laid out as
the program expects. The single-device `Executable` keeps the fast dispatch path; this one is
the path of multi-device programs.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from jaxlib import _jax, xla_client

from stablejax import core
from stablejax.runtime import compilation_cache, pjrt
from stablejax.runtime.array import Array, canonical_aval, from_buffer


def compile_spmd(module: Any, devices: Sequence[pjrt.Device],
                 host_callbacks: Sequence[Callable] = (),
                 compiler_options: Sequence[tuple[str, Any]] = ()) -> Any:
  """XLA's loaded executable for `module` (MLIR text; a `jaxlib.mlir.ir.Module` when it calls
  `host_callbacks`, as `pjrt.compile`) partitioned over `devices` (one replica), with XLA's
  `compiler_options` (name, value) (`jit(compiler_options=)`)."""
  options = xla_client.CompileOptions()
  if compiler_options:
    options.env_option_overrides = list(compiler_options)
  options.num_replicas, options.num_partitions = 1, len(devices)
  build = options.executable_build_options
  build.use_spmd_partitioning = True
  build.use_shardy_partitioner = True
  options.device_assignment = xla_client.DeviceAssignment.create(
      np.array([[d.id for d in devices]], np.int32))
  device_list = _jax.DeviceList(tuple(devices))
  client = devices[0].client
  try:
    if host_callbacks:  # Python functions of this process: never in the persistent cache
      return client.compile_and_load(module, device_list, options,
                                     host_callbacks=list(host_callbacks))
    return compilation_cache.get_or_compile(
        module, device_list, options, lambda: client.compile_and_load(module, device_list, options))
  except pjrt.JaxRuntimeError as e:
    raise pjrt.CompileError(f"XLA could not compile the module for {len(devices)} devices: "
                            f"{e}") from None


class ShardedExecutable:
  """A compiled multi-device program: its arguments are put in `in_shardings` (resharded if
  needed), its results come back as Arrays in `out_shardings`."""

  def __init__(self, exe: Any, in_avals: Sequence[core.ShapedArray], in_shardings: Sequence[Any],
               out_avals: Sequence[core.ShapedArray], out_shardings: Sequence[Any],
               put: Callable[[Any, Any], Array], host_callbacks: Sequence[Callable] = ()):
    self._exe = exe
    self.host_callbacks = tuple(host_callbacks)  # alive as long as the program
    self.in_avals, self.in_shardings = tuple(in_avals), tuple(in_shardings)
    self.out_avals = tuple(map(canonical_aval, out_avals))
    self.out_shardings = tuple(out_shardings)
    self._put = put
    handlers = [pjrt.result_handler(a, s).wrap(from_buffer)
                for a, s in zip(self.out_avals, out_shardings)]
    self._run = lambda bufs: exe.execute_sharded(bufs).consume_with_handlers(handlers)

  def __call__(self, *args: Any) -> list[Array]:
    if len(args) != len(self.in_avals):
      raise TypeError(f"the executable takes {len(self.in_avals)} arguments, got {len(args)}")
    return self._run([self._prepare(i, x)._buf for i, x in enumerate(args)])

  def _prepare(self, i: int, x: Any) -> Array:
    want, got = self.in_avals[i], core.get_aval(x)
    if (got.shape, got.dtype) != (want.shape, want.dtype):
      raise TypeError(f"argument {i} has type {got.str_short()} but the executable was compiled "
                      f"for {want.str_short()}")
    return self._put(x, self.in_shardings[i])

  def as_text(self) -> str:
    """XLA's optimized (partitioned) HLO."""
    return self._exe.hlo_modules()[0].to_string()

  def cost_analysis(self) -> dict:
    return dict(self._exe.cost_analysis())

  def memory_analysis(self) -> Any:
    """XLA's sizes of the program's buffers (jaxlib's `CompiledMemoryStats`, as JAX's)."""
    return self._exe.get_compiled_memory_stats()


def output_hlo_shardings(exe: Any, n: int) -> list[xla_client.HloSharding]:
  """The shardings a compiled program chose for its `n` results."""
  return _hlo_shardings(exe.get_output_shardings(), n)


def parameter_hlo_shardings(exe: Any, n: int) -> list[xla_client.HloSharding]:
  """The shardings a compiled program chose for its `n` arguments (where none was given, the
  partitioner may have propagated one to an argument)."""
  return _hlo_shardings(exe.get_parameter_shardings(), n)


def _hlo_shardings(protos: Any, n: int) -> list[xla_client.HloSharding]:
  if protos is None:  # a program on a mesh of one device is not partitioned: all replicated
    return [xla_client.HloSharding.replicate()] * n
  return [xla_client.HloSharding.from_proto(s) for s in protos]
