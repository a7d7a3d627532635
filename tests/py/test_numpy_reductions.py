"""stablejax.numpy reductions, statistics, logic and products against JAX 0.10.2: values,
dtypes, shapes and weak types, eagerly, under jit, vmap and grad."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, test_util

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

F32, I32, BOOL, C64 = np.float32, np.int32, np.bool_, np.complex64


def rand(shape, dtype=F32, seed=0):
  return test_util.rand(np.random.default_rng(seed), shape, dtype)


def with_nans(x, seed=1):
  x = np.array(x)
  x[np.random.default_rng(seed).random(x.shape) < 0.3] = np.nan
  return x


def _leaves(x):
  return x if isinstance(x, tuple) else (x,)


def _cross_as_in_0_10_2(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
  """jax.numpy.cross as JAX 0.10.2 (which stablejax follows) defines it for 2-vectors: a
  2-vector is a 3-vector with a zero z-component, and two 2-vectors give that z-component. JAX
  deprecated 2-vectors in 0.11 and removed them in 0.12 (so did NumPy 2.5); 3-vectors are
  computed by the installed JAX."""
  if axis is not None:
    axisa = axisb = axisc = axis
  a, b = jjnp.moveaxis(a, axisa, -1), jjnp.moveaxis(b, axisb, -1)
  if 2 not in (a.shape[-1], b.shape[-1]):
    return jjnp.moveaxis(jjnp.cross(a, b), -1, axisc)
  c = jjnp.cross(*[jjnp.concatenate([x, jjnp.zeros_like(x[..., :1])], -1)
                   if x.shape[-1] == 2 else x for x in (a, b)])
  return c[..., 2] if a.shape[-1] == b.shape[-1] == 2 else jjnp.moveaxis(c, -1, axisc)


# jax.numpy functions whose semantics changed after 0.10.2, as 0.10.2 defines them
AS_IN_0_10_2 = {"cross": _cross_as_in_0_10_2}


def _jax(name: str):
  """jax.numpy.`name`, as JAX 0.10.2 defines it when the installed JAX changed it."""
  if test_util.after_jax_followed(jax.__version__) and name in AS_IN_0_10_2:
    return AS_IN_0_10_2[name]
  return getattr(jjnp, name)


def check(name, *args, rtol=None, atol=None, jit=True, **kwargs):
  """jnp.`name` agrees with jax.numpy.`name` in value, dtype, shape and weak type, eagerly and
  under jit."""
  expected = _jax(name)(*args, **kwargs)
  fn = getattr(jnp, name)
  outs = [fn(*args, **kwargs)]
  if jit:
    outs.append(sj.jit(lambda *a: fn(*a, **kwargs))(*args))
  for out in outs:
    for got, want in zip(_leaves(out), _leaves(expected)):
      aval = core.get_aval(got)
      assert (aval.dtype, aval.shape) == (want.dtype, want.shape), (name, aval, want.aval)
      assert aval.weak_type == want.aval.weak_type, (name, aval, want.aval)
      if want.dtype == np.bool_ or want.dtype.kind in "iu":
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
      else:
        test_util.check_close(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------------
# sum/prod/max/min/any/all with where= and initial=

AXES = [None, 0, 1, (0, 2), -1]


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "amax", "amin", "any", "all",
                                  "mean", "ptp", "count_nonzero"])
@pytest.mark.slow
@pytest.mark.parametrize("dtype", [F32, I32, BOOL, np.uint8, np.int8, np.float16])
def test_basic_reductions(name, dtype):
  x = rand((2, 3, 4), dtype)
  if name == "ptp" and dtype == BOOL:
    return  # JAX: boolean subtract is a TypeError
  for axis in AXES:
    check(name, x, axis=axis)
  check(name, x, axis=1, keepdims=True)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "any", "all"])
def test_scalar_inputs_and_weak_types(name):
  for x in (2.0, 3, True, np.float32(1.5)):
    check(name, x)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", [F32, I32, BOOL])
def test_where_and_initial(name, dtype):
  x = rand((3, 4), dtype)
  where = rand((3, 4), BOOL, seed=5)
  check(name, x, axis=1, where=where, initial=2)
  check(name, x, where=where[0], initial=1)
  check(name, x, axis=0, initial=0, keepdims=True)
  if name in ("sum", "prod"):
    check(name, x, axis=1, where=where)


@pytest.mark.parametrize("name", ["mean", "any", "all", "var", "std", "nanmean", "nansum"])
def test_where(name):
  x = rand((3, 4), F32)
  where = rand((3, 4), BOOL, seed=7)
  where[:, 0] = True
  check(name, x, axis=1, where=where)
  check(name, x, where=where)


def test_dtype_arguments():
  x = rand((3, 4), I32)
  check("sum", x, dtype=np.float32)
  check("sum", x, promote_integers=False)
  check("sum", rand((3,), np.int8), promote_integers=False)
  check("prod", rand((3,), np.uint8))
  check("mean", x, dtype=np.float16)
  check("sum", rand((5,), np.float16), dtype=np.float16)


def test_complex():
  z = rand((3, 4), C64)
  for name in ["sum", "prod", "mean", "var", "std", "any", "all", "count_nonzero"]:
    check(name, z, axis=0)


def test_errors():
  with pytest.raises(ValueError, match="identity"):
    jnp.max(np.ones(3, F32), where=np.ones(3, bool))
  with pytest.raises(ValueError, match="zero-size"):
    jnp.min(np.ones((0, 2), F32), axis=0)
  with pytest.raises(ValueError, match="boolean"):
    jnp.sum(np.ones(3, F32), where=np.ones(3, F32))
  with pytest.raises(ValueError, match="scalar"):
    jnp.sum(np.ones(3, F32), initial=np.ones(2, F32))
  with pytest.raises(NotImplementedError, match="out"):
    jnp.sum(np.ones(3, F32), out=np.ones(()))
  with pytest.raises(ValueError, match="ddof and correction"):
    jnp.var(np.ones(3, F32), ddof=1, correction=1)


def test_empty_reductions():
  check("sum", np.ones((0, 3), F32), axis=0)
  check("max", np.ones((0, 3), F32), axis=0, initial=-1.0)
  check("any", np.ones((0, 3), BOOL), axis=0)
  check("all", np.ones((0, 3), BOOL), axis=0)


# ----------------------------------------------------------------------------------------------
# var, std, average

@pytest.mark.slow
@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", [F32, I32, np.float16])
def test_var_std(name, dtype):
  x = rand((3, 4, 2), dtype)
  for axis in AXES:
    check(name, x, axis=axis)
  check(name, x, axis=1, ddof=1, keepdims=True)
  check(name, x, axis=0, correction=1.5)
  check(name, x, axis=1, ddof=4)  # count - ddof <= 0: NaN
  check(name, x, axis=1, dtype=np.float32)
  check(name, 2.0)


def test_var_with_mean():
  x = rand((3, 4))
  m = np.mean(x, axis=1, keepdims=True)
  check("var", x, axis=1, mean=m)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_gradient_rounds_as_jax(name):
  """var and std are jitted functions, as JAX's: a gradient through them (a batch norm's) sums
  their cotangents inside the call first, so it is JAX's bit for bit, under jit and eagerly."""
  x, w = rand((16, 8, 8, 4)), rand((16, 8, 8, 4), seed=2)

  def bn(fns):
    def f(x):
      m = fns.mean(x, (0, 1, 2), keepdims=True)
      s = getattr(fns, name)(x, axis=[0, 1, 2], keepdims=True)
      inv = fns.reciprocal(s + 1e-3)
      return ((x * inv - m * inv) * w).sum()
    return f
  want = jax.grad(bn(jjnp))(x)
  np.testing.assert_array_equal(sj.grad(bn(jnp))(x), want)
  np.testing.assert_array_equal(sj.jit(sj.grad(bn(jnp)))(x), jax.jit(jax.grad(bn(jjnp)))(x))


