"""The Autodidax part 1-2 examples with their printed results, and the tracing machinery."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, lax
from stablejax.jaxpr import JaxprTypeError, Var, check_jaxpr, eval_jaxpr
from stablejax.test_util import check_close


def deriv(f):
  return lambda x: sj.jvp(f, (x,), (1.,))[1]


# ------------------------------------------------------------------------------------------
# Autodidax part 1 (x64 so the printed values match the seed's float64 output exactly)

def test_jvp_of_sin(x64):
  y, sin_deriv_at_3 = sj.jvp(lax.sin, (3.0,), (1.0,))
  assert str(sin_deriv_at_3) == "-0.9899924966004454"
  assert str(lax.cos(3.0)) == "-0.9899924966004454"


def test_jvp_of_composite(x64):
  def f(x):
    y = lax.sin(x) * 2.
    z = - y + x
    return z
  y, ydot = sj.jvp(f, (3.,), (1.,))
  assert str(y) == "2.7177599838802657"
  assert str(ydot) == "2.979984993200891"


def test_deriv_of_deriv_of_sin(x64):
  assert str(deriv(lax.sin)(3.)) == "-0.9899924966004454"
  assert str(deriv(deriv(lax.sin))(3.)) == "-0.1411200080598672"
  assert str(deriv(deriv(deriv(lax.sin)))(3.)) == "0.9899924966004454"
  assert str(deriv(deriv(deriv(deriv(lax.sin))))(3.)) == "0.1411200080598672"


def test_python_control_flow_under_jvp(x64):
  def f(x):
    if x > 0.:  # Python control flow
      return 2. * x
    else:
      return x
  assert str(deriv(f)(3.)) == "2.0"
  assert str(deriv(f)(-3.)) == "1.0"


def test_pytrees_in_and_out(x64):
  def f(x):
    y = lax.sin(x) * 2.
    z = - y + x
    return {'hi': z, 'there': [x, y]}
  y, ydot = sj.jvp(f, (3.,), (1.,))
  assert set(y) == {"hi", "there"} and len(y["there"]) == 2
  check_close(y, {'hi': 2.7177599838802657, 'there': [3.0, 0.2822400161197344]}, rtol=1e-15)
  check_close(ydot, {'hi': 2.979984993200891, 'there': [1.0, -1.9799849932008908]},
              rtol=1e-15)


def test_vmap_of_scalar_function():
  def add_one_to_a_scalar(scalar):
    assert np.ndim(scalar) == 0
    return 1 + scalar
  vector_in = np.arange(3.)
  vector_out = sj.vmap(add_one_to_a_scalar, (0,))(vector_in)
  assert str(np.asarray(vector_in)) == "[0. 1. 2.]"
  assert str(np.asarray(vector_out)) == "[1. 2. 3.]"


def test_jacfwd_of_sin():
  jac = sj.jacfwd(lambda x: lax.sin(x))(np.arange(3.))
  check_close(jac, np.diag(np.cos(np.arange(3.))))


def test_make_jaxpr_stages_constant_multiply():
  # Omnistaging: the multiply of two constants is staged, not evaluated at trace time.
  jaxpr = sj.make_jaxpr(lambda: lax.mul(2., 2.))()
  assert str(jaxpr) == "{ lambda ; . let a:f32[] = mul 2.0:f32[] 2.0:f32[] in (a,) }"


def test_make_jaxpr_of_scalar_function():
  assert str(sj.make_jaxpr(lambda x: 2. * x)(3.)) == \
      "{ lambda ; a:f32[]. let b:f32[] = mul 2.0:f32[] a in (b,) }"


# ------------------------------------------------------------------------------------------
# Composition of transformations

def f_vec(x):
  return jnp.sin(x) * jnp.cos(x) + x * x


def test_jvp_of_jvp_matches_second_derivative():
  x = np.float32(0.7)
  d2 = deriv(deriv(f_vec))(x)
  expected = -4 * np.sin(x) * np.cos(x) + 2
  check_close(d2, expected)


def test_vmap_of_jvp():
  xs = np.linspace(-1, 1, 5, dtype=np.float32)
  out = sj.vmap(deriv(f_vec))(xs)
  check_close(out, np.cos(2 * xs) + 2 * xs)


def test_jvp_of_vmap():
  xs = np.linspace(-1, 1, 5, dtype=np.float32)
  _, t = sj.jvp(sj.vmap(f_vec), (xs,), (np.ones_like(xs),))
  check_close(t, np.cos(2 * xs) + 2 * xs)


def test_vmap_of_vmap():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  y = np.arange(3, dtype=np.float32)
  out = sj.vmap(sj.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(1, 0))(x, y)
  check_close(out, (x * y).T)


def test_make_jaxpr_of_jvp_and_vmap_compose():
  jaxpr = sj.make_jaxpr(lambda x: sj.vmap(deriv(f_vec))(x))(np.ones(3, np.float32))
  check_jaxpr(jaxpr.jaxpr)
  out = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, np.arange(3, dtype=np.float32))
  check_close(out[0], np.cos(2 * np.arange(3.)) + 2 * np.arange(3.))


def test_closure_over_outer_tracer_is_a_constant():
  # The inner jvp sees x (a tracer of the outer jvp) as a constant: no perturbation confusion.
  def f(x):
    return deriv(lambda y: x * y)(2.0)
  check_close(deriv(f)(3.0), 1.0)


def test_nested_jvp_perturbation_confusion():
  # d/dx (x * d/dy (x + y)) = d/dx (x * 1) = 1
  out = deriv(lambda x: x * deriv(lambda y: x + y)(1.0))(2.0)
  check_close(out, 1.0)


# ------------------------------------------------------------------------------------------
# vmap axes

def test_vmap_in_axes_pytree_and_none():
  args = ({"a": np.ones((3, 2), np.float32), "b": np.arange(3, dtype=np.float32)},
          np.float32(2.0))
  out = sj.vmap(lambda d, s: d["a"].sum() * d["b"] * s, in_axes=({"a": 0, "b": 0}, None))(*args)
  check_close(out, 2 * 2 * np.arange(3.))


def test_vmap_negative_axes_and_out_axes():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  out = sj.vmap(lambda r: r * 2, in_axes=-1, out_axes=-1)(x)
  check_close(out, x * 2)
  out = sj.vmap(lambda r: r * 2, in_axes=1, out_axes=1)(x)
  check_close(out, x * 2)


def test_vmap_axis_size_without_mapped_inputs():
  out = sj.vmap(lambda s: s + 1.0, in_axes=None, axis_size=4)(np.float32(1.0))
  check_close(out, np.full(4, 2.0))


def test_vmap_unbatched_output_is_broadcast():
  out = sj.vmap(lambda x: 1.0, axis_size=3, in_axes=0)(np.ones(3))
  check_close(out, np.ones(3))


def test_vmap_bad_axis_names_argument():
  def f(x, y):
    return x + y
  with pytest.raises(ValueError, match="argument 'y' along axis 2.*shape is \\(3,\\)"):
    sj.vmap(f, in_axes=(0, 2))(np.ones(3), np.ones(3))


def test_vmap_inconsistent_sizes():
  with pytest.raises(ValueError, match="inconsistent sizes"):
    sj.vmap(lambda x, y: x + y)(np.ones(3), np.ones(4))


def test_vmap_in_axes_length_mismatch():
  with pytest.raises(ValueError, match="len\\(in_axes\\)=3, len\\(args\\)=2"):
    sj.vmap(lambda x, y: x + y, in_axes=(0, 0, 0))(np.ones(3), np.ones(3))


def test_vmap_in_axes_bad_type():
  with pytest.raises(TypeError, match="in_axes must be an int"):
    sj.vmap(lambda x: x, in_axes=1.5)(np.ones(3))


def test_vmap_out_axes_none_for_mapped_output():
  with pytest.raises(ValueError, match="out_axes is None"):
    sj.vmap(lambda x: x, out_axes=None)(np.ones(3))


# ------------------------------------------------------------------------------------------
# Errors

def test_bool_of_traced_value_explains():
  def f(x):
    return x if x > 0 else -x
  with pytest.raises(core.ConcretizationTypeError, match="lax.cond"):
    sj.make_jaxpr(f)(1.0)


def test_bool_under_vmap_explains():
  with pytest.raises(core.ConcretizationTypeError, match="jnp.where"):
    sj.vmap(lambda x: x if x > 0 else -x)(np.ones(3))


def test_leaked_tracer_is_reported():
  leaked = []

  def f(x):
    leaked.append(x)
    return x
  sj.jvp(f, (1.0,), (1.0,))
  with pytest.raises(core.UnexpectedTracerError, match="escaped"):
    lax.sin(leaked[0])
  with pytest.raises(core.UnexpectedTracerError):
    sj.make_jaxpr(lambda y: y + leaked[0])(1.0)


def test_leak_from_make_jaxpr_is_reported():
  leaked = []
  sj.make_jaxpr(lambda x: leaked.append(x) or x)(1.0)
  with pytest.raises(core.UnexpectedTracerError):
    sj.jvp(lambda y: y * leaked[0], (1.0,), (1.0,))


def test_numpy_conversion_of_tracer_is_an_error():
  with pytest.raises(core.TracerArrayConversionError, match="stablejax.numpy"):
    sj.make_jaxpr(lambda x: np.sin(x))(np.ones(3, np.float32))


def test_jvp_tree_mismatch():
  with pytest.raises(TypeError, match="same tree structure"):
    sj.jvp(lambda x, y: x, (1.0, 2.0), (1.0,))


def test_jvp_shape_mismatch():
  with pytest.raises(ValueError, match="equal shapes"):
    sj.jvp(lambda x: x, (np.ones(3, np.float32),), (np.ones(2, np.float32),))


def test_missing_rules_name_the_primitive():
  p = core.Primitive("my_prim")
  p.def_abstract_eval(lambda x: x)
  with pytest.raises(NotImplementedError, match="my_prim"):
    p.bind(1.0)
  p.def_impl(lambda x: x)
  with pytest.raises(NotImplementedError, match="Differentiation rule for 'my_prim'"):
    sj.jvp(p.bind, (1.0,), (1.0,))
  with pytest.raises(NotImplementedError, match="Batching rule for 'my_prim'"):
    sj.vmap(p.bind)(np.ones(3))


def test_trace_state_is_thread_local():
  import threading
  results = []

  def worker():
    results.append(core.current_trace() is core.eval_trace)

  def f(x):
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    return x
  sj.make_jaxpr(f)(1.0)
  assert results == [True]


def test_typecheck_catches_bad_jaxpr():
  jaxpr = sj.make_jaxpr(lambda x: lax.sin(x))(1.0).jaxpr
  bad = jaxpr.replace(eqns=jaxpr.eqns[::-1] + jaxpr.eqns)
  check_jaxpr(jaxpr)
  with pytest.raises(JaxprTypeError):
    check_jaxpr(bad.replace(outvars=[Var(core.ShapedArray((), np.float32))]))
