"""stablejax.ffi against jax.ffi's semantics: C++ kernels of the typed XLA FFI built with g++ at
test time (once per module), registered with `register_ffi_target` and called with `ffi_call`
eagerly, under jit, vmap (each vmap_method) and scan; a primitive of one's own lowering to a
kernel, with JVP, transpose and batching rules; attributes, two results, side effects; errors."""
import ctypes
import functools
import os
import shutil
import subprocess

import numpy as np
import pytest

import stablejax as sj
import stablejax.ffi
from stablejax import core, dispatch, lax, passes, pipeline
from stablejax.interpreters import ad, batching
from stablejax.lowering import aval_to_ir_type, custom_call, register_lowering

KERNELS = r"""
#include <cstdint>
#include <string_view>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

// y = alpha * x
static ffi::Error ScaleImpl(ffi::Buffer<ffi::F32> x, float alpha, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = alpha * x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleBy, ScaleImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>()
                              .Attr<float>("alpha").Ret<ffi::Buffer<ffi::F32>>());

// out = x + y, where y has x's rank and a leading dimension of 1 (broadcast) or x's.
static ffi::Error AddRowsImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                              ffi::ResultBuffer<ffi::F32> out) {
  auto xd = x.dimensions(), yd = y.dimensions();
  if (xd.size() != yd.size() || xd.size() == 0 || (yd[0] != 1 && yd[0] != xd[0]))
    return ffi::Error::InvalidArgument("add_rows: y must have x's rank, leading dim 1 or x's");
  size_t n = y.element_count();
  for (size_t i = 0; i < x.element_count(); ++i)
    out->typed_data()[i] = x.typed_data()[i] + y.typed_data()[i % n];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AddRows, AddRowsImpl, ffi::Ffi::Bind()
                              .Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
                              .Ret<ffi::Buffer<ffi::F32>>());

// y = x * scale + offset + sum(weights), only in mode "affine" (else an error).
static ffi::Error AttrsImpl(ffi::Buffer<ffi::F32> x, double scale, int64_t offset,
                            std::string_view mode, ffi::Span<const float> weights,
                            ffi::ResultBuffer<ffi::F32> y) {
  if (mode != "affine") return ffi::Error::InvalidArgument("attrs: unknown mode");
  float total = 0;
  for (float w : weights) total += w;
  for (size_t i = 0; i < x.element_count(); ++i)
    y->typed_data()[i] = x.typed_data()[i] * scale + offset + total;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Attrs, AttrsImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>()
                              .Attr<double>("scale").Attr<int64_t>("offset")
                              .Attr<std::string_view>("mode")
                              .Attr<ffi::Span<const float>>("weights")
                              .Ret<ffi::Buffer<ffi::F32>>());

// (x + y, x - y)
static ffi::Error SumDiffImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                              ffi::ResultBuffer<ffi::F32> s, ffi::ResultBuffer<ffi::F32> d) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    s->typed_data()[i] = x.typed_data()[i] + y.typed_data()[i];
    d->typed_data()[i] = x.typed_data()[i] - y.typed_data()[i];
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(SumDiff, SumDiffImpl, ffi::Ffi::Bind()
                              .Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
                              .Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// Counts its calls in a global the test reads; returns x.
static int64_t calls = 0;
extern "C" int64_t TickCount() { return calls; }
static ffi::Error TickImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  ++calls;
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Tick, TickImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>()
                              .Ret<ffi::Buffer<ffi::F32>>());
"""

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to build kernels")


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
  """The kernels, built once and registered as test_ffi_<name>."""
  tmp = tmp_path_factory.mktemp("ffi")
  (tmp / "kernels.cc").write_text(KERNELS)
  subprocess.run(["g++", "-std=c++17", "-O1", "-shared", "-fPIC", "-w", "-I",
                  sj.ffi.include_dir(), "-o", str(tmp / "kernels.so"), str(tmp / "kernels.cc")],
                 check=True)
  lib = ctypes.cdll.LoadLibrary(str(tmp / "kernels.so"))
  for name in ("ScaleBy", "AddRows", "Attrs", "SumDiff", "Tick"):
    sj.ffi.register_ffi_target(f"test_ffi_{name}", sj.ffi.pycapsule(getattr(lib, name)))
  lib.TickCount.restype = ctypes.c_int64
  return lib


