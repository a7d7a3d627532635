"""The pipeline: one eager policy for every built-in primitive (compiled), control flow included."""
import functools

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, dispatch, lax, pipeline, runtime


@pytest.fixture
def executions(monkeypatch):
  """The primitives evaluated eagerly through the pipeline, and the executables compiled."""
  seen = {"applied": [], "compiled": 0}
  real_apply, real_compile = pipeline.apply_primitive, pipeline.compile

  def apply(prim, args, params):
    seen["applied"].append(prim.name)
    return real_apply(prim, args, params)

  def compile_(*args, **kwargs):
    seen["compiled"] += 1
    return real_compile(*args, **kwargs)

  monkeypatch.setattr(core.eval_trace, "compiled_eval", apply)
  monkeypatch.setattr(pipeline, "compile", compile_)
  return seen


def test_eager_while_loop_is_one_compiled_program(executions):
  out = lax.while_loop(lambda c: c < 1000, lambda c: c + 1, np.int32(0))
  assert int(out) == 1000 and type(out) is runtime.Array
  assert executions["applied"] == ["while"] and executions["compiled"] == 1


def test_eager_cond_and_scan_are_compiled(executions):
  assert float(lax.cond(np.float32(2.0) > 1, lambda x: x * 3, lambda x: -x, 2.0)) == 6.0
  carry, _ = lax.scan(lambda c, x: (c + x, c), 0.0, np.arange(5, dtype=np.float32))
  assert float(carry) == 10.0
  assert "cond" in executions["applied"] and "scan" in executions["applied"]


def test_an_eager_primitive_compiles_once_per_signature(executions):
  x = sj.device_put(np.ones(3, np.float32))
  for _ in range(3):
    lax.cos(x)
  assert executions["applied"] == ["cos"] * 3 and executions["compiled"] <= 1
  lax.cos(np.ones(4, np.float32))
  assert executions["compiled"] <= 2


def test_jax_numpy_elementwise_functions_run_through_jit_eagerly(executions):
  """jax.numpy's elementwise functions are jitted on concrete values (as JAX's): no eager
  primitive is applied, and each signature compiles once."""
  x = sj.device_put(np.ones(3, np.float32))
  for _ in range(3):
    np.testing.assert_array_equal(jnp.cos(x), np.cos(np.ones(3, np.float32)))
  assert executions["applied"] == [] and len(jnp.cos._cache) == 1


def test_a_user_primitive_compiles_eagerly_through_dispatch_apply_primitive():
  from stablejax.lowering import hlo, register_lowering
  p = core.Primitive("pipeline_negate")
  p.def_abstract_eval(lambda x: x)
  register_lowering(p, lambda ctx, x: [hlo.negate(x)])
  p.def_impl(functools.partial(dispatch.apply_primitive, p))
  out = p.bind(np.arange(3, dtype=np.float32))
  assert type(out) is runtime.Array and out.tolist() == [0.0, -1.0, -2.0]


def test_a_user_primitive_without_impl_is_not_evaluated_eagerly():
  p = core.Primitive("pipeline_nothing")
  p.def_abstract_eval(lambda x: x)
  with pytest.raises(NotImplementedError, match="Evaluation rule for 'pipeline_nothing' not "
                                                "implemented"):
    p.bind(1.0)
  with pytest.raises(NotImplementedError, match="'pipeline_nothing' not found for platform cpu"):
    sj.jit(p.bind)(1.0)


def test_stages_in_order():
  closed, closed_over = pipeline.trace(lambda x: [jnp.sin(x) + 0 * jnp.cos(x)],
                                       [core.ShapedArray((2,), np.float32)])
  assert closed_over == []
  assert [e.primitive.name for e in closed.eqns] == ["sin", "cos", "mul", "add"]
  module = pipeline.lower(closed, "f", "cpu")
  exe = pipeline.compile(module, runtime.default_device(), closed.out_avals)
  np.testing.assert_allclose(exe(np.ones(2, np.float32))[0], np.sin(np.ones(2)), rtol=1e-6)
  assert pipeline.executable(closed, "f") is pipeline.executable(closed, "f")


def test_eager_fast_path_follows_params_types_and_argument_kinds():
  """An eager primitive repeats its last call cheaply only when params, types and argument
  kinds are those of that call."""
  x = sj.device_put(np.arange(4, dtype=np.float32))
  i = sj.device_put(np.arange(4, dtype=np.int32))
  for _ in range(2):
    for y in (2, 3):
      np.testing.assert_array_equal(lax.integer_pow(x, y), np.arange(4.0) ** y)
      np.testing.assert_array_equal(lax.integer_pow(i, y), np.arange(4) ** y)
    np.testing.assert_array_equal(lax.integer_pow(np.arange(4.0, dtype=np.float32), 2),
                                  np.arange(4.0) ** 2)
  assert lax.integer_pow(i, 2).dtype == np.int32
  weak = lax.add(sj.device_put(2.0), sj.device_put(3.0))
  assert weak.weak_type and float(weak) == 5.0
  assert not lax.add(x[0], x[1]).weak_type


def test_an_eager_primitive_runs_once_per_call_under_debug_nans(monkeypatch):
  """With debug_nans on (no last call kept), each eager call still runs its executable once."""
  from stablejax.runtime import arguments
  runs = []
  real_caller = arguments.Signature.caller

  def counting_caller(self, run):
    return real_caller(self, lambda buffers: runs.append(1) or run(buffers))
  real_call = runtime.Executable.__call__
  monkeypatch.setattr(arguments.Signature, "caller", counting_caller)
  monkeypatch.setattr(runtime.Executable, "__call__",
                      lambda self, *args: runs.append(1) or real_call(self, *args))
  x = sj.device_put(np.ones(3, np.float32))
  with sj.debug_nans(True):
    for _ in range(3):
      np.testing.assert_array_equal(lax.cos(x), np.cos(np.ones(3, np.float32)))
  assert len(runs) == 3
