"""Convolutions against JAX: conv_general_dilated in 1-D, 2-D and 3-D with strides, dilations,
padding modes, groups and layouts, under jit, vmap and grad; finite differences, the numpy
reference, the lowering, the wrappers and errors."""
import jax
import numpy as np
import pytest

import stablejax as sj
from stablejax import lax, test_util
from stablejax.lax import primitive_kit

F32 = np.float32

# lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
# feature_group_count, batch_group_count
CASES = {
    "2d_nchw_same_rhs_dilated": ((2, 3, 9, 8), (4, 3, 3, 2), (1, 2), "SAME", None, (2, 1),
                                 None, 1, 1),
    "2d_nhwc_pairs_lhs_dilated": ((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), ((1, 2), (0, -1)), (1, 2),
                                  None, ("NHWC", "HWIO", "NHWC"), 1, 1),
    "1d_feature_groups": ((2, 4, 9), (6, 2, 3), (1,), "VALID", None, None, None, 2, 1),
    "1d_batch_groups_same_lower": ((4, 3, 9), (6, 3, 3), (1,), "SAME_LOWER", None, None,
                                   ("NCH", "OIH", "NCH"), 1, 2),
    "3d_ndhwc": ((2, 5, 6, 7, 2), (3, 3, 2, 2, 4), (1, 1, 2), "SAME", None, None,
                 ("NHWDC", "HWDIO", "NHWDC"), 1, 1),
    "2d_mixed_layout_depthwise": ((2, 7, 3, 6), (3, 1, 2, 3), (1, 1), "VALID", None, None,
                                  ("NHCW", "HIWO", "NWCH"), 3, 1),
}


# Cases whose first compilations take seconds.
PARAMS = [pytest.param(c, marks=pytest.mark.slow) if "batch_groups" in c else c for c in CASES]


def _fn(module, case):
  _, _, *params = CASES[case]
  return lambda x, w: module.conv_general_dilated(x, w, *params)


def _args(rng, case, dtype=F32):
  lhs_shape, rhs_shape = CASES[case][:2]
  return test_util.rand(rng, lhs_shape, dtype), test_util.rand(rng, rhs_shape, dtype)


@pytest.mark.parametrize("case", CASES)
def test_values(case, rng):
  x, w = _args(rng, case)
  f, g = _fn(lax, case), _fn(jax.lax, case)
  expected = np.asarray(g(x, w))
  out = f(x, w)
  assert out.shape == expected.shape and out.dtype == expected.dtype
  test_util.check_close(out, expected)
  test_util.check_close(sj.jit(f)(x, w), expected)
  (eqn,) = sj.make_jaxpr(f)(x, w).jaxpr.eqns
  test_util.check_close(primitive_kit.evaluate_reference(eqn.primitive, x, w, **eqn.params),
                        expected)


@pytest.mark.parametrize("case", PARAMS)
@pytest.mark.parametrize("in_axes", [(0, None), (None, 1), (1, 0)])
def test_vmap(case, in_axes, rng):
  x, w = _args(rng, case)
  xs = np.stack([x, 2 * x], in_axes[0]) if in_axes[0] is not None else x
  ws = np.stack([w, -w], in_axes[1]) if in_axes[1] is not None else w
  test_util.check_close(sj.vmap(_fn(lax, case), in_axes)(xs, ws),
                        jax.vmap(_fn(jax.lax, case), in_axes)(xs, ws))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_grads(case, rng):
  x, w = _args(rng, case)
  f, g = _fn(lax, case), _fn(jax.lax, case)
  ct = rng.standard_normal(np.shape(g(x, w))).astype(F32)
  loss = lambda conv: lambda x, w: (conv(x, w) * ct).sum()  # noqa: E731
  expected = jax.grad(loss(g), (0, 1))(x, w)
  test_util.check_close(sj.grad(loss(f), (0, 1))(x, w), expected, rtol=1e-4, atol=1e-4)
  test_util.check_close(sj.jit(sj.grad(loss(f), (0, 1)))(x, w), expected, rtol=1e-4,
                        atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["2d_nhwc_pairs_lhs_dilated", "1d_feature_groups",
                                  "1d_batch_groups_same_lower"])
