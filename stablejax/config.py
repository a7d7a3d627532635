"""Global configuration flags (`sj.config.update("enable_x64", True)`, or by JAX's names:
`config.update("jax_enable_x64", True)`, `config.jax_enable_x64`), and the context managers
that set them for a block (`with sj.enable_x64(True):`), as JAX's config states."""
from __future__ import annotations

import contextlib
import os
from typing import Any, Callable, Iterator

from stablejax import platforms


def _env_flag(name: str) -> bool:
  return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _optional_path(name: str, value: Any) -> str | None:
  """A directory path (str or os.PathLike) as a str; None or "" for none."""
  if value is None or value == "":
    return None
  if not isinstance(value, (str, os.PathLike)):
    raise TypeError(f"config option {name!r} takes a directory path (str or os.PathLike) or None, "
                    f"got {type(value).__name__} {value!r}")
  return os.fsdecode(value)


def _optional_count(name: str, value: Any) -> int | None:
  """A positive int (or a str of one); None or "" for the default."""
  if value is None or value == "":
    return None
  try:
    n = int(value)
  except (TypeError, ValueError):
    n = 0
  if n < 1 or isinstance(value, (bool, float)):
    raise ValueError(f"config option {name!r} takes a positive int or None, got {value!r}")
  return n


def _one_of(*values: Any) -> Callable[[str, Any], Any]:
  """The check of an option taking one of `values`."""
  def check(name: str, value: Any) -> Any:
    if value not in values:
      raise ValueError(f"new enum value for config option {name!r} must be in "
                       f"{[v for v in values if v is not None]}, got {value!r} of type "
                       f"{type(value)}.")
    return value
  return check


def _optional_platforms(name: str, value: Any) -> str | None:
  """A comma-separated list of platform names (JAX's `jax_platforms`), each checked."""
  if value is None or value == "":
    return None
  if not isinstance(value, str):
    raise TypeError(f"config option {name!r} takes a comma-separated str of platforms, got "
                    f"{value!r}")
  for platform in value.split(","):
    platforms.canonical(platform)
  return value


def _optional_device(name: str, value: Any) -> Any:
  """None, a platform name or a device (it has a `platform`), as JAX's `jax_default_device`."""
  if value is None or value in ("cpu", "gpu", "tpu", "cuda", "rocm"):
    return value
  if not hasattr(value, "platform"):
    raise ValueError(f"{name} must be given either a Device object (e.g. "
                     f"`sj.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', "
                     f"got: {value!r}")
  return value


# JAX's precision names (its dot-algorithm presets, "F32_F32_F32", ..., are not supported).
_PRECISIONS = (None, "default", "high", "highest", "bfloat16", "tensorfloat32", "float32")

_GUARDS = (None, "allow", "log", "disallow", "log_explicit", "disallow_explicit")

def _supported(check: Callable[[str, Any], Any], *supported: Any,
               why: str) -> Callable[[str, Any], Any]:
  """`check` (JAX's check of the option), then refuse the values stablejax has no behaviour for."""
  def check_supported(name: str, value: Any) -> Any:
    value = check(name, value)
    if value not in supported:
      raise NotImplementedError(f"config option 'jax_{name}'={value!r} is not supported by "
                                f"stablejax ({why}); supported: {list(supported)}")
    return value
  return check_supported


def _boolean(name: str, value: Any) -> bool:
  return bool(value)


def _legacy_prng_key(name: str, value: Any) -> str:
  """JAX's LegacyPrngKeyState: 'allow', 'warn' or 'error'."""
  if value not in ("allow", "warn", "error"):
    raise ValueError(f"{value!r} is not a valid LegacyPrngKeyState")
  return value


_PRNG_IMPLS = ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32")

# JAX's options whose other values select behaviour stablejax does not have (refused).
_PARTIAL_OPTIONS = {
    "default_prng_impl": _supported(_one_of(*_PRNG_IMPLS), "threefry2x32",
                                    why="its only PRNG implementation is threefry2x32"),
    "threefry_partitionable": _supported(_boolean, True, why="it generates random bits with "
                                         "the partitionable threefry scheme only"),
    "enable_custom_prng": _supported(_boolean, False, why="random functions given raw keys "
                                     "return raw keys"),
    "debug_key_reuse": _supported(_boolean, False, why="it has no key reuse checker"),
    "array_garbage_collection_guard": _supported(
        _one_of(None, "allow", "log", "fatal"), None, "allow",
        why="it does not watch how arrays are garbage collected"),
    "auto_pcast": _supported(_boolean, True, why="it has no varying-manual-axes types"),
    "remove_size_one_mesh_axis_from_type": _supported(
        _boolean, False, why="its array types keep every mesh axis"),
    "thread_guard": _supported(_boolean, False, why="it has no multi-process thread guard"),
}

