"""The persistent compilation cache: XLA executables kept on disk, so that another process
compiling the same module loads the executable instead of compiling it again. Off by default, as
JAX's: `sj.config.update("compilation_cache_dir", path)`, or the environment variable
STABLEJAX_COMPILATION_CACHE_DIR, turns it on.

Each entry is one file named by its key in that directory: a short header, then the serialized
executable (`LoadedExecutable.serialize()`, the same call on jaxlib 0.10 to 0.12) compressed
with zlib, whose checksum finds damaged entries. The key is the sha256 of the module as compiled
(MLIR text, its locations left out as JAX leaves out metadata: a function moved to other lines
hits; or bytecode), the platform, device kind and PJRT platform version, the jaxlib
version, the serialized compile options (the device assignment, so the number of devices, and
XLA's debug options, which carry XLA_FLAGS) and this cache's format version. Modules that call
Python host callbacks are never cached (`pjrt.compile` does not ask for them).

The cache never makes a compile fail: writes are atomic (a temporary file renamed over the
entry); an entry that cannot be read, or a directory that cannot be written, warns once and the
module is compiled (and its entry written again). `stats` counts hits, misses and writes, for
tests and the benchmark.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import warnings
import zlib
from typing import Any, Callable, Sequence

import jaxlib.version

from stablejax.config import config

FORMAT_VERSION = 1
_HEADER = b"stablejax compilation cache %d\n" % FORMAT_VERSION
_JAXLIB_VERSION = jaxlib.version.__version__

stats: dict[str, int] = {"hits": 0, "misses": 0, "writes": 0}
_warned: set[str] = set()


# a location (`loc(...)`, one level of nested parentheses: `loc("f"(#loc3))`) and an alias line
_LOCATION = re.compile(r' loc\((?:[^()"]|"[^"]*"|\((?:[^()"]|"[^"]*")*\))*\)|^#loc.*\n?', re.M)


def cache_key(module: str | bytes, device: Any, options: Any) -> str:
  """The name of the entry of `module` compiled for `device` with `options` (CompileOptions)."""
  if isinstance(module, str):
    module = _LOCATION.sub("", module)
  parts = (_HEADER, module, device.platform, device.device_kind, device.client.platform_version,
           _JAXLIB_VERSION, options.SerializeAsString())
  h = hashlib.sha256()
  for part in parts:
    data = part.encode() if isinstance(part, str) else part
    h.update(len(data).to_bytes(8, "little"))  # the lengths keep the parts apart
    h.update(data)
  return h.hexdigest()


def get_or_compile(module: str | bytes, devices: Sequence[Any], options: Any,
                   compile_fn: Callable[[], Any]) -> Any:
  """The executable of `module` on `devices` (a DeviceList) compiled with `options`: loaded from
  the cache when it is on and holds it, else `compile_fn()` (then stored when the cache is on)."""
  directory = config.compilation_cache_dir
  if directory is None:
    return compile_fn()
  path = os.path.join(directory, cache_key(module, devices[0], options))
  exe = _read(path, devices, options)
  if exe is not None:
    stats["hits"] += 1
    return exe
  stats["misses"] += 1
  exe = compile_fn()
  _write(directory, path, exe)
  return exe


def _read(path: str, devices: Sequence[Any], options: Any) -> Any | None:
  """The executable stored at `path`; None when there is none or it cannot be used (warned)."""
  try:
    with open(path, "rb") as f:
      data = f.read()
  except (FileNotFoundError, NotADirectoryError):  # no entry (a bad directory warns on write)
    return None
  except OSError as e:
    _warn_once(path, f"cannot read the compilation cache entry {path} ({e}); compiling")
    return None
  try:
    if not data.startswith(_HEADER):
      raise ValueError("no stablejax cache header")
    blob = zlib.decompress(data[len(_HEADER):])
    return devices[0].client.deserialize_executable(blob, devices, options)
  except Exception as e:  # noqa: BLE001 -- a bad entry is compiled again, never an error
    _warn_once(path, f"ignoring the corrupt compilation cache entry {path} "
                     f"({type(e).__name__}: {e}); compiling and writing it again")
    return None


def _write(directory: str, path: str, exe: Any) -> None:
  """Store `exe` at `path` atomically (a temporary file renamed); warns once when it cannot."""
  tmp = None
  try:
    data = _HEADER + zlib.compress(exe.serialize(), 1)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
      f.write(data)
    os.replace(tmp, path)
  except Exception as e:  # noqa: BLE001 -- a cache that cannot be written never fails a compile
    if tmp is not None:
      with contextlib.suppress(OSError):
        os.unlink(tmp)
    _warn_once(directory, f"cannot write to the compilation cache directory {directory!r} "
                          f"({type(e).__name__}: {e}); compiling without the cache")
    return
  stats["writes"] += 1


def _warn_once(what: str, message: str) -> None:
  if what not in _warned:
    _warned.add(what)
    warnings.warn(message)
