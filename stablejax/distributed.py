"""Multi-process runs (`jax.distributed`): one CPU client over the devices of several processes.

`initialize` connects this process to jaxlib's distributed runtime (process 0 also runs its
coordination service); the CPU client made afterwards has the devices of every process
(`device_count()` counts them all, `local_device_count()` this process's) and runs collectives
across processes through jaxlib's gloo TCP collectives. Only the CPU client is distributed.
"""
from __future__ import annotations

from typing import Any, Sequence

from jaxlib import _jax

from stablejax.runtime.distributed_state import state

# A coordinator on these hosts means every process runs on this machine: gloo then talks over
# the loopback interface too (its default is the address the host name resolves to).
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _check_process(num_processes: Any, process_id: Any) -> None:
  for name, value in (("num_processes", num_processes), ("process_id", process_id)):
    if not isinstance(value, int) or isinstance(value, bool):
      raise TypeError(f"distributed.initialize: {name} must be an int, got "
                      f"{type(value).__name__} {value!r}")
  if not 0 <= process_id < num_processes:
    raise ValueError("distributed.initialize: process_id and num_processes must be nonnegative, "
                     f"with process_id < num_processes; got process_id={process_id}, "
                     f"num_processes={num_processes}")


def _port(coordinator_address: str) -> str:
  host, sep, port = coordinator_address.rpartition(":")
  if not sep or not host or not port.isdigit():
    raise ValueError("distributed.initialize: coordinator_address must be 'host:port', got "
                     f"{coordinator_address!r}")
  return port


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None) -> None:
  """Join the processes of a multi-process run: call it in every process before any computation
  (process 0 serves as coordinator on `coordinator_address`, 'host:port')."""
  if cluster_detection_method not in (None, "deactivate"):
    raise NotImplementedError("distributed.initialize: stablejax does not detect clusters "
                              f"(cluster_detection_method={cluster_detection_method!r})")
  if coordinator_address is None or num_processes is None or process_id is None:
    raise ValueError("distributed.initialize needs coordinator_address, num_processes and "
                     "process_id (stablejax does not detect clusters)")
  _check_process(num_processes, process_id)
  port = _port(coordinator_address)
  if local_device_ids is not None:
    raise NotImplementedError("distributed.initialize: local_device_ids selects accelerators; "
                              "stablejax distributes the CPU client only")
  if state.client is not None:
    raise RuntimeError("distributed.initialize should only be called once.")
  if state.cpu_client_made:
    raise RuntimeError("distributed.initialize() must be called before any stablejax calls that "
                       "create the CPU client (any computation, but also devices(), "
                       "device_put(), ...)")
  timeouts = {"heartbeat_timeout": heartbeat_timeout_seconds,
              "shutdown_timeout": shutdown_timeout_seconds}
  if process_id == 0:
    state.service = _jax.get_distributed_runtime_service(
        coordinator_bind_address or f"[::]:{port}", num_processes, **timeouts)
  client = _jax.get_distributed_runtime_client(
      coordinator_address, process_id, init_timeout=initialization_timeout,
      use_compression=True, **timeouts)
  try:
    client.connect()  # waits (up to initialization_timeout) for every process to connect
  except Exception:
    shutdown()  # stops this process's coordination service, if any
    raise
  state.client, state.process_id, state.num_processes = client, process_id, num_processes
  host = coordinator_address.rpartition(":")[0]
  state.collectives_hostname = "127.0.0.1" if host in _LOOPBACK_HOSTS else None


def is_initialized() -> bool:
  """Whether `initialize` has connected this process."""
  return state.client is not None


def shutdown() -> None:
  """Disconnect from the distributed runtime (and stop the coordination service on process 0)."""
  client, service = state.client, state.service
  state.client = state.service = None
  state.process_id, state.num_processes, state.collectives_hostname = 0, 1, None
  if client is not None:
    client.shutdown()
  if service is not None:
    service.shutdown()
