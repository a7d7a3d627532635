"""IREE as a second backend (the extra `stablejax[iree]`): the same lowering and passes, compiled by
IREE for llvm-cpu and run by its runtime. Programs (the issue's six, the whole-program tests'),
control flow, grad and vmap give the XLA backend's results; the `iree` lowering platform's rules
(cholesky and triangular_solve in plain StableHLO) run for real; errors are clear."""
from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402
import test_jax_programs  # noqa: E402  (the whole-program tests' definitions)
import test_programs  # noqa: E402
from stablejax import core, lax, lowering, runtime  # noqa: E402
from stablejax.lowering import hlo  # noqa: E402
from stablejax.lowering.registry import MissingLoweringRule  # noqa: E402
from stablejax.runtime import iree  # noqa: E402

f32 = np.float32


@pytest.fixture
def iree_default():
  """`sj.config.default_backend` is "iree" during the test."""
  sj.config.update("default_backend", "iree")
  try:
    yield
  finally:
    sj.config.update("default_backend", "xla")


def check_same(got, want, rtol=1e-5, atol=1e-5):
  """The same tree of Arrays: types, weak types, shapes and (to float tolerance) values."""
  got_leaves, got_tree = sj.tree_util.tree_flatten(got)
  want_leaves, want_tree = sj.tree_util.tree_flatten(want)
  assert got_tree == want_tree
  for i, (a, b) in enumerate(zip(got_leaves, want_leaves)):
    assert type(a) is runtime.Array, f"leaf {i}: {type(a)}"
    assert (a.dtype, a.shape, a.weak_type) == (b.dtype, b.shape, b.weak_type), f"leaf {i}"
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol,
                               err_msg=f"leaf {i}")


def both(f, *args, rtol=1e-5, atol=1e-5, **kwargs):
  """`f` jitted on IREE gives what it gives on XLA; the IREE result."""
  got = sj.jit(f, backend="iree")(*args, **kwargs)
  check_same(got, sj.jit(f)(*args, **kwargs), rtol, atol)
  return got


# ----------------------------------------------------------------------------------------------
# The six programs: an MLP, its grad, fori_loop, cond, scan, vmap of a dot

def mlp(params, x):
  for w, b in params[:-1]:
    x = jnp.tanh(x @ w + b)
  w, b = params[-1]
  return jnp.mean((x @ w + b) ** 2)


def mlp_params(rng, sizes=(8, 16, 16, 4)):
  return [(rng.standard_normal((m, n)).astype(f32) / np.sqrt(m), np.zeros(n, f32))
          for m, n in zip(sizes[:-1], sizes[1:])]


@pytest.mark.slow
def test_mlp_and_its_grad(rng):
  params, x = mlp_params(rng), rng.standard_normal((5, 8)).astype(f32)
  both(mlp, params, x)
  grads = both(sj.grad(mlp), params, x)
  assert isinstance(grads, list) and isinstance(grads[0], tuple)  # pytrees out as for XLA
  both(sj.value_and_grad(mlp, argnums=(0, 1)), params, x)


def test_fori_loop(rng):
  both(lambda x: lax.fori_loop(0, 10, lambda i, c: c * 0.9 + jnp.sin(c) * 0.1 + i, x),
       rng.standard_normal(6).astype(f32))


@pytest.mark.slow
def test_cond(rng):
  def f(p, x):
    return lax.cond(p > 0, lambda x: jnp.cos(x) * 2, lambda x: -x, x)
  x = rng.standard_normal(4).astype(f32)
  for p in (f32(1), f32(-1)):
    both(f, p, x)
  both(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], x), np.int32(2), x)


def test_scan(rng):
  def cumulative(xs):
    return lax.scan(lambda c, x: (c * 0.5 + x, jnp.tanh(c)), jnp.zeros(3, f32), xs)
  both(cumulative, rng.standard_normal((7, 3)).astype(f32))


def test_vmap_of_a_dot(rng):
  both(sj.vmap(jnp.dot), rng.standard_normal((4, 3, 5)).astype(f32),
       rng.standard_normal((4, 5, 2)).astype(f32))
  both(sj.vmap(jnp.dot, in_axes=(None, 0)), rng.standard_normal((3, 5)).astype(f32),
       rng.standard_normal((6, 5)).astype(f32))


@pytest.mark.slow
def test_while_loop_grad_of_scan_and_vmap_of_cond(rng):
  x = rng.standard_normal(5).astype(f32)
  both(lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (0, x)),
       x)
  both(sj.grad(lambda x: lax.scan(lambda c, v: (c * v + 1., None), 1., x)[0]), x)
  both(sj.vmap(lambda p, v: lax.cond(p > 0, jnp.sin, jnp.cos, v)), x, x)


def test_pytrees_weak_types_and_dtypes(rng):
  def f(d, n):
    return {"sum": d["a"].sum() * 2, "n": n + 1, "half": d["b"] / 2, "mask": d["a"] > 0}
  d = {"a": rng.standard_normal(3).astype(f32), "b": np.arange(4, dtype=np.int32)}
  out = both(f, d, 1.5)
  assert out["n"].weak_type and out["mask"].dtype == np.bool_


