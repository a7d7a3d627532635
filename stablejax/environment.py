"""What this environment has and holds, as JAX's top-level functions name it: the default
backend, the processes, the live arrays, waiting for effects, the environment's description."""
from __future__ import annotations

import platform
import sys
from typing import Any

import jaxlib
import numpy as np

from stablejax.runtime import pjrt
from stablejax.runtime.array import Array, from_buffer
from stablejax.tree_util import tree_leaves
from stablejax.version import __version__

default_backend = pjrt.default_backend
process_indices = pjrt.process_indices


def live_arrays(platform: str | None = None) -> list[Array]:  # noqa: A002  (JAX's name)
  """The arrays alive on `platform` (default: the default platform), not deleted."""
  return [from_buffer(b) for b in pjrt.live_buffers(platform)]


def effects_barrier() -> None:
  """Wait until every computation running now has finished, and with it its effects (the
  host callbacks it makes: `debug.print`, `io_callback`, ...)."""
  for name in pjrt.available_platforms():
    pjrt.block_until_ready(pjrt.live_buffers(name))


def copy_to_host_async(x: Any) -> Any:
  """Start copying every Array of the pytree `x` to the host (a later `np.asarray` of it then
  waits less); returns `x`."""
  for leaf in tree_leaves(x):
    if isinstance(leaf, Array):
      buf = leaf._buf
      for single in ([buf] if pjrt.is_single_device(buf) else buf._arrays):
        single._copy_single_device_array_to_host_async()
  return x


def host_id(backend: str | None = None) -> int:
  """This process's index (JAX's older name of `process_index`)."""
  return pjrt.process_index(backend)


def host_count(backend: str | None = None) -> int:
  """The number of processes (JAX's older name of `process_count`)."""
  return pjrt.process_count(backend)


def host_ids(backend: str | None = None) -> list[int]:
  """The process indices (JAX's older name of `process_indices`)."""
  return pjrt.process_indices(backend)


def print_environment_info(return_string: bool = False) -> str | None:
  """Print (or return) the versions of stablejax, jaxlib, numpy and Python, and the devices."""
  lines = [f"stablejax:    {__version__}", f"jaxlib:       {jaxlib.__version__}",
           f"numpy:        {np.__version__}",
           f"python:       {sys.version}", f"device info:  {pjrt.devices()[0].device_kind}-"
           f"{pjrt.device_count()}, {pjrt.local_device_count()} local devices",
           f"process_count: {pjrt.process_count()}", f"platform: {platform.uname()}"]
  text = "\n".join(lines) + "\n"
  if return_string:
    return text
  print(text)
  return None
