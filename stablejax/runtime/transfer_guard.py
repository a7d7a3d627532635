"""Transfer guards (`sj.transfer_guard("disallow")`, JAX's `jax_transfer_guard_*` options):
host-to-device, device-to-device and device-to-host copies are allowed, logged or refused.
'log' and 'disallow' act on implicit transfers only (an argument put on the device by `jit` or
an operation); 'log_explicit' and 'disallow_explicit' on explicit ones too (`device_put`,
`device_get`). As JAX's, a read of a CPU array is no transfer (its memory is the host's)."""
from __future__ import annotations

import contextlib
import logging
import threading
from typing import Iterator

from jaxlib import _jax

from stablejax.config import config

logger = logging.getLogger(__name__)


class _Explicit(threading.local):
  def __init__(self):
    self.depth = 0


_explicit = _Explicit()


@contextlib.contextmanager
def explicit() -> Iterator[None]:
  """The transfers made inside are explicit (`device_put`, `device_get`)."""
  _explicit.depth += 1
  try:
    yield
  finally:
    _explicit.depth -= 1


def check(direction: str, what: str) -> None:
  """Log or refuse a transfer (`direction`: 'host_to_device', 'device_to_device' or
  'device_to_host') as the guard of that direction says."""
  mode = getattr(config, f"transfer_guard_{direction}")
  if mode is None or mode == "allow":
    return
  if _explicit.depth and not mode.endswith("_explicit"):
    return
  kind = direction.replace("_", "-")
  if mode.startswith("log"):
    logger.warning("%s transfer: %s", kind, what)
  else:
    raise _jax.JaxRuntimeError(f"INVALID_ARGUMENT: Disallowed {kind} transfer: {what}")