def test_check_grads(case, rng):
  with test_util.x64():
    x, w = _args(rng, case, np.float64)
    test_util.check_grads(_fn(lax, case), (x, w), order=2)


def test_vmap_of_grad(rng):
  x, w = _args(rng, "1d_feature_groups")
  xs = np.stack([x, x + 1])
  loss = lambda conv: lambda w, x: (conv(x, w) ** 2).sum()  # noqa: E731
  test_util.check_close(
      sj.vmap(sj.grad(loss(_fn(lax, "1d_feature_groups"))), (None, 0))(w, xs),
      jax.vmap(jax.grad(loss(_fn(jax.lax, "1d_feature_groups"))), (None, 0))(w, xs),
      rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.complex64])
def test_dtypes(dtype, rng):
  x, w = _args(rng, "2d_nchw_same_rhs_dilated", dtype)
  f, g = _fn(lax, "2d_nchw_same_rhs_dilated"), _fn(jax.lax, "2d_nchw_same_rhs_dilated")
  out, expected = f(x, w), np.asarray(g(x, w))
  assert out.dtype == expected.dtype
  test_util.check_close(out, expected, rtol=1e-2 if dtype == np.float16 else None)


def test_preferred_element_type_and_precision(rng):
  x = test_util.rand(rng, (1, 2, 5), np.int8)
  w = test_util.rand(rng, (3, 2, 2), np.int8)
  f = lambda m: m.conv_general_dilated(x, w, (1,), "VALID", precision="highest",  # noqa: E731
                                       preferred_element_type=np.int32)
  out = f(lax)
  assert out.dtype == np.int32
  test_util.check_close(out, f(jax.lax))


def test_lowering(rng):
  x, w = _args(rng, "2d_nhwc_pairs_lhs_dilated")
  text = sj.jit(_fn(lax, "2d_nhwc_pairs_lhs_dilated")).lower(x, w).as_text()
  assert "stablehlo.convolution" in text
  assert "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" in text
  assert "pad = [[1, 2], [0, -1]], lhs_dilate = [1, 2]" in text
  f = lambda x, w: lax.conv(x, w, (1, 1), "VALID", precision=lax.Precision.HIGHEST)  # noqa
  text = sj.jit(f).lower(np.ones((1, 2, 4, 4), F32), np.ones((3, 2, 2, 2), F32)).as_text()
  assert "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]" \
      in text


def test_jaxpr_params_match_jax(rng):
  x, w = _args(rng, "2d_nhwc_pairs_lhs_dilated")
  (eqn,) = sj.make_jaxpr(_fn(lax, "2d_nhwc_pairs_lhs_dilated"))(x, w).jaxpr.eqns
  (jeqn,) = jax.make_jaxpr(_fn(jax.lax, "2d_nhwc_pairs_lhs_dilated"))(x, w).jaxpr.eqns
  for name in ("window_strides", "padding", "lhs_dilation", "rhs_dilation",
               "feature_group_count", "batch_group_count"):
    assert eqn.params[name] == jeqn.params[name], name
  assert tuple(eqn.params["dimension_numbers"]) == tuple(jeqn.params["dimension_numbers"])


@pytest.mark.parametrize("spec", [None, ("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC"),
                                  ("NWHC", "OHWI", "CNHW")])
def test_conv_dimension_numbers(spec):
  shape = (1, 2, 3, 4)
  got = lax.conv_dimension_numbers(shape, shape, spec)
  assert isinstance(got, lax.ConvDimensionNumbers)
  assert tuple(got) == tuple(jax.lax.conv_dimension_numbers(shape, shape, spec))


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 0), (2, 1))])
@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose(padding, transpose_kernel, rng):
  x = rng.standard_normal((2, 5, 6, 3)).astype(F32)
  w = rng.standard_normal((3, 2, 3, 4) if not transpose_kernel else (3, 2, 4, 3)).astype(F32)
  f = lambda m: m.conv_transpose(x, w, (2, 1), padding,  # noqa: E731
                                 transpose_kernel=transpose_kernel)
  test_util.check_close(f(lax), f(jax.lax))
  g = lambda m: m.conv_transpose(x, w, (2, 1), padding, rhs_dilation=(1, 2),  # noqa: E731
                                 transpose_kernel=transpose_kernel,
                                 use_consistent_padding=True)
  test_util.check_close(g(lax), g(jax.lax))


