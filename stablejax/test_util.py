"""Helpers for testing transformations numerically: finite differences, batching against a
Python loop, random inputs."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from typing import Any, Callable, Sequence

import numpy as np

from stablejax import config, core, dtypes, lax, runtime
from stablejax.api import jvp, vjp, vmap
from stablejax.tree_util import tree_flatten, tree_leaves, tree_map


@contextlib.contextmanager
def x64(enabled: bool = True):
  """Temporarily set `enable_x64`."""
  prev = config.enable_x64
  config.update("enable_x64", enabled)
  try:
    yield
  finally:
    config.update("enable_x64", prev)


JAX_FOLLOWED = (0, 10, 2)


def after_jax_followed(jax_version: str) -> bool:
  """Whether `jax_version` (e.g. `jax.__version__`) is newer than JAX 0.10.2, whose names and
  semantics stablejax follows; tests against a newer JAX allow for its documented changes."""
  return tuple(int(p) for p in jax_version.split(".")[:3]) > JAX_FOLLOWED


def run_on_cpu_devices(test_file: str, n: int = 8) -> subprocess.CompletedProcess:
  """Run `test_file`'s tests but its subprocess runner again in a fresh process with `n` CPU
  devices (`STABLEJAX_NUM_CPU_DEVICES`, and XLA's flag for JAX beside it)."""
  env = dict(os.environ, STABLEJAX_NUM_CPU_DEVICES=str(n),
             XLA_FLAGS=f"--xla_force_host_platform_device_count={n}", JAX_PLATFORMS="cpu")
  return subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                         "-n", "0", test_file, "-k", "not subprocess"],
                        capture_output=True, text=True, env=env, timeout=600)


def lax_primitives() -> list[core.Primitive]:
  """Every primitive that `stablejax.lax` and `stablejax.lax.linalg` export: the built-in
  primitives but for `add_any` (`ad.add_jaxvals_p`), which lives in the AD interpreter."""
  names = [*vars(lax).values(), *vars(lax.linalg).values()]
  return list(dict.fromkeys(v for v in names if isinstance(v, core.Primitive)))


def rand(rng: np.random.Generator, shape: Sequence[int], dtype=np.float32) -> np.ndarray:
  """Random values of `dtype`: normals for floats, small integers for ints, coin flips for bools."""
  dtype = np.dtype(dtype)
  if dtype == np.bool_:
    return rng.random(shape) < 0.5
  if dtype.kind in "iu":
    lo = 0 if dtype.kind == "u" else -5
    return rng.integers(lo, 6, size=shape).astype(dtype)
  if dtype.kind == "c":
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
  return rng.standard_normal(shape).astype(dtype)


# The least tolerance for 32-bit floats on a platform whose float32 matmuls and convolutions
# round more than the CPU's (TF32 on NVIDIA GPUs: about 2e-4 relative seen on an H100).
_FLOAT32_FLOOR = {"cuda": 1e-3, "rocm": 1e-3, "tpu": 1e-2}


def _tol(dtype, rtol, atol):
  wide = np.dtype(dtype) in (np.float64, np.complex128)
  default = 1e-5 if wide else 2e-3
  rtol, atol = (default if rtol is None else rtol), (default if atol is None else atol)
  floor = 0.0 if wide else _FLOAT32_FLOOR.get(runtime.platform_of(runtime.default_device()), 0.0)
  return max(rtol, floor), max(atol, floor)


def check_close(actual: Any, expected: Any, rtol: float | None = None,
                atol: float | None = None) -> None:
  """Assert numerical closeness with dtype-aware default tolerances (pytrees allowed)."""
  a_leaves, a_tree = tree_flatten(actual)
  e_leaves, e_tree = tree_flatten(expected)
  if a_tree != e_tree:
    raise AssertionError(f"tree structures differ: {a_tree} vs {e_tree}")
  for a, e in zip(a_leaves, e_leaves):
    a, e = np.asarray(a), np.asarray(e)
    if a.shape != e.shape:
      raise AssertionError(f"shapes differ: {a.shape} vs {e.shape}")
    r, t = _tol(a.dtype, rtol, atol)
    np.testing.assert_allclose(a.astype(np.result_type(a, np.float32)),
                               e.astype(np.result_type(e, np.float32)), rtol=r, atol=t)


def numerical_jvp(f: Callable, primals: Sequence, tangents: Sequence, eps: float = 1e-4) -> Any:
  """Central finite difference of `f` at `primals` in direction `tangents`."""
  plus = f(*[np.asarray(p) + eps * np.asarray(t) for p, t in zip(primals, tangents)])
  minus = f(*[np.asarray(p) - eps * np.asarray(t) for p, t in zip(primals, tangents)])
  return tree_map(lambda a, b: (np.asarray(a) - np.asarray(b)) / (2 * eps), plus, minus)


