"""The staging API against JAX: ShapeDtypeStruct, eval_shape, jit(f).trace, make_jaxpr with
return_shape, jacobian, block_until_ready, device_get, and small Array/numpy behaviours."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lowering, pipeline


def f(x, y):
  return {"a": x @ y, "b": (x.sum(),)}


def _shapes(tree):
  return [(tuple(s.shape), np.dtype(s.dtype)) for s in jax.tree.leaves(tree)]


def test_eval_shape_matches_jax():
  args = (np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))
  got = sj.eval_shape(f, sj.ShapeDtypeStruct((2, 3), jnp.float32), args[1])
  want = jax.eval_shape(f, jax.ShapeDtypeStruct((2, 3), jjnp.float32), args[1])
  assert _shapes(got) == _shapes(want)
  assert sj.tree.structure(got) == sj.tree.structure({"a": 0, "b": (0,)})


def test_trace_lower_and_compile_from_shape_dtype_structs():
  s, t = sj.ShapeDtypeStruct((2, 3), np.float32), sj.ShapeDtypeStruct((3, 4), np.float32)
  traced = sj.jit(f).trace(s, t)
  assert "dot_general" in str(traced.jaxpr) and "reduce_sum" in str(traced.jaxpr)
  assert _shapes(traced.out_info) == [((2, 4), np.float32), ((), np.float32)]
  assert "stablehlo.dot_general" in traced.lower().as_text()
  out = sj.jit(f).lower(s, t).compile()(np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))
  np.testing.assert_array_equal(out["a"], np.full((2, 4), 3., np.float32))


def test_weak_type_shape_dtype_struct():
  s = sj.ShapeDtypeStruct((), np.float32, weak_type=True)
  assert sj.make_jaxpr(lambda x: x * 2)(s).jaxpr.invars[0].aval.weak_type


def test_make_jaxpr_return_shape():
  jaxpr, shape = sj.make_jaxpr(jnp.sin, return_shape=True)(np.ones(3, np.float32))
  assert "sin" in str(jaxpr) and shape == sj.ShapeDtypeStruct((3,), np.float32)


def test_jacobian_block_until_ready_device_get():
  x = np.linspace(0., 1., 3).astype(np.float32)
  np.testing.assert_allclose(sj.jacobian(jnp.sin)(x), jax.jacobian(jjnp.sin)(x), rtol=1e-6)
  tree = {"a": jnp.ones(2), "b": [1, jnp.zeros(())]}
  assert sj.block_until_ready(tree) is tree
  got = sj.device_get(tree)
  assert type(got["a"]) is np.ndarray and got["b"][0] == 1


def test_block_until_ready_names_a_deleted_array():
  gone = jnp.ones(2)
  gone.delete()
  with pytest.raises(RuntimeError, match=r"the Array \(an Array of type f32\[2\]\) has been "
                     "deleted"):
    sj.block_until_ready({"a": jnp.zeros(3), "b": gone})


def test_format_power_and_dot_errors():
  assert f"{jnp.array(3.14159):.2f}" == f"{jjnp.array(3.14159):.2f}" == "3.14"
  np.testing.assert_array_equal(2 ** jnp.arange(4), 2 ** jjnp.arange(4))
  with pytest.raises(TypeError):
    jnp.dot(jnp.ones(3), jnp.ones(4))
  with pytest.raises(TypeError):
    jjnp.dot(jjnp.ones(3), jjnp.ones(4))
  np.testing.assert_array_equal(jnp.array([jnp.ones(2), jnp.zeros(2)]), [[1, 1], [0, 0]])


@pytest.fixture
def lowerings(monkeypatch):
  """The modules lowered (calls of `lowering.lower_jaxpr`) and those compiled (the text of
  each module `pipeline.compile` is given)."""
  seen = {"lowered": 0, "compiled": []}
  real_lower, real_compile = lowering.lower_jaxpr, pipeline.compile

  def lower(*args, **kwargs):
    seen["lowered"] += 1
    return real_lower(*args, **kwargs)

  def compile_(module, *args, **kwargs):
    seen["compiled"].append(lowering.module_text(module))
    return real_compile(module, *args, **kwargs)

  monkeypatch.setattr(lowering, "lower_jaxpr", lower)
  monkeypatch.setattr(pipeline, "compile", compile_)
  return seen


def _backends():
  try:
    import iree.compiler, iree.runtime  # noqa: F401,E401
  except ImportError:
    return [{}]
  return [{}, {"backend": "iree"}]


@pytest.mark.parametrize("platforms", [None, ("cpu", "cuda")])
@pytest.mark.parametrize("compile_args", _backends())
def test_compile_compiles_the_lowered_module_without_lowering_again(lowerings, platforms,
                                                                    compile_args):
  """`jit(f).lower(x).compile()` lowered the program twice: `compile` lowered it again and
  ignored its own module. It compiles the module `as_text()` shows, for one platform of
  several or with IREE as well, and only once."""
  if platforms and compile_args:
    pytest.skip("IREE compiles a module lowered for one platform")
  x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)

  def g(x):  # a fresh function: no cached trace or executable
    return jnp.sin(x) * 2 + x.sum()

  lowered = sj.jit(g).lower(x, platforms=platforms)
  assert lowerings["lowered"] == 1
  compiled = lowered.compile(**compile_args)
  assert lowered.compile(**compile_args) is compiled
  np.testing.assert_allclose(np.asarray(compiled(x)), np.sin(x) * 2 + x.sum(), rtol=1e-6)
  assert lowerings["lowered"] == 1 and lowerings["compiled"] == [lowered.as_text()]
  assert lowerings["lowered"] == 1  # (as_text() without debug info prints the module)


def test_compile_for_a_platform_the_module_was_not_lowered_for_is_an_error():
  lowered = sj.jit(jnp.sin).lower(np.ones(3, np.float32))
  with pytest.raises(ValueError, match="lowered for cpu, not cuda; lower it for platform='cuda'"):
    lowered.compile(target="cuda")
