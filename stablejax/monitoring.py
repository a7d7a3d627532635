"""`stablejax.monitoring`, as `jax.monitoring`: listeners of named events, of durations, time
spans and scalars. stablejax records `/jax/core/compile/backend_compile_duration` for each
compilation, as JAX does."""
from __future__ import annotations

from typing import Callable

_event_listeners: list[Callable] = []
_duration_listeners: list[Callable] = []
_time_span_listeners: list[Callable] = []
_scalar_listeners: list[Callable] = []

BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


def record_event(event: str, **kwargs: str | int) -> None:
  """Call every event listener with `(event, **kwargs)`."""
  for callback in list(_event_listeners):
    callback(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: str | int) -> None:
  """Call every duration listener with `(event, duration, **kwargs)`."""
  for callback in list(_duration_listeners):
    callback(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float,
                           **kwargs: str | int) -> None:
  """Call every time-span listener with `(event, start_time, end_time, **kwargs)`."""
  for callback in list(_time_span_listeners):
    callback(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs: str | int) -> None:
  """Call every scalar listener with `(event, value, **kwargs)`."""
  for callback in list(_scalar_listeners):
    callback(event, value, **kwargs)


def register_event_listener(callback: Callable) -> None:
  _event_listeners.append(callback)


def register_event_duration_secs_listener(callback: Callable) -> None:
  _duration_listeners.append(callback)


def register_event_time_span_listener(callback: Callable) -> None:
  _time_span_listeners.append(callback)


def register_scalar_listener(callback: Callable) -> None:
  _scalar_listeners.append(callback)


def _unregister(listeners: list[Callable], callback: Callable, what: str) -> None:
  if callback not in listeners:
    raise AssertionError(f"{callback!r} is not a registered {what} listener")
  listeners.remove(callback)


def unregister_event_listener(callback: Callable) -> None:
  _unregister(_event_listeners, callback, "event")


def unregister_event_duration_listener(callback: Callable) -> None:
  _unregister(_duration_listeners, callback, "event duration")


def unregister_event_time_span_listener(callback: Callable) -> None:
  _unregister(_time_span_listeners, callback, "event time span")


def unregister_scalar_listener(callback: Callable) -> None:
  _unregister(_scalar_listeners, callback, "scalar")


def clear_event_listeners() -> None:
  """Remove every listener."""
  for listeners in (_event_listeners, _duration_listeners, _time_span_listeners,
                    _scalar_listeners):
    listeners.clear()