def test_conv_and_general_padding(rng):
  x = rng.standard_normal((2, 3, 7, 6)).astype(F32)
  w = rng.standard_normal((4, 3, 2, 3)).astype(F32)
  test_util.check_close(lax.conv(x, w, (2, 1), "SAME"), jax.lax.conv(x, w, (2, 1), "SAME"))
  args = (x, w, (1, 2), ((1, 1), (0, 2)), (2, 1), (1, 2))
  test_util.check_close(lax.conv_with_general_padding(*args),
                        jax.lax.conv_with_general_padding(*args))


@pytest.mark.parametrize("dn", [None, ("NHWC", "OIHW", "NCHW")])
def test_conv_general_dilated_patches(dn, rng):
  shape = (2, 3, 6, 5) if dn is None else (2, 6, 5, 3)
  x = rng.standard_normal(shape).astype(F32)
  f = lambda m: m.conv_general_dilated_patches(x, (2, 3), (1, 2), "SAME",  # noqa: E731
                                               dimension_numbers=dn)
  test_util.check_close(f(lax), f(jax.lax))


@pytest.mark.parametrize("lhs_shape, rhs_shape, kwargs, error", [
    ((1, 3, 5), (2, 3, 2, 2), {}, TypeError),
    ((1, 3, 5), (2, 2, 2), {}, ValueError),
    ((1, 4, 5), (3, 2, 2), {"feature_group_count": 2}, ValueError),
    ((3, 4, 5), (4, 4, 2), {"batch_group_count": 2}, ValueError),
    ((1, 4, 5), (4, 4, 2), {"padding": "SAME", "lhs_dilation": (2,)}, ValueError),
    ((1, 4, 5), (4, 4, 2), {"dimension_numbers": ("NCH", "OIW", "NCH")}, TypeError),
])
def test_errors(lhs_shape, rhs_shape, kwargs, error):
  kwargs = {"padding": "VALID", **kwargs}
  x, w = np.ones(lhs_shape, F32), np.ones(rhs_shape, F32)
  with pytest.raises(error, match="conv|padding|Unknown"):
    lax.conv_general_dilated(x, w, (1,) * (len(rhs_shape) - 2), **kwargs)
  with pytest.raises(error):
    jax.lax.conv_general_dilated(x, w, (1,) * (len(rhs_shape) - 2), **kwargs)


def test_mixed_dtypes_error():
  with pytest.raises(TypeError, match="conv_general_dilated requires arguments to have the "
                     "same dtypes"):
    lax.conv(np.ones((1, 1, 3), F32), np.ones((1, 1, 2), np.float16), (1,), "VALID")


def test_out_sharding_lays_out_the_result_as_jax():
  # (flax.nnx's Conv passes out_sharding=None; a NamedSharding lays the result out)
  x = np.arange(2 * 3 * 6, dtype=F32).reshape(2, 3, 6)
  w = np.ones((4, 3, 3), F32)

  def run(lib):
    mesh = lib.make_mesh((1,), ("x",), axis_types=(lib.sharding.AxisType.Explicit,))
    s = lib.sharding.NamedSharding(mesh, lib.sharding.PartitionSpec("x"))
    conv = lambda out_sharding: lib.lax.conv_general_dilated(  # noqa: E731
        x, w, (1,), "SAME", out_sharding=out_sharding)
    with lib.set_mesh(mesh):
      jitted = lib.jit(lambda: conv(s))()
      return conv(None), jitted, jitted.sharding.spec, str(lib.typeof(jitted))

  ours, theirs = run(sj), run(jax)
  np.testing.assert_array_equal(ours[0], theirs[0])
  np.testing.assert_array_equal(ours[1], theirs[1])
  assert tuple(ours[2]) == tuple(theirs[2]) == ("x", None, None)
  assert ours[3] == "f32[2@x,4,6]" and theirs[3] == "float32[2@x,4,6]"
