"""The one module that touches jaxlib's PJRT internals: clients, buffers, compilation, execution.

Supported: jaxlib 0.10.2 to 0.12.x (0.11 and later need Python 3.12); the CPU, and CUDA through
`jax-cuda13-plugin` (or 12), alongside jax in the same process.
Clients exist for cpu and cuda; the other platforms of `stablejax.platforms` can be lowered for.
API differences are detected by feature where jaxlib allows it. Nothing here imports `jax`.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib
import importlib.util
import os
import pathlib
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import dtypes, platforms
from stablejax.config import config
from stablejax.runtime import compilation_cache, distributed_state, transfer_guard

from jaxlib import _jax, xla_client

SUPPORTED_JAXLIB = ">=0.10.2,<0.13"

Device = _jax.Device
Buffer = _jax.ArrayImpl
JaxRuntimeError = _jax.JaxRuntimeError
_TracebackScope = getattr(_jax, "TracebackScope", contextlib.nullcontext)


class CompileError(RuntimeError):
  """XLA rejected a module."""


# ----------------------------------------------------------------------------------------------
# Shardings: jaxlib wants a SingleDeviceSharding that answers these callbacks.

_REPLICATED = xla_client.HloSharding.replicate()


class SingleDeviceSharding(_jax.SingleDeviceSharding):
  """The sharding of an array that lives whole on one device (`sj.sharding.SingleDeviceSharding`).
  jaxlib reads `memory_kind` and the HLO sharding on every transfer: an attribute and a shared
  object, not a property and a new one each time."""
  memory_kind: str | None = None  # (shadows the property jax, once imported, gives jaxlib's class)

  def __init__(self, device: Device, *, memory_kind: str | None = None):
    super().__init__(device, memory_kind=memory_kind)
    self.memory_kind = self._memory_kind

  def _to_xla_hlo_sharding(self, ndim: int) -> xla_client.HloSharding:
    return _REPLICATED

  @property
  def _device_assignment(self) -> tuple:
    return (self._device,)

  is_fully_addressable = True
  is_fully_replicated = True

  def shard_shape(self, shape: tuple) -> tuple:
    return shape

  device_set = property(lambda self: {self._device})
  addressable_devices = device_set
  num_devices = 1
  has_addressable_devices = True

  def with_memory_kind(self, kind: str) -> SingleDeviceSharding:
    return SingleDeviceSharding(self._device, memory_kind=kind)

  def devices_indices_map(self, shape: tuple) -> dict:
    return {self._device: (slice(None),) * len(shape)}

  addressable_devices_indices_map = devices_indices_map

  def _shard_layout(self, shape: tuple) -> list[tuple[Device, tuple, int]]:
    """(device, index, replica id) of the one shard."""
    return [(self._device, (slice(None),) * len(shape), 0)]

  def is_equivalent_to(self, other: Any, ndim: int) -> bool:
    return (tuple(other._device_assignment) == (self._device,) and
            other._to_xla_hlo_sharding(ndim).is_replicated())

  def __eq__(self, other: Any) -> bool:
    return (isinstance(other, SingleDeviceSharding) and self._device == other._device and
            self._memory_kind == other._memory_kind)

  def __hash__(self) -> int:
    return hash((self._device, self._memory_kind))


_shardings: dict[Device, SingleDeviceSharding] = {}


def sharding(device: Device) -> SingleDeviceSharding:
  """The (cached) single-device sharding of `device`."""
  s = _shardings.get(device)
  if s is None:
    s = _shardings[device] = SingleDeviceSharding(device)
  return s


# ----------------------------------------------------------------------------------------------
# Clients

_clients: dict[str, Any] = {}
_client_errors: dict[str, str] = {}


def _make_cpu_client() -> Any:
  n = config.num_cpu_devices
  config.freeze("num_cpu_devices", "the CPU client already exists (set it before the first "
                "use of a CPU device, or set STABLEJAX_NUM_CPU_DEVICES)")
  return xla_client.make_cpu_client(num_devices=n,
                                    **distributed_state.cpu_client_kwargs())


def _cuda_plugin_library() -> str:
  """The CUDA PJRT plugin library of jax-cuda13-plugin (or 12), found without importing jax."""
  spec = importlib.util.find_spec("jax_plugins")
  roots = list(spec.submodule_search_locations) if spec else []
  for root in roots:
    for sub in ("xla_cuda13", "xla_cuda12", "cuda"):
      path = pathlib.Path(root, sub, "xla_cuda_plugin.so")
      if path.exists():
        return str(path)
  raise RuntimeError("no CUDA PJRT plugin found (install jax-cuda13-plugin; looked for jax_plugins/"
                     f"xla_cuda13/xla_cuda_plugin.so under {roots or 'no jax_plugins'})")


def _preload_nvidia_libraries() -> None:
  """Load the CUDA libraries pip installs under `nvidia/`, so the plugin finds these copies."""
  spec = importlib.util.find_spec("nvidia")
  for root in (spec.submodule_search_locations if spec else ()):
    for lib in sorted(pathlib.Path(root).glob("*/lib/lib*.so*")):
      try:
        ctypes.cdll.LoadLibrary(str(lib))
      except OSError:
        pass  # best effort: the plugin's own search path may still find it


def _register_cuda_custom_calls(c_api: Any) -> None:
  """Let `register_custom_call_target(..., platform="CUDA")` reach the plugin (as jax does)."""
  for pkg in ("jax_cuda13_plugin", "jax_cuda12_plugin"):
    try:
      ext = importlib.import_module(f"{pkg}.cuda_plugin_extension")
    except ImportError:
      continue
    xla_client.register_custom_call_handler(
        "CUDA", functools.partial(ext.register_custom_call_target, c_api))
    _register_gpu_kernels()
    return


# jaxlib's modules of GPU kernels (cuSOLVER, cuBLAS, ...: the targets linear algebra lowers to on
# cuda); importing one loads the plugin's kernel library, so only once a CUDA client is made.
_GPU_KERNEL_MODULES = ("jaxlib.gpu_solver", "jaxlib.gpu_linalg")


def _register_gpu_kernels() -> None:
  """Register the GPU kernels jaxlib ships (as jax does when it imports its linalg)."""
  for module_name in _GPU_KERNEL_MODULES:
    module = importlib.import_module(module_name)
    for platform, targets in module.registrations().items():
      for name, capsule, api_version in targets:
        xla_client.register_custom_call_target(name, capsule, platform, api_version=api_version)


# jax registers the CUDA plugin as "cuda" when it first makes its backends, and falls back to the
# CPU if that name is taken. So stablejax registers the same library (dlopen'ed once) under its
# own name, or reuses jax's registration when jax came first: both can run side by side.
_CUDA_PLUGIN = "stablejax_cuda"


def _make_cuda_client() -> Any:
  name = "cuda" if xla_client.pjrt_plugin_loaded("cuda") else _CUDA_PLUGIN
  if not xla_client.pjrt_plugin_loaded(name):
    _preload_nvidia_libraries()
    c_api = xla_client.load_pjrt_plugin_dynamically(name, _cuda_plugin_library())
    _register_cuda_custom_calls(c_api)
  if not xla_client.pjrt_plugin_initialized(name):
    xla_client.initialize_pjrt_plugin(name)
  options = dict(xla_client.generate_pjrt_gpu_plugin_options())
  # Don't grab 75% of GPU memory up front (a jax client in the same process would then fail).
  options.setdefault("preallocate", os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "") in
                     ("1", "true", "True"))
  return xla_client.make_c_api_client(name, options)


# The platforms whose PJRT client stablejax can create (the others can be lowered for only).
_factories: dict[str, Callable[[], Any]] = {"cpu": _make_cpu_client, "cuda": _make_cuda_client}


def client(platform: str) -> Any:
  """The PJRT client of `platform`, created once; a clear error if it is not available here."""
  name = platforms.canonical(platform)
  c = _clients.get(name)
  if c is not None:
    return c
  if name not in _factories:
    _client_errors.setdefault(name, "stablejax has no PJRT client for it")
  if name not in _client_errors:
    try:
      _clients[name] = c = _factories[name]()
      return c
    except Exception as e:  # noqa: BLE001 -- any failure means "platform not available"
      _client_errors[name] = f"{type(e).__name__}: {e}"
  raise RuntimeError(f"platform {name!r} is not available here ({_client_errors[name]}); "
                     f"available platforms: {available_platforms()}")


def available_platforms() -> list[str]:
  """The platforms whose client can be created here (tries each once)."""
  out = []
  for name in _factories:
    if name not in _clients and name not in _client_errors:
      try:
        client(name)
      except RuntimeError:
        pass
    if name in _clients:
      out.append(name)
  return out


def default_platform() -> str:
  """`STABLEJAX_PLATFORM` if set, else the first of `config.platforms` (`JAX_PLATFORMS`),
  else 'cuda' when a GPU is usable, else 'cpu'."""
  env = os.environ.get("STABLEJAX_PLATFORM") or (config.platforms or "").split(",")[0]
  if env:
    return platforms.canonical(env)
  return "cuda" if "cuda" in available_platforms() else "cpu"


def devices(platform: str | None = None) -> list[Device]:
  """The devices of `platform` (default: the default platform)."""
  return client(platform or default_platform()).devices()


def default_device() -> Device:
  """`config.default_device` (a device, or a platform's first device), else the first device
  of the default platform in this process (chosen once per process)."""
  chosen = config.default_device
  if chosen is None:
    return _first_device()
  if isinstance(chosen, str):
    return client(chosen).local_devices()[0]
  return chosen


@functools.lru_cache(maxsize=None)
def _first_device() -> Device:
  return client(default_platform()).local_devices()[0]


def device_count(backend: str | None = None) -> int:
  """The number of devices of `backend` over all processes."""
  return len(devices(backend))


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Device]:
  """The devices of `backend` that process `process_index` (default: this one) addresses."""
  c = client(backend or default_platform())
  if process_index is None:
    return c.local_devices()
  return [d for d in c.devices() if d.process_index == process_index]


def local_device_count(backend: str | None = None) -> int:
  """The number of devices this process addresses."""
  return len(local_devices(backend=backend))


def process_index(backend: str | None = None) -> int:
  """This process's index among the processes of a distributed run (0 in a single process)."""
  return client(backend or default_platform()).process_index()


def process_count(backend: str | None = None) -> int:
  """The number of processes sharing the devices of `backend`."""
  return max(d.process_index for d in devices(backend)) + 1


def process_indices(backend: str | None = None) -> list[int]:
  """The indices of the processes sharing the devices of `backend`, in order."""
  return sorted({d.process_index for d in devices(backend)})


def default_backend() -> str:
  """The platform of the default device ('cpu', 'gpu', 'tpu'), as JAX names it."""
  return default_device().platform


def live_buffers(platform: str | None = None) -> list[Buffer]:
  """The buffers alive on `platform` (default: the default platform), not deleted."""
  return [b for b in client(platform or default_platform()).live_arrays() if not b.is_deleted()]


def platform_of(device: Device) -> str:
  """The platform of a device, in the platform table's names (jaxlib calls CUDA devices 'gpu')."""
  return platforms.canonical(device.platform)


# ----------------------------------------------------------------------------------------------
# Buffers

# committed, no forced copy, the host value copied during the call (a numpy array the caller
# changes afterwards must not change the buffer), and 64-bit values kept where jaxlib asks
_COPY = _jax.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
_PUT_ARGS = (True, False, _COPY) + (
    (True,) if "enable_x64" in (_jax.batched_device_put.__doc__ or "") else ())


def check_dtypes(dts: Sequence[np.dtype], device: Device) -> None:
  """A JaxRuntimeError, as JAX's, for a dtype the CPU backend cannot hold (float6, int1)."""
  if device.platform == "cpu":
    for dt in dts:
      if dt in dtypes.NOT_ON_CPU:
        raise JaxRuntimeError(f"INVALID_ARGUMENT: arrays of dtype {dt.name} are not supported "
                              "on the CPU backend (nor are they by JAX)")


def put(x: np.ndarray, aval: Any, device: Device) -> Buffer:
  """Copy a numpy array to `device` as a buffer of type `aval` (a core.ShapedArray)."""
  check_dtypes([aval.dtype], device)
  return put_host([np.asarray(x, aval.dtype)], [aval], device)[0]


def put_host(xs: Sequence[Any], avals: Sequence[Any], device: Device) -> list[Buffer]:
  """The host values `xs` (numpy arrays or scalars already of their avals' dtypes, on a device
  that holds those dtypes) as buffers on `device`, one transfer each: jaxlib's batched put
  batches the shards of one array, not several arrays."""
  if config.transfer_guard_host_to_device is not None:
    for aval in avals:
      transfer_guard.check("host_to_device", f"aval={aval}, dst_device={device}")
  sh, devices, put_one = sharding(device), [device], _jax.batched_device_put
  bufs = []
  with _TracebackScope():  # (see `is_ready`; a loop, as a comprehension's frame is recorded)
    for x, aval in zip(xs, avals):
      bufs.append(put_one(aval, sh, [x], devices, *_PUT_ARGS))
  return bufs


def alias_host(aval: Any, device: Device) -> tuple[np.ndarray, Buffer] | None:
  """(host, buffer): a buffer of type `aval` on the CPU `device` and a numpy array viewing its
  memory, so that writing `host` changes the buffer; None on another platform. The memory is
  jaxlib's, not numpy's: a buffer over numpy's memory (DLPack) is freed through numpy, which
  needs the interpreter, and jaxlib may free it on a worker thread after Python 3.13 has begun
  shutting down (which aborts). `host` must not outlive `buffer`."""
  if device.platform != "cpu" or not aval.size:
    return None
  (buf,) = put_host([np.zeros(aval.shape, aval.dtype)], [aval], device)
  buf.block_until_ready()
  memory = (ctypes.c_uint8 * (aval.size * aval.dtype.itemsize)).from_address(
      buf.unsafe_buffer_pointer())
  return np.frombuffer(memory, aval.dtype).reshape(aval.shape), buf


def put_shards(shards: Sequence[np.ndarray], aval: Any, sharding: Any,
               devices: Sequence[Device]) -> Buffer:
  """One multi-device buffer of type `aval` laid out by `sharding` from each device's shard
  (assembled from single-device buffers: jaxlib's multi-device put fails on partly replicated
  shardings once jax is imported)."""
  bufs = [put(x, aval.update(shape=x.shape), d) for x, d in zip(shards, devices)]
  return assemble(aval, sharding, bufs)


def assemble(aval: Any, sharding: Any, bufs: Sequence[Buffer]) -> Buffer:
  """One multi-device buffer of type `aval` laid out by `sharding`, of single-device `bufs`."""
  return _jax.ArrayImpl(aval, sharding, list(bufs), True, _skip_checks=True)


def is_single_device(buf: Buffer) -> bool:
  """Whether `buf` has a single-device sharding."""
  return isinstance(buf._sharding, _jax.SingleDeviceSharding)


def on_one_device(buf: Buffer) -> bool:
  """Whether `buf` lives whole on one device: a single-device sharding's, or another sharding
  over one device (a NamedSharding over a 1-device mesh)."""
  s = buf._sharding
  return isinstance(s, _jax.SingleDeviceSharding) or len(s._internal_device_list) == 1


def copy_to(buf: Buffer, device: Device) -> Buffer:
  """A copy of `buf` on `device` (any client)."""
  if config.transfer_guard_device_to_device is not None:
    transfer_guard.check("device_to_device", f"aval={buf.aval}, dst_device={device}")
  (out,) = _jax.batched_copy_array_to_devices_with_sharding(
      [buf], [_jax.DeviceList((device,))], [sharding(device)],
      [_jax.ArrayCopySemantics.ALWAYS_COPY])
  return out


def buffer_device(buf: Buffer) -> Device:
  """The device holding `buf`, a buffer on one device (a single-device sharding's, or the one
  device of another sharding: a shard of an array over a 1-device mesh keeps its NamedSharding)."""
  s = buf._sharding
  if isinstance(s, _jax.SingleDeviceSharding):
    return s._device
  devices = s._internal_device_list
  if len(devices) != 1:
    raise ValueError(f"buffer_device: the buffer spans {len(devices)} devices, not one")
  return devices[0]


def to_numpy(buf: Buffer) -> np.ndarray:
  """The value of `buf` as a read-only numpy array (a zero-copy view on CPU)."""
  on_cpu = buffer_device(buf).platform == "cpu"
  if not on_cpu and config.transfer_guard_device_to_host is not None:
    transfer_guard.check("device_to_host", f"aval={buf.aval}")
  if on_cpu and buf.aval.dtype.kind != "V":
    return np.asarray(buf)  # the buffer protocol waits for the value; it is defined for CPU only
  # Other platforms, and bfloat16 (kind "V": the buffer protocol has no format for it), copy to
  # host; jaxlib itself imports jax.core here if jax is installed.
  value = buf._single_device_array_to_np_array_did_copy()[0]
  value.flags.writeable = False
  return value


# ----------------------------------------------------------------------------------------------
# Compilation and execution

def _program_shapes(exe: Any) -> tuple[list, list]:
  """(parameter shapes, result shapes) of a compiled program as (shape, dtype) pairs."""
  module = exe.hlo_modules()[0]
  ps = xla_client.XlaComputation(module.as_serialized_hlo_module_proto()).program_shape()
  result = ps.result_shape()
  results = result.tuple_shapes() if result.is_tuple() else [result]
  as_pairs = lambda shapes: [(tuple(s.dimensions()), s.numpy_dtype()) for s in shapes]
  return as_pairs(ps.parameter_shapes()), as_pairs(results)


class Loaded:
  """A compiled program loaded on one device, with XLA's optimized HLO and cost analysis."""

  def __init__(self, exe: Any, device: Device, host_callbacks: Sequence[Callable] = ()):
    self.exe = exe
    self.device = device
    self.host_callbacks = tuple(host_callbacks)  # alive as long as the program
    self.in_shapes, self.out_shapes = _program_shapes(exe)

  def as_text(self) -> str:
    """XLA's optimized HLO."""
    return self.exe.hlo_modules()[0].to_string()

  def cost_analysis(self) -> dict:
    """What XLA reports: flops, bytes accessed, ..."""
    return dict(self.exe.cost_analysis())

  def memory_analysis(self) -> Any:
    """XLA's sizes of the arguments, outputs, aliased and temporary buffers and generated code
    (jaxlib's `CompiledMemoryStats`, which JAX's `memory_analysis` returns too)."""
    return self.exe.get_compiled_memory_stats()

  def launcher(self, out_avals: Sequence[Any], wraps: Sequence[Callable[[Buffer], Any]]
               ) -> Callable[[list[Buffer]], list]:
    """`run(buffers) -> [wrap(out) ...]`: execute on argument buffers, each output buffer typed
    by `out_avals` and wrapped by its one of `wraps` (the whole cached-dispatch path)."""
    sh = sharding(self.device)
    handlers = [result_handler(a, sh).wrap(wrap) for a, wrap in zip(out_avals, wraps)]
    execute = self.exe.execute_sharded

    def run(buffers: list[Buffer]) -> list:
      try:
        with _TracebackScope():  # (see `is_ready`)
          return execute(buffers).consume_with_handlers(handlers)
      except (ValueError, JaxRuntimeError):
        check_live(buffers)
        raise
    return run


def block_until_ready(buffers: Sequence[Buffer]) -> None:
  """Wait until every one of `buffers` is computed (a JaxRuntimeError if one was deleted)."""
  with _TracebackScope():  # (see `is_ready`)
    _jax.batched_block_until_ready(buffers)


def is_ready(buf: Buffer) -> bool:
  """Whether `buf` is computed (without waiting; a JaxRuntimeError if its computation failed).
  jaxlib records the caller's Python stack with each launch, transfer and wait (for its
  runtime's debug strings), at 16 to 40 ns a frame; inside a traceback scope (the thread's own)
  it records only the frames inside the scope, so these cost the same at any depth."""
  with _TracebackScope():
    return buf.is_ready()


def check_live(buffers: Sequence[Buffer]) -> None:
  """A RuntimeError naming the first of `buffers` that was deleted (donated to a `jit` call,
  or `Array.delete()`d), if any: a deleted buffer cannot be read or computed with."""
  for i, buf in enumerate(buffers):
    if buf.is_deleted():
      raise deleted_error(buf, f"argument {i}")


def deleted_error(buf: Buffer, what: str) -> RuntimeError:
  return RuntimeError(f"{what} (an Array of type {buf.aval.str_short()}) has been deleted: it "
                      "was donated to a jit call (donate_argnums) or deleted, and cannot be "
                      "used again")


# jaxlib 0.10 takes `_skip_checks` (skipping a per-call check); 0.11 does not: detected.
_HANDLER_SKIPS_CHECKS = "_skip_checks" in (_jax.array_result_handler.__doc__ or "")


def result_handler(aval: Any, sh: Any) -> Any:
  """jaxlib's result handler for outputs of type `aval` on the sharding's device."""
  if _HANDLER_SKIPS_CHECKS:
    return _jax.array_result_handler(aval, sh, True, _skip_checks=True)
  return _jax.array_result_handler(aval, sh, True)



def compile(module: Any, device: Device, host_callbacks: Sequence[Callable] = (),
            compiler_options: Sequence[tuple[str, Any]] = ()) -> Loaded:
  """Compile StableHLO (MLIR text or bytecode; a `jaxlib.mlir.ir.Module` when it calls
  `host_callbacks`, the Python functions its custom calls to XLA's Python callback target call
  by index) for `device`, with XLA's `compiler_options` (name, value) (`jit(compiler_options=)`)."""
  if host_callbacks and isinstance(module, (str, bytes)):
    raise TypeError("compile with host callbacks expects a jaxlib.mlir.ir.Module")
  if not host_callbacks and not isinstance(module, (str, bytes)):
    raise TypeError(f"compile expects MLIR text or bytecode, got {type(module).__name__}")
  options = xla_client.CompileOptions()
  options.device_assignment = xla_client.DeviceAssignment.create(np.array([[device.id]], np.int32))
  if compiler_options:
    options.env_option_overrides = list(compiler_options)
  devices = _jax.DeviceList((device,))
  try:
    if host_callbacks:  # Python functions of this process: never in the persistent cache
      exe = device.client.compile_and_load(module, devices, options,
                                           host_callbacks=list(host_callbacks))
    else:
      compile_now = lambda: device.client.compile_and_load(module, devices, options)
      exe = compilation_cache.get_or_compile(module, devices, options, compile_now)
  except JaxRuntimeError as e:
    raise CompileError(f"XLA could not compile the module for {device}: {e}") from None
  return Loaded(exe, device, host_callbacks)
