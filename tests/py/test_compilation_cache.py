"""The persistent compilation cache (stablejax/runtime/compilation_cache.py): off by default; on,
a second process compiling the same module loads the entry the first wrote, and computes the
same; keys differ by module, platform, jaxlib version and device assignment; corrupt entries and
unwritable directories warn and compile; host-callback modules are never cached."""
import json
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest
from jaxlib import xla_client

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import runtime
from stablejax.runtime import compilation_cache, pjrt

ENV = "STABLEJAX_COMPILATION_CACHE_DIR"

# One jitted program; prints the cache's stats and the result as JSON.
PROGRAM = """
import json, numpy as np
import stablejax as sj, stablejax.numpy as jnp
from stablejax.runtime import compilation_cache
f = sj.jit(lambda w, x: jnp.tanh(x @ w).sum(axis=0))
w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
print(json.dumps({"dir": sj.config.compilation_cache_dir, "stats": compilation_cache.stats,
                  "result": np.asarray(f(w, x)).tolist()}))
"""


def _mlp_like(w, x):
  return jnp.tanh(x @ w).sum(axis=0)


def _run_program(cwd: pathlib.Path, cache_dir: str | None) -> dict:
  env = {k: v for k, v in os.environ.items() if k != ENV}
  if cache_dir is not None:
    env[ENV] = cache_dir
  out = subprocess.run([sys.executable, "-c", PROGRAM], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=300)
  assert out.returncode == 0, out.stderr
  return json.loads(out.stdout.strip().splitlines()[-1])


def _entries(directory: pathlib.Path) -> list[pathlib.Path]:
  return sorted(p for p in directory.iterdir() if not p.name.startswith("."))


@pytest.fixture
def cache(tmp_path):
  """The cache turned on in a fresh directory for this test; stats counted from zero."""
  saved_dir, saved_stats = sj.config.compilation_cache_dir, dict(compilation_cache.stats)
  directory = tmp_path / "cache"
  sj.config.update("compilation_cache_dir", directory)
  compilation_cache.stats.update(hits=0, misses=0, writes=0)
  yield directory
  sj.config.update("compilation_cache_dir", saved_dir)
  compilation_cache.stats.update(saved_stats)


def _text(fun, *args) -> str:
  return sj.jit(fun).lower(*args).as_text()


W = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)


@pytest.mark.slow
def test_off_by_default_writes_nothing(tmp_path):
  got = _run_program(tmp_path, None)
  assert got["dir"] is None
  assert got["stats"] == {"hits": 0, "misses": 0, "writes": 0}
  assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_second_process_reads_the_entry(tmp_path):
  directory = tmp_path / "cache"
  first = _run_program(tmp_path, str(directory))
  assert first["dir"] == str(directory)
  assert first["stats"] == {"hits": 0, "misses": 1, "writes": 1}
  assert len(_entries(directory)) == 1
  second = _run_program(tmp_path, str(directory))
  assert second["stats"] == {"hits": 1, "misses": 0, "writes": 0}
  assert len(_entries(directory)) == 1
  want = np.tanh(X @ W).sum(axis=0)
  np.testing.assert_allclose(first["result"], want, rtol=1e-6)
  assert second["result"] == first["result"]


def test_hit_runs_like_a_fresh_compile(cache):
  text = _text(_mlp_like, W, X)
  fresh = runtime.compile_module(text)
  cached = runtime.compile_module(text)
  assert compilation_cache.stats == {"hits": 1, "misses": 1, "writes": 1}
  assert (cached.in_avals, cached.out_avals) == (fresh.in_avals, fresh.out_avals)
  assert cached._loaded.as_text() == fresh._loaded.as_text()
  np.testing.assert_array_equal(np.asarray(cached(W, X)[0]), np.asarray(fresh(W, X)[0]))


def test_a_function_moved_to_other_lines_hits(cache):
  """Compiled modules carry their source lines (XLA's op metadata); the key leaves them out, as
  JAX's leaves out metadata, so moving a function does not compile it again."""
  def f(w, x):
    return jnp.tanh(x @ w).sum(axis=0)
  first = f

  def f(w, x):  # noqa: F811  (the same function, on other lines)
    return jnp.tanh(x @ w).sum(axis=0)
  assert "test_compilation_cache.py" in sj.jit(first).lower(W, X).compile().as_text()
  assert compilation_cache.stats == {"hits": 0, "misses": 1, "writes": 1}
  np.testing.assert_allclose(sj.jit(f)(W, X), np.tanh(X @ W).sum(axis=0), rtol=1e-6)
  assert compilation_cache.stats == {"hits": 1, "misses": 1, "writes": 1}