def test_average():
  x = rand((3, 4))
  w = np.abs(rand((3, 4), seed=2)) + 0.1
  check("average", x)
  check("average", x, axis=1, weights=w)
  check("average", x, axis=1, weights=w[0], returned=True)
  check("average", x, axis=0, weights=w[:, 0], keepdims=True, returned=True)
  check("average", rand((2, 3, 4), I32), axis=(0, 2), weights=np.ones((2, 4), I32))
  check("average", x, axis=(1, 0), weights=w.T, returned=True)
  check("average", x, returned=True)
  with pytest.raises(ValueError, match="Axis must be specified"):
    jnp.average(x, weights=w[0])
  with pytest.raises(ValueError, match="consistent"):
    jnp.average(x, axis=0, weights=w[0])


# ----------------------------------------------------------------------------------------------
# NaN-ignoring reductions

NAN_FUNCS = ["nanmax", "nanmin", "nansum", "nanprod", "nanmean", "nanvar", "nanstd",
             "nanargmax", "nanargmin"]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAN_FUNCS)
def test_nan_reductions(name):
  x = with_nans(rand((3, 4, 5)))
  x[0, :, 0] = np.nan  # an all-NaN slice along axis 1
  for axis in [None, 0, 1, -1]:
    check(name, x, axis=axis)
  check(name, x, axis=1, keepdims=True)
  check(name, rand((3, 4), I32), axis=0)