def _x(*shape, seed=0):
  return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _scale(x, alpha=3.0, vmap_method=None):
  call = sj.ffi.ffi_call("test_ffi_ScaleBy", sj.ShapeDtypeStruct(x.shape, x.dtype),
                         vmap_method=vmap_method)
  return call(x, alpha=np.float32(alpha))


def _add_rows(x, y, vmap_method=None):
  call = sj.ffi.ffi_call("test_ffi_AddRows", sj.ShapeDtypeStruct(x.shape, x.dtype),
                         vmap_method=vmap_method)
  return call(x, y)


# ----------------------------------------------------------------------------------------------
# ffi_call

@pytest.mark.slow
@needs_gxx
def test_ffi_call_eager_and_jit(lib):
  x = _x(2, 3)
  eager = _scale(x)
  assert isinstance(eager, sj.Array) and eager.dtype == np.float32 and eager.shape == (2, 3)
  np.testing.assert_allclose(eager, 3 * x, rtol=1e-6)
  np.testing.assert_allclose(sj.jit(_scale)(x), 3 * x, rtol=1e-6)
  np.testing.assert_allclose(sj.jit(lambda x: _scale(x, 2.0) + 1)(x), 2 * x + 1, rtol=1e-6)
  text = sj.jit(_scale).lower(x).as_text()
  assert "stablehlo.custom_call @test_ffi_ScaleBy" in text
  assert "mhlo.backend_config = {alpha = 3.000000e+00 : f32}" in text


@pytest.mark.slow
@needs_gxx
@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all"])
def test_ffi_call_vmap_methods(lib, method):
  x, y = _x(4, 2, 3), _x(2, 3, seed=1)
  f = lambda x, y: _add_rows(x, y, vmap_method=method)  # noqa: E731
  want = x + y
  for g in (sj.vmap(f, in_axes=(0, None)), sj.jit(sj.vmap(f, in_axes=(0, None)))):
    out = g(x, y)
    assert isinstance(out, sj.Array) and out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-6)
  # batched on another axis, both operands batched
  np.testing.assert_allclose(sj.vmap(f, in_axes=(1, 0))(x.transpose(1, 0, 2), x),
                             2 * x, rtol=1e-6)
  jaxpr = str(sj.make_jaxpr(sj.vmap(f, in_axes=(0, None)))(x, y))
  assert ("scan" in jaxpr) == method.startswith("sequential")


@pytest.mark.slow
@needs_gxx
def test_ffi_call_vmap_kernel_sees_the_batch_as_leading_dim(lib):
  """`expand_dims` gives the unbatched y a leading axis of 1 (the kernel checks the ranks)."""
  x, y = _x(4, 3), _x(3, seed=1)
  out = sj.vmap(lambda x: _add_rows(x, y, "expand_dims"))(x)  # x rows: (3,) -> kernel sees (4, 3)
  np.testing.assert_allclose(out, x + y, rtol=1e-6)
  jaxpr = str(sj.make_jaxpr(sj.vmap(lambda x: _add_rows(x, y, "expand_dims")))(x))
  assert "f32[1,3]" in jaxpr and "result_avals=(ShapedArray(f32[4,3]),)" in jaxpr


@pytest.mark.slow
@needs_gxx
def test_ffi_call_in_scan_and_nested_vmap(lib):
  x = _x(5, 3)

  def step(carry, row):
    new = _scale(carry, 0.5) + row
    return new, new
  carry, ys = sj.jit(lambda x: lax.scan(step, np.zeros(3, np.float32), x))(x)
  want, rows = np.zeros(3, np.float32), []
  for row in x:
    want = 0.5 * want + row
    rows.append(want)
  np.testing.assert_allclose(carry, want, rtol=1e-5)
  np.testing.assert_allclose(ys, np.stack(rows), rtol=1e-5)
  nested = sj.vmap(sj.vmap(lambda v: _scale(v, 2.0, "sequential")))(x)
  np.testing.assert_allclose(nested, 2 * x, rtol=1e-6)


@pytest.mark.slow
@needs_gxx
def test_ffi_call_attributes(lib):
  x = _x(2, 3)
  call = sj.ffi.ffi_call("test_ffi_Attrs", sj.ShapeDtypeStruct(x.shape, x.dtype))
  attrs = dict(scale=2.5, offset=3, mode="affine", weights=np.array([1, 2, 4], np.float32))
  want = x * 2.5 + 3 + 7
  np.testing.assert_allclose(call(x, **attrs), want, rtol=1e-5)
  np.testing.assert_allclose(sj.jit(lambda x: call(x, **attrs))(x), want, rtol=1e-5)
  text = sj.jit(lambda x: call(x, **attrs)).lower(x).as_text()
  assert 'mode = "affine", offset = 3 : i64, scale = 2.500000e+00 : f64' in text
  with pytest.raises(Exception, match="unknown mode"):
    call(x, **{**attrs, "mode": "other"})


