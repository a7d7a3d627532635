"""`stablejax.profiler`, as `jax.profiler`, on jaxlib's profiler: traces of host and device
activity written for TensorBoard (`start_trace`/`stop_trace`, `trace`), annotations on them
(`TraceAnnotation`, `StepTraceAnnotation`, `annotate_function`), a profiler server, and
device memory profiles (pprof)."""
from __future__ import annotations

import contextlib
import functools
import gzip
import os
import threading
from typing import Any, Callable, Iterator

from jaxlib import _profiler
from jaxlib._profile_data import ProfileData, ProfileEvent, ProfilePlane

from stablejax.runtime import pjrt
from stablejax.version import __version__

ProfileOptions = _profiler.ProfileOptions
register_subprocess = _profiler.register_subprocess

__all__ = ["ProfileData", "ProfileEvent", "ProfileOptions", "ProfilePlane",
           "StepTraceAnnotation", "TraceAnnotation", "annotate_function", "device_memory_profile",
           "register_subprocess", "save_device_memory_profile", "start_server", "start_trace",
           "stop_server", "stop_trace", "trace"]


class _State:
  def __init__(self):
    self.server: Any = None
    self.session: Any = None
    self.log_dir: str | None = None
    self.lock = threading.Lock()


_state = _State()


def start_server(port: int) -> Any:
  """Start the profiler server on `port` (one at a time), for TensorBoard to connect to."""
  if _state.server is not None:
    raise ValueError("Only one profiler server can be active at a time.")
  _state.server = _profiler.start_server(port)
  return _state.server


def stop_server() -> None:
  """Stop the profiler server."""
  if _state.server is None:
    raise ValueError("No active profiler server.")
  _state.server = None  # (jaxlib stops it when it is dropped)


def start_trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
  """Start tracing the host and the devices; `stop_trace` writes the trace to `log_dir`."""
  if create_perfetto_link or create_perfetto_trace:
    raise NotImplementedError("start_trace: Perfetto traces are not supported; open the trace "
                              "in TensorBoard")
  with _state.lock:
    if _state.session is not None:
      raise RuntimeError("Profile has already been started. Only one profile may be run at a "
                         "time.")
    pjrt.devices()  # (the backend exists before the session: its tracer is then included)
    _profiler.clear_metadata()
    _profiler.set_metadata("stablejax_version", __version__)
    _state.session = _profiler.ProfilerSession(profiler_options or ProfileOptions())
    _state.log_dir = os.fspath(log_dir)


def stop_trace() -> None:
  """Stop the trace and write it to the `log_dir` given to `start_trace`."""
  with _state.lock:
    if _state.session is None:
      raise RuntimeError("No profile started")
    _state.session.stop_and_export(_state.log_dir)
    _state.session, _state.log_dir = None, None
    _profiler.clear_metadata()


@contextlib.contextmanager
def trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
          create_perfetto_trace: bool = False,
          profiler_options: ProfileOptions | None = None) -> Iterator[None]:
  """Context manager: trace what runs inside it into `log_dir`."""
  start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
  try:
    yield
  finally:
    stop_trace()


class TraceAnnotation(_profiler.TraceMe):
  """Context manager: an event named `name` spanning its block on the trace's timeline."""


class StepTraceAnnotation(TraceAnnotation):
  """Context manager: a step event (`name`, with `step_num=`) for per-step analysis."""

  def __init__(self, name: str, **kwargs: Any):
    super().__init__(name, _r=1, **kwargs)


def annotate_function(func: Callable, name: str | None = None,
                      **decorator_kwargs: Any) -> Callable:
  """`func` with each call an event named `name` (default: its name) on the trace."""
  name = name or getattr(func, "__qualname__", None) or func.__name__

  @functools.wraps(func)
  def wrapper(*args, **kwargs):
    with TraceAnnotation(name, **decorator_kwargs):
      return func(*args, **kwargs)

  return wrapper


def device_memory_profile(backend: str | None = None) -> bytes:
  """The live arrays and executables of `backend`'s devices, as a gzipped pprof profile."""
  return gzip.compress(pjrt.client(backend or pjrt.default_platform()).heap_profile())


def save_device_memory_profile(filename: os.PathLike | str, backend: str | None = None) -> None:
  """Write `device_memory_profile(backend)` to `filename`."""
  with open(filename, "wb") as f:
    f.write(device_memory_profile(backend))