def _options(n: int = 1):
  options = xla_client.CompileOptions()
  options.device_assignment = xla_client.DeviceAssignment.create(np.zeros((n, 1), np.int32))
  return options


def test_keys_differ_by_module_platform_version_and_devices(monkeypatch):
  device = pjrt.default_device()
  a, b = _text(_mlp_like, W, X), _text(lambda w, x: jnp.sin(x @ w), W, X)
  key = compilation_cache.cache_key(a, device, _options())
  assert key == compilation_cache.cache_key(a, device, _options())
  other_platform = types.SimpleNamespace(platform="cuda", device_kind=device.device_kind,
                                         client=device.client)
  other_kind = types.SimpleNamespace(platform=device.platform, device_kind="other",
                                     client=device.client)
  others = [compilation_cache.cache_key(b, device, _options()),
            compilation_cache.cache_key(a, other_platform, _options()),
            compilation_cache.cache_key(a, other_kind, _options()),
            compilation_cache.cache_key(a.encode(), device, _options(2))]
  monkeypatch.setattr(compilation_cache, "_JAXLIB_VERSION", "0.0.0")
  others.append(compilation_cache.cache_key(a, device, _options()))
  assert len({key, *others}) == 1 + len(others)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_corrupt_entry_warns_and_is_rewritten(cache, damage):
  text = _text(_mlp_like, W, X)
  runtime.compile_module(text)
  (entry,) = _entries(cache)
  data = entry.read_bytes()
  entry.write_bytes({"garbage": b"\x00not an executable" * 8, "truncated": data[:len(data) // 2],
                     "empty": b""}[damage])
  with pytest.warns(UserWarning, match="corrupt compilation cache entry"):
    exe = runtime.compile_module(text)
  np.testing.assert_allclose(np.asarray(exe(W, X)[0]), np.tanh(X @ W).sum(axis=0), rtol=1e-6)
  assert compilation_cache.stats == {"hits": 0, "misses": 2, "writes": 2}
  runtime.compile_module(text)  # the entry was written again
  assert compilation_cache.stats["hits"] == 1


def test_unwritable_directory_warns_and_compiles(tmp_path):
  saved = sj.config.compilation_cache_dir
  not_a_dir = tmp_path / "file"
  not_a_dir.write_text("")
  sj.config.update("compilation_cache_dir", not_a_dir / "cache")
  try:
    with pytest.warns(UserWarning, match="cannot write to the compilation cache directory"):
      exe = runtime.compile_module(_text(_mlp_like, W, X))
  finally:
    sj.config.update("compilation_cache_dir", saved)
  np.testing.assert_allclose(np.asarray(exe(W, X)[0]), np.tanh(X @ W).sum(axis=0), rtol=1e-6)


def test_host_callback_modules_are_not_cached(cache):
  f = sj.jit(lambda x: sj.pure_callback(np.sin, sj.ShapeDtypeStruct(x.shape, x.dtype), x) * 2)
  np.testing.assert_allclose(np.asarray(f(X)), np.sin(X) * 2, rtol=1e-6)
  assert compilation_cache.stats == {"hits": 0, "misses": 0, "writes": 0}
  assert not cache.exists() or _entries(cache) == []


def test_config_option_validates_its_value(tmp_path):
  saved = sj.config.compilation_cache_dir
  try:
    with pytest.raises(TypeError, match="'compilation_cache_dir' takes a directory path"):
      sj.config.update("compilation_cache_dir", 3)
    sj.config.update("compilation_cache_dir", tmp_path)
    assert sj.config.compilation_cache_dir == str(tmp_path)
    sj.config.update("compilation_cache_dir", "")
    assert sj.config.compilation_cache_dir is None
    sj.config.update("compilation_cache_dir", None)
    assert sj.config.compilation_cache_dir is None
  finally:
    sj.config.update("compilation_cache_dir", saved)