def check_jvp(f: Callable, primals: Sequence, eps: float = 1e-4, rtol: float = 1e-3,
              atol: float = 1e-3, seed: int = 0) -> None:
  """Compare `jvp(f)` with central finite differences along a random tangent (use float64
  inputs under `x64()` for tight tolerances)."""
  rng = np.random.default_rng(seed)
  tangents = [rand(rng, np.shape(p), np.asarray(p).dtype) for p in primals]
  _, t_out = jvp(f, tuple(primals), tuple(tangents))
  check_close(t_out, numerical_jvp(f, primals, tangents, eps), rtol=rtol, atol=atol)


def check_vmap(f: Callable, args: Sequence, in_axes: Sequence[int | None],
               rtol: float | None = None, atol: float | None = None) -> None:
  """Compare `vmap(f, in_axes)` with a Python loop over the mapped axis, stacking at axis 0."""
  size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
  looped = [f(*[a if ax is None else np.take(np.asarray(a), i, axis=ax)
                for a, ax in zip(args, in_axes)]) for i in range(size)]
  expected = tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *looped)
  check_close(vmap(f, in_axes=tuple(in_axes))(*args), expected, rtol=rtol, atol=atol)


def _random_like(rng: np.random.Generator, x: Any) -> np.ndarray:
  x = np.asarray(x)
  return rand(rng, x.shape, x.dtype if dtypes.kind(x.dtype) in "fc" else np.float64)


def _conj(x: Any) -> Any:
  return np.conj(x) if np.iscomplexobj(x) else x


def _inner(a: Any, b: Any) -> float:
  """Re <a, b> = Re sum(conj(a) b): the real inner product of complex values seen as pairs."""
  return sum(float(np.real(np.vdot(np.asarray(x, np.complex128), np.asarray(y, np.complex128))))
             for x, y in zip(tree_leaves(a), tree_leaves(b)))


def check_grads(f: Callable, args: Sequence, order: int = 2,
                modes: Sequence[str] = ("fwd", "rev"), eps: float = 1e-4,
                rtol: float | None = None, atol: float | None = None, seed: int = 0) -> None:
  """Check derivatives of `f` at `args` up to `order` against finite differences: forward mode
  (`jvp`) against central differences along a random direction, and reverse mode (`vjp`) by the
  identity <ct, J t> = <J^T ct, t> with J t from finite differences. Higher orders check the
  derivative functions themselves. Use float64 inputs under `x64()` for tight tolerances."""
  unknown = set(modes) - {"fwd", "rev"}
  if unknown:
    raise ValueError(f"check_grads modes must be 'fwd' and/or 'rev', got {sorted(unknown)}")
  rng = np.random.default_rng(seed)
  args = tuple(args)
  if rtol is None or atol is None:  # JAX's gradient tolerances: loose in float32, tight in 64
    wide = all(np.asarray(a).dtype in (np.float64, np.complex128) for a in args)
    rtol = (1e-5 if wide else 2e-2) if rtol is None else rtol
    atol = (1e-5 if wide else 2e-2) if atol is None else atol
  tangents = tuple(_random_like(rng, a) for a in args)
  expected_t = numerical_jvp(f, args, tangents, eps)
  if "fwd" in modes:
    _, t_out = jvp(f, args, tangents)
    check_close(t_out, expected_t, rtol=rtol, atol=atol)
    if order > 1:
      check_grads(lambda *xs: jvp(f, xs, tangents)[1], args, order - 1, ("fwd",), eps, rtol,
                  atol, seed + 1)
  if "rev" in modes:
    out, f_vjp = vjp(f, *args)
    ct = tree_map(lambda o: _random_like(rng, o), out)
    # JAX's convention: conj(vjp(conj(ct))) is the adjoint of J for Re <., .>
    cts_in = tree_map(_conj, f_vjp(tree_map(_conj, ct)))
    lhs, rhs = _inner(ct, expected_t), _inner(cts_in, tangents)
    if abs(lhs - rhs) > atol + rtol * max(abs(lhs), abs(rhs)):
      raise AssertionError(f"reverse-mode check failed: <ct, J t> = {lhs} (finite differences) "
                           f"but <J^T ct, t> = {rhs}")
    if order > 1:
      check_grads(lambda *xs: vjp(f, *xs)[1](ct), args, order - 1, ("rev",), eps, rtol,
                  atol, seed + 1)