@pytest.mark.slow
@needs_gxx
def test_ffi_call_two_results(lib):
  x, y = _x(3), _x(3, seed=1)
  types = [sj.ShapeDtypeStruct((3,), np.float32)] * 2
  as_list = sj.ffi.ffi_call("test_ffi_SumDiff", types)
  as_tuple = sj.ffi.ffi_call("test_ffi_SumDiff", tuple(types), vmap_method="broadcast_all")
  s, d = out = as_list(x, y)
  assert isinstance(out, list)
  np.testing.assert_allclose(s, x + y, rtol=1e-6)
  np.testing.assert_allclose(d, x - y, rtol=1e-6)
  out = sj.jit(as_tuple)(x, y)
  assert isinstance(out, tuple)
  np.testing.assert_allclose(out[1], x - y, rtol=1e-6)
  s, d = sj.vmap(as_tuple, in_axes=(0, None))(np.stack([x, y]), y)
  np.testing.assert_allclose(d, np.stack([x - y, np.zeros(3)]), rtol=1e-6, atol=1e-6)


@pytest.mark.slow
@needs_gxx
def test_ffi_call_side_effect_kept_by_dce(lib):
  tick = sj.ffi.ffi_call("test_ffi_Tick", sj.ShapeDtypeStruct((3,), np.float32),
                         has_side_effect=True)
  pure = sj.ffi.ffi_call("test_ffi_Tick", sj.ShapeDtypeStruct((3,), np.float32))

  def f(x):
    tick(x)  # unused, kept
    pure(x)  # unused, dropped
    return x * 2

  x = _x(3)
  closed = sj.make_jaxpr(f)(x)
  assert str(closed.effects) == "frozenset({FFI})"
  kept = str(pipeline.jaxpr_passes(closed))
  assert kept.count("ffi_call") == 1 and "has_side_effect=True" in kept
  assert str(passes.dce_closed_jaxpr(closed)).count("ffi_call") == 1
  before = lib.TickCount()
  np.testing.assert_allclose(sj.jit(f)(x), 2 * x)
  assert lib.TickCount() == before + 1
  tick(x)  # eagerly too
  assert lib.TickCount() == before + 2


@pytest.mark.slow
@needs_gxx
def test_ffi_call_unregistered_target_fails_naming_it(lib):
  call = sj.ffi.ffi_call("test_ffi_not_registered", sj.ShapeDtypeStruct((3,), np.float32))
  text = sj.jit(call).lower(_x(3)).as_text()  # lowering needs no kernel
  assert "@test_ffi_not_registered" in text
  with pytest.raises(Exception, match="test_ffi_not_registered"):
    sj.jit(call)(_x(3))


@pytest.mark.slow
@needs_gxx
def test_ffi_call_is_not_differentiable(lib):
  with pytest.raises(ValueError, match="`test_ffi_ScaleBy` cannot be differentiated"):
    sj.grad(lambda x: _scale(x).sum())(_x(3))


# ----------------------------------------------------------------------------------------------
# Errors that need no kernel

def test_ffi_call_errors():
  f32 = sj.ShapeDtypeStruct((3,), np.float32)
  x = _x(3)
  with pytest.raises(ValueError, match="vmap_method must be one of"):
    sj.ffi.ffi_call("k", f32, vmap_method="vectorized")
  with pytest.raises(NotImplementedError, match=r"`k` needs a vmap_method.*'sequential'"):
    sj.vmap(sj.ffi.ffi_call("k", f32))(np.stack([x, x]))
  with pytest.raises(TypeError, match="attribute bad=.*of type dict"):
    sj.ffi.ffi_call("k", f32)(x, bad={"a": 1})
  with pytest.raises(TypeError, match="attribute c=.*complex"):
    sj.ffi.ffi_call("k", f32)(x, c=1j)
  with pytest.raises(ValueError, match="'shape' and 'dtype'"):
    sj.ffi.ffi_call("k", [f32, 3])
  with pytest.raises(ValueError, match="input_output_aliases maps input 0 of type f32"):
    sj.ffi.ffi_call("k", sj.ShapeDtypeStruct((2,), np.float32), input_output_aliases={0: 0})(x)
  with pytest.raises(ValueError, match="input_output_aliases maps input 1"):
    sj.ffi.ffi_call("k", f32, input_output_aliases={1: 0})(x)
  with pytest.raises(ValueError, match="api_version=0 is not supported.*typed XLA FFI"):
    sj.ffi.register_ffi_target("k", object(), api_version=0)
  with pytest.raises(ValueError, match="unknown platform"):
    sj.ffi.register_ffi_target("k", object(), platform="abacus")