# Options whose values are checked (and converted) by a function of (name, value).
_CHECKS = {"legacy_prng_key": _legacy_prng_key, **_PARTIAL_OPTIONS,
           "compilation_cache_dir": _optional_path, "dump_ir_to": _optional_path,
           "num_cpu_devices": _optional_count,
           "default_backend": lambda name, value: platforms.backend(value),
           "numpy_rank_promotion": _one_of("allow", "warn", "raise"),
           "numpy_dtype_promotion": _one_of("standard", "strict"),
           "default_matmul_precision": _one_of(*_PRECISIONS),
           "platforms": _optional_platforms, "default_device": _optional_device,
           **{f"transfer_guard_{d}": _one_of(*_GUARDS)
              for d in ("host_to_device", "device_to_device", "device_to_host")}}

# The options a traced function's jaxpr depends on: a `jit` retraces when one changes.
TRACE_CONTEXT = ("enable_x64", "numpy_rank_promotion", "numpy_dtype_promotion",
                 "default_matmul_precision", "allow_f16_reductions", "softmax_custom_jvp",
                 "default_prng_impl", "_user_contexts")


class Config:
  """A small flag registry; flags are read on hot paths, so they are plain attributes."""

  def __init__(self) -> None:
    self.enable_x64: bool = _env_flag("STABLEJAX_ENABLE_X64")
    # The passes `jit` and `lower` run when given no `passes=` (names in `stablejax.passes`).
    # DCE only, as JAX: "cse" and "simplify" change the op counts tests compare with JAX's.
    self.passes: tuple[str, ...] = ("dce",)
    # Type-check the jaxpr after every jaxpr pass (`jaxpr.check_jaxpr`): for debugging passes.
    self.check_passes: bool = _env_flag("STABLEJAX_CHECK_PASSES")
    # Check the result types of stablejax's own lowering rules too (users' rules are always
    # checked): the test suite turns it on, lowering skips it by default (a tenth of its time).
    self.check_lowering_rules: bool = _env_flag("STABLEJAX_CHECK_LOWERING_RULES")
    # Check the results of stablejax's own JVP, transpose and batching rules too (users' rules
    # are always checked: interpreters/rule_checks.py); the test suite turns it on.
    self.check_transform_rules: bool = _env_flag("STABLEJAX_CHECK_TRANSFORM_RULES")
    # Constant folding makes no result of more elements than this.
    self.constant_folding_max_size: int = 1024
    # The persistent compilation cache's directory (stablejax/runtime/compilation_cache.py);
    # None: no cache (the default, as JAX).
    self.compilation_cache_dir: str | None = _optional_path(
        "STABLEJAX_COMPILATION_CACHE_DIR", os.environ.get("STABLEJAX_COMPILATION_CACHE_DIR"))
    # The backend `jit` compiles with when given no `backend=`: "xla" (PJRT) or "iree" (the
    # extra `stablejax[iree]`; stablejax/runtime/iree.py). Eager operations always run on XLA.
    self.default_backend: str = "xla"
    # The number of CPU devices (None: one); read when the CPU client is made, frozen after.
    self.num_cpu_devices: int | None = _optional_count(
        "STABLEJAX_NUM_CPU_DEVICES", os.environ.get("STABLEJAX_NUM_CPU_DEVICES"))
    self._jax_options()
    # Options that can no longer change, with why (`freeze`).
    self._frozen: dict[str, str] = {}
    # Bumped by every `update`: caches of state derived from the flags (jit's dispatch fast
    # path) compare it instead of re-reading each flag.
    self.epoch: int = 0

  def _jax_options(self) -> None:
    """JAX's options (`jax_<name>`) that stablejax honours, with JAX's defaults."""
    self.platforms: str | None = _optional_platforms(
        "JAX_PLATFORMS", os.environ.get("JAX_PLATFORMS"))
    # How jax.numpy broadcasts operands of different ranks: "allow", "warn" or "raise".
    self.numpy_rank_promotion: str = "allow"
    # "standard" (JAX's lattice) or "strict" (no implicit promotion between strong dtypes).
    self.numpy_dtype_promotion: str = "standard"
    # The precision of `dot`-like ops given none (None: the platform's default).
    self.default_matmul_precision: str | None = None
    # `jit` calls the function as it is: everything runs op by op.
    self.disable_jit: bool = False
    # Raise FloatingPointError naming the primitive that made a NaN (an infinity).
    self.debug_nans: bool = False
    self.debug_infs: bool = False
    # Log each compilation at WARNING level: the function's name, its argument types and the
    # time of each stage (stablejax/compile_log.py).
    self.log_compiles: bool = _env_flag("STABLEJAX_LOG_COMPILES")
    # Dump every stage and pass of each compiled function into this directory (None: off;
    # stablejax/ir_dump.py); a pass's output only where it changed the IR; XLA's per-pass HLO.
    self.dump_ir_to: str | None = _optional_path("STABLEJAX_DUMP_IR_TO",
                                                 os.environ.get("STABLEJAX_DUMP_IR_TO"))
    self.dump_ir_only_changed: bool = _env_flag("STABLEJAX_DUMP_IR_ONLY_CHANGED")
    self.dump_ir_xla_passes: bool = _env_flag("STABLEJAX_DUMP_IR_XLA_PASSES")
    # Log why each `jit` call traced again (what changed since its last trace).
    self.explain_cache_misses: bool = False
    # Check stablejax's own invariants: type-check jaxprs after each pass and the results of
    # its own lowering and transformation rules (`check_passes`, `check_lowering_rules`,
    # `check_transform_rules` at once).
    self.enable_checks: bool = False
    # After each `jit` trace, raise if a traced value escaped it (kept alive by the user).
    self.check_tracer_leaks: bool = False
    # `jit` raises instead of tracing (again); any execution raises instead of running.
    self.no_tracing: bool = False
    self.no_execution: bool = False
    # Transfer guards: None (allow), "allow", "log", "disallow", "log_explicit",
    # "disallow_explicit" (stablejax/runtime/transfer_guard.py).
    self.transfer_guard_host_to_device: str | None = None
    self.transfer_guard_device_to_device: str | None = None
    self.transfer_guard_device_to_host: str | None = None
    # The device eager operations and `jit` use (None: the first device of the platform).
    self.default_device: Any = None
    self._prng_and_numerics_options()

  def _prng_and_numerics_options(self) -> None:
    """JAX's PRNG and numerics options; some take only the values stablejax has behaviour for
    (`_PARTIAL_OPTIONS`)."""
    # The implementation of keys made by `random.key` given no `impl=`.
    self.default_prng_impl: str = "threefry2x32"
    # Raw uint32 keys passed to `random` functions: "allow", "warn" (a UserWarning), "error".
    self.legacy_prng_key: str = "allow"
    self.enable_custom_prng: bool = False
    self.threefry_partitionable: bool = True
    self.debug_key_reuse: bool = False
    # False: `reduce_sum` of float16/bfloat16 values over a non-trivial axis raises.
    self.allow_f16_reductions: bool = True
    # True: `nn.softmax`'s derivative is its custom JVP rule; False (JAX's default): the chain
    # rule through its operations, the maximum taken as a constant.
    self.softmax_custom_jvp: bool = False
    # Only jax2tf reads it (JAX's own lowering of cumulative reductions is the same either way).
    self.jax2tf_associative_scan_reductions: bool = False
    self.array_garbage_collection_guard: str | None = None
    self.auto_pcast: bool = True
    self.remove_size_one_mesh_axis_from_type: bool = False
    self.thread_guard: bool = False
    # The values of the contexts made by `make_user_context`, by their index.
    self._user_contexts: tuple = ()

  def __getattr__(self, name: str) -> Any:
    """JAX's name of an option, `jax_<name>`, reads it (only called for unknown attributes)."""
    if name.startswith("jax_") and name[4:] in self._options():
      return getattr(self, name[4:])
    raise AttributeError(f"Unrecognized config option: {name}")

  def _options(self) -> list[str]:
    return sorted(k for k in vars(self) if not k.startswith("_") and k != "epoch")

  def trace_context(self) -> tuple:
    """The values of the options a traced jaxpr depends on (part of `jit`'s cache key)."""
    return tuple(getattr(self, name) for name in TRACE_CONTEXT)

  def update(self, name: str, value: Any) -> None:
    """Set option `name` (stablejax's name or JAX's, `jax_<name>`) to `value`."""
    if name.startswith("jax_") and name[4:] in self._options():
      name = name[4:]
    if name.startswith("_") or name == "epoch" or not hasattr(self, name):
      raise ValueError(f"unknown config option {name!r}; known options: {self._options()}")
    if name in self._frozen:
      raise RuntimeError(f"config option {name!r} can no longer be changed: {self._frozen[name]}")
    current = getattr(self, name)
    if name in _CHECKS:
      value = _CHECKS[name](name, value)
    elif isinstance(current, bool):
      value = bool(value)
    elif isinstance(current, tuple):
      value = (value,) if isinstance(value, str) else tuple(value)
    setattr(self, name, value)
    self.epoch += 1

  def freeze(self, name: str, reason: str) -> None:
    """Make `update(name, ...)` raise from now on (the option was read once for good)."""
    self._frozen[name] = reason

  def read(self, name: str) -> Any:
    return getattr(self, name)