def test_results_are_arrays_on_the_default_device(rng):
  out = sj.jit(jnp.sin, backend="iree")(rng.standard_normal(3).astype(f32))
  assert type(out) is runtime.Array and out.device == runtime.default_device()
  assert runtime.get_backend("iree").result_device() == runtime.default_device()
  # they mix with every other value, eager and jitted on XLA
  np.testing.assert_allclose(np.asarray(sj.jit(jnp.cos)(out) + out),
                             np.cos(np.asarray(out)) + np.asarray(out), rtol=1e-6)


def test_repeated_calls_take_the_dispatch_fast_path(rng):
  f = sj.jit(lambda x, y: x * y + 1, backend="iree")
  x = sj.device_put(rng.standard_normal(4).astype(f32))
  first = f(x, x)
  assert f._hit is not None
  for _ in range(3):
    np.testing.assert_array_equal(np.asarray(f(x, x)), np.asarray(first))


# ----------------------------------------------------------------------------------------------
# The whole-program tests on both backends

@pytest.mark.slow
def test_programs_of_test_programs(rng):
  for name, (make, make_args) in sorted(test_programs.PROGRAMS.items()):
    fn, args = make(sj, jnp), make_args(np.random.default_rng(0))
    if name == "train_step":  # jitted inside: the default backend picks IREE
      want = fn(*args)
      sj.config.update("default_backend", "iree")
      try:
        got = fn(*args)
      finally:
        sj.config.update("default_backend", "xla")
      check_same(got, want, rtol=1e-4, atol=1e-5)
    else:
      both(fn, *args, rtol=1e-4, atol=1e-5)


JAX_PROGRAMS = ["mlp_classifier", "kernel_regression", "scan_rnn", "pendulum", "vae",
                "bayesian_logistic_regression", "gaussian_process"]


@pytest.mark.slow
@pytest.mark.parametrize("name", JAX_PROGRAMS)
def test_programs_of_test_jax_programs(name):
  """Each program with every `jit` inside on IREE (eager operations stay on XLA) gives the XLA
  run's results."""
  program = getattr(test_jax_programs, name)
  want = program(test_jax_programs.SJ)
  sj.config.update("default_backend", "iree")
  try:
    got = program(test_jax_programs.SJ)
  finally:
    sj.config.update("default_backend", "xla")
  check_same(got, want, rtol=2e-4, atol=2e-4)


# ----------------------------------------------------------------------------------------------
# The API: jit(backend=), Lowered.compile(backend=, target=), config.default_backend

def test_lowered_compile_with_iree(rng):
  x = rng.standard_normal((3, 4)).astype(f32)
  lowered = sj.jit(lambda x: (jnp.exp(x), x.sum(axis=0))).lower(x)
  assert lowered.platform == "cpu"
  compiled = lowered.compile(backend="iree", target="llvm-cpu")
  check_same(compiled(x), lowered.compile()(x))
  assert "sync func @main(%input0: tensor<3x4xf32>)" in compiled.as_text()
  with pytest.raises(TypeError, match="argument 0 has type f32\\[4,3\\]"):
    compiled.executable(x.T)


def test_other_iree_targets_pass_through(rng):
  x = rng.standard_normal(5).astype(f32)
  compiled = sj.jit(jnp.tanh).lower(x).compile(backend="iree", target="vmvx")
  assert compiled.executable.target == "vmvx"
  np.testing.assert_allclose(np.asarray(compiled(x)), np.tanh(x), rtol=1e-6)


def test_a_jit_for_iree_lowers_for_the_iree_platform(rng):
  x = rng.standard_normal((3, 3)).astype(f32)
  spd = x @ x.T + 3 * np.eye(3, dtype=f32)
  lowered = sj.jit(lax.linalg.cholesky, backend="iree").lower(spd)
  assert lowered.platform == "iree" and "custom_call" not in lowered.as_text()
  np.testing.assert_allclose(np.asarray(lowered.compile()(spd)), np.linalg.cholesky(spd),
                             rtol=1e-5)


def test_config_default_backend(rng, iree_default):
  x = rng.standard_normal((2, 3)).astype(f32)
  f = sj.jit(lambda x: jnp.tanh(x) @ x.T)
  assert f.lower(x).platform == "iree"
  assert isinstance(f.lower(x).compile().executable, iree.IreeExecutable)
  np.testing.assert_allclose(np.asarray(f(x)), np.tanh(x) @ x.T, rtol=1e-5)
  assert sj.jit(jnp.sin, backend="xla").lower(x).platform == "cpu"


def test_unknown_backends_are_named():
  with pytest.raises(ValueError, match="unknown backend 'tvm'; known backends: xla, iree"):
    sj.jit(jnp.sin, backend="tvm")
  with pytest.raises(ValueError, match="unknown backend 'tvm'"):
    sj.config.update("default_backend", "tvm")
  assert sj.config.default_backend == "xla"