def test_ffi_module_and_include_dir():
  assert stablejax.ffi is sj.ffi
  assert os.path.isfile(os.path.join(sj.ffi.include_dir(), "xla", "ffi", "api", "ffi.h"))


def test_input_output_aliases_lower_to_output_operand_aliases():
  call = sj.ffi.ffi_call("k", sj.ShapeDtypeStruct((3,), np.float32), input_output_aliases={0: 0})
  text = sj.jit(call).lower(_x(3)).as_text()
  assert "output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = []" \
      in text


# ----------------------------------------------------------------------------------------------
# A primitive of one's own whose lowering calls the kernel: scale(x, alpha) = alpha * x

scale_p = core.Primitive("test_ffi_scale")


def scale(x, alpha):
  return scale_p.bind(x, alpha=alpha)


scale_p.def_abstract_eval(lambda x, *, alpha: core.ShapedArray(x.shape, x.dtype))
register_lowering(scale_p, lambda ctx, x, *, alpha: custom_call(
    "test_ffi_ScaleBy", [aval_to_ir_type(ctx.avals_out[0])], [x],
    backend_config={"alpha": np.float32(alpha)}))
# linear in x: the JVP applies it to the tangent, the transpose scales the cotangent
ad.deflinear2(scale_p, lambda ct, x, *, alpha: [scale(ct, alpha)])
batching.primitive_batchers[scale_p] = lambda args, dims, *, alpha: (scale(args[0], alpha),
                                                                       dims[0])
scale_p.def_impl(functools.partial(dispatch.apply_primitive, scale_p))  # eager: compiled


@pytest.mark.slow
@needs_gxx
def test_user_primitive_lowering_to_the_kernel(lib):
  x = _x(4, 3)
  eager = scale(x, 2.0)  # impl dispatch.apply_primitive: compiled through the pipeline
  assert isinstance(eager, sj.Array)
  np.testing.assert_allclose(eager, 2 * x, rtol=1e-6)
  np.testing.assert_allclose(sj.jit(lambda x: scale(x, 2.0))(x), 2 * x, rtol=1e-6)
  out = sj.vmap(lambda r: scale(r, 2.0), in_axes=1)(x)
  assert isinstance(out, sj.Array) and out.dtype == np.float32
  np.testing.assert_allclose(out, 2 * x.T, rtol=1e-6)
  loss = lambda v: (scale(v, 3.0) * v).sum()  # noqa: E731  (3 v^2: gradient 6 v)
  np.testing.assert_allclose(sj.grad(loss)(x[0]), 6 * x[0], rtol=1e-5)
  np.testing.assert_allclose(sj.jit(sj.vmap(sj.grad(loss)))(x), 6 * x, rtol=1e-5)
  _, tangent = sj.jvp(lambda v: scale(v, 3.0), (x,), (np.ones_like(x),))
  np.testing.assert_allclose(tangent, np.full_like(x, 3.0), rtol=1e-6)
  assert "stablehlo.custom_call @test_ffi_ScaleBy" in sj.jit(lambda x: scale(x, 2.0)).lower(x) \
      .as_text()


# ----------------------------------------------------------------------------------------------
# Eager vmap of a user primitive with a numpy `impl` (JAX's primitives walkthrough)

multiply_add_p = core.Primitive("test_ffi_multiply_add")
multiply_add_p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
multiply_add_p.def_abstract_eval(lambda x, y, z: core.ShapedArray(x.shape, x.dtype))
batching.primitive_batchers[multiply_add_p] = lambda args, dims: (multiply_add_p.bind(*args),
                                                                  dims[0])


def test_eager_vmap_of_a_user_primitive_is_an_array_of_the_canonical_dtype():
  sq = lambda a, b: multiply_add_p.bind(a, a, b)  # noqa: E731
  out = sj.vmap(sq)(np.array([2., 3.]), np.array([10., 20.]))  # float64 inputs, as in JAX
  assert isinstance(out, sj.Array) and out.dtype == np.float32
  np.testing.assert_allclose(out, [14., 29.])