config = Config()


class State:
  """A config option as a context manager factory, as JAX's config states:
  `with sj.enable_x64(True):` sets it for the block (and `@sj.enable_x64(True)` for a
  function); `.value` reads it."""

  def __init__(self, name: str, default_context_value: Any = None,
               has_default_context_value: bool = False):
    self.name = name
    self.__name__ = name
    self.__doc__ = f"Context manager for the `jax_{name}` config option."
    self._default = default_context_value
    self._has_default = has_default_context_value

  @property
  def value(self) -> Any:
    return getattr(config, self.name)

  def __bool__(self) -> bool:
    raise TypeError(f"bool() not supported for instances of type 'State' (did you mean to "
                    f"use '{self.name}.value' instead?)")

  def __call__(self, new_val: Any = contextlib.nullcontext) -> contextlib.AbstractContextManager:
    if new_val is contextlib.nullcontext:
      if not self._has_default:
        raise TypeError(f"Context manager for {self.name} config option requires an argument "
                        "representing the new value for the config option.")
      new_val = self._default
    return _set_option(self.name, new_val)


@contextlib.contextmanager
def _set_option(name: str, value: Any) -> Iterator[None]:
  prev = getattr(config, name)
  config.update(name, value)
  try:
    yield
  finally:
    config.update(name, prev)


