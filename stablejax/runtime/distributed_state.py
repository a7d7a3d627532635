"""The multi-process state the CPU client is made with (set by `stablejax.distributed.initialize`).

jaxlib's distributed runtime: process 0 runs the coordination service, every process connects a
client to it; the CPU client made afterwards spans the devices of all processes and runs its
collectives over gloo (TCP). Kept apart from `stablejax.distributed` so that `runtime.pjrt` reads
it without importing the package's top-level modules.
"""
from __future__ import annotations

from typing import Any

from jaxlib import _jax


class State:
  """Which process this is, of how many, and jaxlib's coordination objects."""

  def __init__(self) -> None:
    self.service: Any = None  # _jax.DistributedRuntimeService, on process 0 only
    self.client: Any = None  # _jax.DistributedRuntimeClient
    self.process_id: int = 0
    self.num_processes: int = 1
    self.collectives_hostname: str | None = None  # the address gloo binds (None: its default)
    self.cpu_client_made: bool = False  # `initialize` comes too late once this is set


state = State()


def cpu_client_kwargs() -> dict[str, Any]:
  """The keyword arguments of `xla_client.make_cpu_client` for the distributed state (none when
  single-process); marks the CPU client as made."""
  state.cpu_client_made = True
  if state.client is None:
    return {}
  make_collectives = getattr(_jax, "make_gloo_tcp_collectives", None)
  if make_collectives is None:
    raise RuntimeError("this jaxlib has no gloo TCP collectives (make_gloo_tcp_collectives): "
                       "CPU collectives across processes are not available")
  return {"distributed_client": state.client, "node_id": state.process_id,
          "num_nodes": state.num_processes,
          "collectives": make_collectives(distributed_client=state.client,
                                          hostname=state.collectives_hostname)}