@pytest.mark.slow
def test_nan_reduction_options():
  x = with_nans(rand((3, 4)))
  where = rand((3, 4), BOOL, seed=4)
  check("nansum", x, axis=1, initial=1.0, where=where)
  check("nanmax", x, axis=1, initial=-10.0)
  check("nanvar", x, axis=1, ddof=1)
  check("nanstd", x, axis=0, dtype=np.float32)
  check("nanmean", x, axis=0, dtype=np.float32)


# ----------------------------------------------------------------------------------------------
# argmax/argmin signatures, methods

def test_argmax_keepdims_and_out():
  x = rand((3, 4))
  check("argmax", x, axis=1, keepdims=True)
  check("argmin", x, None, None, True, jit=False)


# ----------------------------------------------------------------------------------------------
# Transformations

GRAD_CASES = {
    "sum": dict(axis=1), "prod": dict(axis=0), "max": dict(axis=1), "mean": dict(),
    "var": dict(axis=0, ddof=1), "std": dict(axis=1), "ptp": dict(axis=1),
    "nansum": dict(axis=1), "nanmean": dict(axis=0), "nanvar": dict(axis=1),
    "average": dict(axis=1, weights=np.array([1., 2., 3., 4.], F32)),
    "sum_where": dict(axis=1, where=np.array([True, False, True, True])),
    "max_initial": dict(axis=0, initial=0.5),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_grad_matches_jax(case):
  name, kwargs = case.split("_")[0], GRAD_CASES[case]
  x = rand((3, 4), seed=3)
  f = lambda mod: lambda v: mod.sum(getattr(mod, name)(v, **kwargs))  # noqa: E731
  test_util.check_close(sj.grad(f(jnp))(x), jax.grad(f(jjnp))(x))


@pytest.mark.parametrize("name", ["sum", "max", "any", "var", "nanmax", "nanargmin", "average",
                                  "count_nonzero", "ptp"])
def test_vmap(name):
  x = with_nans(rand((5, 3, 4))) if name.startswith("nan") else rand((5, 3, 4))
  f = lambda mod: lambda v: getattr(mod, name)(v, axis=1)  # noqa: E731
  out = sj.vmap(f(jnp))(x)
  expected = jax.vmap(f(jjnp))(x)
  assert out.dtype == expected.dtype
  test_util.check_close(out, expected)


def test_logical_reduction_lowers_to_reduce_and_or():
  x = rand((3, 4), BOOL)
  assert "stablehlo.or" in sj.jit(lambda v: jnp.any(v, axis=0)).lower(x).as_text()
  assert "stablehlo.and" in sj.jit(lambda v: jnp.all(v)).lower(x).as_text()
  jaxpr = str(sj.make_jaxpr(lambda v: jnp.any(v, axis=0))(x))
  assert "reduce_or[axes=(0,)]" in jaxpr


# ----------------------------------------------------------------------------------------------
# Products

PRODUCT_CASES = [
    ("vdot", [(3, 4), (12,)]), ("vdot", [(5,), (5,)]),
    ("inner", [(2, 3), (4, 3)]), ("inner", [(3,), ()]), ("inner", [(2, 5, 3), (3,)]),
    ("outer", [(3,), (2, 2)]), ("kron", [(2, 3), (3, 2)]), ("kron", [(2,), (3, 2, 2)]),
    ("tensordot", [(2, 3, 4), (3, 4, 5)]), ("cross", [(4, 3), (4, 3)]),
    ("cross", [(4, 2), (2,)]), ("cross", [(3,), (4, 2)]), ("trace", [(3, 4)]),
    ("trace", [(2, 3, 4)]), ("vecdot", [(2, 3, 4), (3, 4)]),
]


@pytest.mark.parametrize("name,shapes", PRODUCT_CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("dtype", [F32, I32, C64])
def test_products(name, shapes, dtype):
  args = [rand(s, dtype, seed=i) for i, s in enumerate(shapes)]
  check(name, *args)


@pytest.mark.slow
def test_product_options():
  a, b = rand((2, 3, 4)), rand((4, 3, 5), I32, 1)
  check("tensordot", a, b, axes=([1, 2], [1, 0]))
  check("tensordot", a, b, axes=(2, 0))
  check("tensordot", a, b, axes=0)
  check("tensordot", a, b, axes=1, preferred_element_type=np.float32, precision="highest")
  check("trace", rand((3, 4, 5), np.int8), offset=1, axis1=2, axis2=0)
  check("trace", rand((3, 4)), offset=-2)
  check("trace", rand((3, 4)), dtype=np.int32)
  check("cross", rand((3, 5)), rand((3, 5), seed=1), axis=0)
  check("cross", rand((3, 4)), rand((4, 2), seed=1), axisa=0, axisc=0)
  check("vecdot", rand((3, 4)), rand((3, 1), seed=1), axis=0)
  check("inner", 2.0, rand((3,)))
  check("dot", rand((3, 4)), rand((4,), I32), precision=("high", "default"),
        preferred_element_type=np.float32)
  check("matmul", rand((2, 3, 4)), rand((4, 2)), precision="highest")
  check("einsum", "ij,jk->ik", rand((3, 4)), rand((4, 2)), precision="highest", jit=False)
  with pytest.raises(TypeError, match="exceeds input ranks"):
    jnp.tensordot(a, b, axes=4)
  with pytest.raises(ValueError, match="2 or 3"):
    jnp.cross(rand((4,)), rand((4,)))


@pytest.mark.parametrize("name,shapes", [c for c in PRODUCT_CASES if c[0] != "outer"][::2],
                         ids=lambda c: str(c))
def test_product_grads(name, shapes):
  args = [rand(s, seed=i) for i, s in enumerate(shapes)]
  argnums = tuple(range(len(args)))
  want = jax.grad(lambda *xs: jjnp.sum(_jax(name)(*xs)), argnums)(*args)
  test_util.check_close(sj.grad(lambda *xs: jnp.sum(getattr(jnp, name)(*xs)), argnums)(*args),
                        want)


def test_product_vmap():
  a, b = rand((5, 2, 3)), rand((5, 3))
  test_util.check_close(sj.vmap(jnp.vdot)(b, b), jax.vmap(jjnp.vdot)(b, b))
  for name in ["inner", "cross", "kron", "outer"]:
    test_util.check_close(sj.vmap(getattr(jnp, name))(a, b), jax.vmap(getattr(jjnp, name))(a, b))


def test_precision_in_jaxpr_and_lowering():
  x = rand((2, 3))
  f = lambda v: jnp.dot(v, v.T, precision="highest")  # noqa: E731
  text = str(sj.make_jaxpr(f)(x))
  assert text == str(jax.make_jaxpr(lambda v: jjnp.dot(v, v.T, precision="highest"))(x))
  assert "precision = [HIGHEST, HIGHEST]" in sj.jit(f).lower(x).as_text()
  g = lambda v: jnp.dot(v, v.T)  # noqa: E731
  assert "precision" not in str(sj.make_jaxpr(g)(x))
  assert "precision" not in sj.jit(g).lower(x).as_text()
  test_util.check_close(sj.grad(lambda v: jnp.sum(f(v)))(x), jax.grad(
      lambda v: jjnp.sum(jjnp.dot(v, v.T, precision="highest")))(x))