enable_x64 = State("enable_x64")
numpy_rank_promotion = State("numpy_rank_promotion")
numpy_dtype_promotion = State("numpy_dtype_promotion")
default_matmul_precision = State("default_matmul_precision")
default_device = State("default_device")


class UserConfig:
  """A context of the user's (`make_user_context`) that `jit`'s caches are keyed by."""

  def __init__(self, default_value: Any):
    self._index = len(config._user_contexts)
    self._set(default_value)

  @property
  def value(self) -> Any:
    return config._user_contexts[self._index]

  def get_global(self) -> Any:
    return self.value

  def set_global(self, new_value: Any) -> None:
    self._set(new_value)

  def _set(self, new_value: Any) -> None:
    values = list(config._user_contexts) + [None] * (self._index + 1 - len(config._user_contexts))
    values[self._index] = new_value
    config._user_contexts = tuple(values)
    config.epoch += 1

  @contextlib.contextmanager
  def __call__(self, new_value: Any) -> Iterator[None]:
    prev = self.value
    self._set(new_value)
    try:
      yield
    finally:
      self._set(prev)


def make_user_context(default_value: Any = None) -> UserConfig:
  """A context (`with ctx(value):`) whose value `jit` keys its caches by: a function traced
  under one value is traced again under another."""
  return UserConfig(default_value)


def disable_jit(disable: bool = True) -> contextlib.AbstractContextManager:
  """Context manager (and decorator) under which `jit` calls functions as they are, so they
  run op by op (for debugging: prints and breakpoints see values)."""
  return _set_option("disable_jit", disable)


debug_nans = State("debug_nans")
debug_infs = State("debug_infs")
log_compiles = State("log_compiles")
explain_cache_misses = State("explain_cache_misses")
enable_checks = State("enable_checks")
check_tracer_leaks = State("check_tracer_leaks")
no_tracing = State("no_tracing")
no_execution = State("no_execution")


default_prng_impl = State("default_prng_impl")
legacy_prng_key = State("legacy_prng_key")
enable_custom_prng = State("enable_custom_prng", True, True)
threefry_partitionable = State("threefry_partitionable", True, True)
debug_key_reuse = State("debug_key_reuse", True, True)
allow_f16_reductions = State("allow_f16_reductions", True, True)
softmax_custom_jvp = State("softmax_custom_jvp", True, True)
jax2tf_associative_scan_reductions = State("jax2tf_associative_scan_reductions", True, True)
array_garbage_collection_guard = State("array_garbage_collection_guard")
auto_pcast = State("auto_pcast", True, True)
remove_size_one_mesh_axis_from_type = State("remove_size_one_mesh_axis_from_type", True, True)
thread_guard = State("thread_guard", True, True)


transfer_guard_host_to_device = State("transfer_guard_host_to_device")
transfer_guard_device_to_device = State("transfer_guard_device_to_device")
transfer_guard_device_to_host = State("transfer_guard_device_to_host")


@contextlib.contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
  """Context manager setting the guard of every kind of transfer to `new_val`."""
  with contextlib.ExitStack() as stack:
    for guard in (transfer_guard_host_to_device, transfer_guard_device_to_device,
                  transfer_guard_device_to_host):
      stack.enter_context(guard(new_val))
    yield


def checking_leaks() -> contextlib.AbstractContextManager:
  """Context manager (and decorator) under which leaked traced values raise (`jit` checks that
  nothing it traced is still alive once it is traced)."""
  return _set_option("check_tracer_leaks", True)