def test_the_backend_interface_compiles_one_module_text_with_both(rng):
  x = rng.standard_normal(4).astype(f32)
  text = sj.jit(lambda x: jnp.sort(x) * 2).lower(x).as_text()
  outs = [runtime.get_backend(name).compile(text)(x) for name in ("xla", "iree")]
  assert [type(o[0]) for o in outs] == [runtime.Array, runtime.Array]
  np.testing.assert_allclose(np.asarray(outs[1][0]), np.asarray(outs[0][0]), rtol=1e-6)
  assert runtime.get_backend("iree").platform() == "iree"
  assert runtime.get_backend("xla").platform() == "cpu"


# ----------------------------------------------------------------------------------------------
# The `iree` lowering platform: a rule per platform, cholesky and triangular_solve

def test_a_rule_registered_for_iree_overrides_the_default(rng):
  prim = core.Primitive("iree_probe")
  prim.def_abstract_eval(lambda x: x)
  lowering.register_lowering(prim, lambda ctx, x: [hlo.negate(x)])
  lowering.register_lowering(prim, lambda ctx, x: [hlo.sine(x)], platform="iree")
  x = rng.standard_normal(3).astype(f32)
  assert "stablehlo.sine" in sj.jit(prim.bind).lower(x, platform="iree").as_text()
  assert "stablehlo.negate" in sj.jit(prim.bind).lower(x, platform="cpu").as_text()
  np.testing.assert_allclose(np.asarray(sj.jit(prim.bind, backend="iree")(x)), np.sin(x),
                             rtol=1e-6)
  np.testing.assert_allclose(np.asarray(sj.jit(prim.bind)(x)), -x)


def spd(rng, *shape):
  x = rng.standard_normal((*shape, shape[-1])).astype(f32)
  return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=f32)


@pytest.mark.slow
@pytest.mark.parametrize("batch", [(), (3,)])
def test_cholesky_runs_on_iree_without_lapack(rng, batch):
  a = spd(rng, *batch, 5)
  cpu = sj.jit(lax.linalg.cholesky).lower(a).as_text()
  ours = sj.jit(lax.linalg.cholesky).lower(a, platform="iree").as_text()
  assert "lapack_spotrf_ffi" in cpu
  assert "custom_call" not in ours and "stablehlo.cholesky" not in ours
  assert "stablehlo.while" in ours
  both(lax.linalg.cholesky, a, rtol=1e-5, atol=1e-5)
  both(jnp.linalg.cholesky, a, rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_triangular_solve_runs_on_iree(rng, left_side, lower, transpose_a):
  a = spd(rng, 2, 4)
  b = rng.standard_normal((2, 4, 3) if left_side else (2, 3, 4)).astype(f32)
  for unit_diagonal in (False, True):
    both(lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
        unit_diagonal=unit_diagonal), a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_a_gaussian_process_solve_and_its_grad_run_on_iree(rng):
  k, y = spd(rng, 6), rng.standard_normal(6).astype(f32)

  def log_likelihood(k, y):
    factor = lax.linalg.cholesky(k)
    alpha = lax.linalg.triangular_solve(factor, y[:, None], left_side=True, lower=True)
    return -0.5 * jnp.sum(alpha ** 2) - jnp.sum(jnp.log(jnp.diagonal(factor)))
  both(log_likelihood, k, y, rtol=1e-4, atol=1e-4)
  both(sj.grad(log_likelihood), k, y, rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------------------------
# Errors

def test_a_construct_iree_rejects_names_the_primitive(rng):
  # geqrf (qr's Householder step) lowers to a custom_call everywhere but on cpu/gpu
  def qr(x):
    return jnp.linalg.qr(x)
  x = rng.standard_normal((4, 3)).astype(f32)
  with pytest.raises(iree.IreeCompileError,
                     match=r"(?s)IREE could not compile the module jit_qr for target 'llvm-cpu'"
                           r".*built by the lowering rule of primitive 'geqrf'.*custom_call"
                           r".*platform='iree'"):
    sj.jit(qr, backend="iree")(x)
  assert issubclass(iree.IreeCompileError, runtime.CompileError)


def test_a_primitive_without_a_rule_for_iree_is_a_lowering_error(rng):
  x = spd(rng, 3)
  with pytest.raises(MissingLoweringRule, match="'eigh' on platform 'iree'"):
    sj.jit(lambda x: jnp.linalg.eigh(x), backend="iree")(x)


def test_the_missing_extra_names_the_install_command(monkeypatch, rng):
  monkeypatch.setitem(sys.modules, "iree.compiler", None)
  assert not iree.available()
  with pytest.raises(ImportError, match=r"pip install stablejax\[iree\]"):
    sj.jit(lambda x: x * 3 - 1, backend="iree")(rng.standard_normal(2).astype(f32))
