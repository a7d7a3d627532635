"""The PJRT runtime: device_put, Array, compiling and running StableHLO modules."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest

from stablejax import config, core, dtypes, runtime
from stablejax.runtime import Array, pjrt

ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
NARROW = {np.int64: np.int32, np.uint64: np.uint32, np.float64: np.float32,
          np.complex128: np.complex64}

HEADER = "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}"
ADD = HEADER + """ {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}"""
TWO_OUT = HEADER + """ {
  func.func public @main(%arg0: tensor<2x2xf32>, %arg1: tensor<i32>)
      -> (tensor<2x2xf32>, tensor<i32>, tensor<2x2xf32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x2xf32>
    %1 = stablehlo.negate %arg1 : tensor<i32>
    return %0, %1, %arg0 : tensor<2x2xf32>, tensor<i32>, tensor<2x2xf32>
  }
}"""


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64_mode(request):
  old = config.enable_x64
  config.update("enable_x64", request.param)
  yield request.param
  config.update("enable_x64", old)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_device_put_round_trip(dtype, x64_mode):
  x = (np.arange(6).reshape(2, 3) % 2 if dtype is np.bool_ else np.arange(6).reshape(2, 3)
       ).astype(dtype)
  a = runtime.device_put(x)
  want = np.dtype(dtype if x64_mode else NARROW.get(dtype, dtype))
  assert isinstance(a, Array)
  assert a.dtype == want and a.shape == (2, 3) and a.ndim == 2 and a.size == 6
  assert not a.weak_type
  np.testing.assert_array_equal(np.asarray(a), x.astype(want))
  assert np.asarray(a).dtype == want
  assert core.get_aval(a) == core.ShapedArray((2, 3), want)


@pytest.mark.parametrize("value,kind", [(True, "b"), (3, "i"), (2.5, "f"), (1 + 2j, "c")])
def test_python_scalars_are_weak(value, kind, x64_mode):
  a = runtime.device_put(value)
  assert a.shape == () and a.dtype.kind == kind
  assert a.dtype == dtypes.python_scalar_dtype(value)
  bits = {"b": 8, "i": 32, "f": 32, "c": 64}[kind] * (2 if x64_mode and kind != "b" else 1)
  assert a.dtype.itemsize * 8 == bits
  assert a.weak_type == (kind != "b")
  assert a.item() == value


def test_numpy_scalar_is_not_weak():
  a = runtime.device_put(np.float32(1.5))
  assert a.aval == core.ShapedArray((), np.float32)


def test_int_out_of_range_is_an_error():
  with pytest.raises(OverflowError):
    runtime.device_put(2**40)


def test_device_put_copies_its_input():
  x = np.ones(3, np.float32)
  a = runtime.device_put(x)
  x[0] = 5
  np.testing.assert_array_equal(np.asarray(a), np.ones(3))
  assert not np.asarray(a).flags.writeable


def test_device_put_pytree_and_array():
  tree = runtime.device_put({"a": 1.0, "b": [np.zeros(2), np.ones(2, np.int32)]})
  assert isinstance(tree["a"], Array) and tree["b"][1].dtype == np.int32
  a = runtime.device_put(np.ones(2))
  assert runtime.device_put(a) is a
  assert runtime.device_put(a, a.device) is a


def test_device_put_bad_device_and_value():
  with pytest.raises(TypeError, match="device"):
    runtime.device_put(1.0, "cpu:0")
  with pytest.raises(TypeError, match="not a valid stablejax type"):
    runtime.device_put(object())
  with pytest.raises(TypeError, match="not supported"):
    runtime.device_put(np.array(["a"]))


def test_repr_and_str():
  assert repr(runtime.device_put(np.array([1.0, 2.0]))) == "Array([1., 2.], dtype=float32)"
  assert repr(runtime.device_put(1.0)) == "Array(1., dtype=float32, weak_type=True)"
  assert repr(runtime.device_put(np.array([1, 2], np.int8))) == "Array([1, 2], dtype=int8)"
  assert repr(runtime.device_put(np.zeros((0, 3)))) == "Array([], shape=(0, 3), dtype=float32)"
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  assert str(runtime.device_put(x)) == str(x)


def test_repr_matches_jax():
  jax = pytest.importorskip("jax")
  for x in [np.arange(40.0).reshape(4, 10), np.array([True, False]), np.arange(3)]:
    assert repr(runtime.device_put(x)) == repr(jax.device_put(x))
  assert repr(runtime.device_put(2.0)) == repr(jax.numpy.asarray(2.0))


def test_python_protocols():
  a = runtime.device_put(np.arange(6, dtype=np.int32).reshape(3, 2))
  assert len(a) == 3 and a.tolist() == [[0, 1], [2, 3], [4, 5]]
  rows = list(a)
  assert all(isinstance(r, Array) and r.shape == (2,) for r in rows)
  np.testing.assert_array_equal(np.asarray(rows[2]), [4, 5])
  s = runtime.device_put(3)
  assert int(s) == 3 and float(s) == 3.0 and complex(s) == 3 and bool(s) and [0, 1, 2, 3][s] == 3
  with pytest.raises(TypeError):
    len(s)
  with pytest.raises(TypeError):
    iter(s)
  with pytest.raises(TypeError, match="integer"):
    [1, 2][runtime.device_put(1.0)]
  with pytest.raises(ValueError):
    bool(a)
  with pytest.raises(TypeError):
    hash(a)
  assert a.__array_priority__ > 0


def test_weak_rows_copy_and_block():
  weak = core.ShapedArray((2, 2), np.float32, weak_type=True)
  w = Array(pjrt.put(np.ones((2, 2)), weak, runtime.default_device()), weak)
  assert [row.aval for row in w] == [weak.update(shape=(2,))] * 2
  a = runtime.device_put(np.ones((2, 2), np.float32))
  b = a.copy()
  assert b is not a and b.aval == a.aval and b.device == a.device
  np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
  assert a.block_until_ready() is a


def test_array_dtype_conversion():
  a = runtime.device_put(np.arange(3, dtype=np.int32))
  assert np.asarray(a, dtype=np.float64).dtype == np.float64
  c = np.array(a, copy=True)
  c[0] = 7
  assert np.asarray(a)[0] == 0


def test_devices():
  ds = runtime.devices()
  assert ds and ds[0] == runtime.default_device()
  assert runtime.devices("cpu")[0].platform == "cpu"
  a = runtime.device_put(1.0)
  assert a.device == runtime.default_device() and a.devices() == {a.device}


def test_unknown_platform_error():
  with pytest.raises(ValueError, match=r"unknown platform 'metal'; known platforms: cpu, cuda, "
                                       r"rocm, tpu"):
    runtime.devices("metal")


def test_platform_without_a_client_names_the_available_ones():
  with pytest.raises(RuntimeError, match=r"platform 'tpu' is not available here.*\['cpu'"):
    runtime.devices("TPU")


def test_unavailable_platform_error():
  if "cuda" in pjrt.available_platforms():
    pytest.skip("a GPU is present")
  with pytest.raises(RuntimeError, match=r"platform 'cuda' is not available.*\['cpu'\]"):
    runtime.devices("gpu")


def test_compile_and_run():
  exe = runtime.compile_module(ADD)
  x = runtime.device_put(np.array([1.0, 2.0, 3.0], np.float32))
  (out,) = exe(x)
  assert isinstance(out, Array) and out.aval == core.ShapedArray((3,), np.float32)
  np.testing.assert_array_equal(np.asarray(out), [2.0, 4.0, 6.0])
  assert exe.in_avals == (core.ShapedArray((3,), np.float32),)
  (again,) = exe(out)
  np.testing.assert_array_equal(np.asarray(again), [4.0, 8.0, 12.0])


def _down(depth, call):
  return _down(depth - 1, call) if depth else call()


def test_launches_and_transfers_record_no_caller_frames():
  """jaxlib records the caller's stack with each launch and transfer, at a cost per frame;
  stablejax makes them in a traceback scope, so a call 20 frames down records none (and costs
  what it does at the top)."""
  exe = runtime.compile_module(ADD)
  x = _down(20, lambda: runtime.device_put(np.ones(3, np.float32)))
  (out,) = _down(20, lambda: exe(x))
  for made in (x, out):
    assert made._buf.traceback is not None and made._buf.traceback.frames == []
  out.block_until_ready()
  assert _down(20, lambda: pjrt.is_ready(out._buf)) is True
  np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0, 2.0])
  # (unscoped, jaxlib would record every frame: the record this avoids)
  dev = pjrt.default_device()
  unscoped = _down(20, lambda: pjrt._jax.batched_device_put(
      x.aval, pjrt.sharding(dev), [np.ones(3, np.float32)], [dev]))
  assert len(unscoped.traceback.frames) > 20


def test_multiple_outputs_keep_given_avals():
  weak = core.ShapedArray((), np.int32, weak_type=True)
  f32 = core.ShapedArray((2, 2), np.float32)
  exe = runtime.compile_module(TWO_OUT, out_avals=[f32, weak, f32])
  x = np.arange(4, dtype=np.float32).reshape(2, 2)
  a, b, c = exe(runtime.device_put(x), runtime.device_put(5))
  np.testing.assert_array_equal(np.asarray(a), x * x)
  assert b.weak_type and b.item() == -5
  np.testing.assert_array_equal(np.asarray(c), x)


def test_call_checks_values_that_are_not_arrays_on_the_device():
  exe = runtime.compile_module(TWO_OUT)
  a, b, _ = exe(np.ones((2, 2), np.float32), 2)
  assert b.item() == -2 and not b.weak_type
  with pytest.raises(TypeError, match="takes 2 arguments"):
    exe(np.ones((2, 2), np.float32))
  with pytest.raises(TypeError, match=r"argument 0 has type f32\[3\].*f32\[2,2\]"):
    exe(np.ones(3, np.float32), 1)


def test_out_avals_mismatch_error():
  with pytest.raises(TypeError, match="do not match"):
    runtime.compile_module(ADD, out_avals=[core.ShapedArray((3,), np.int32)])


def test_compile_error_and_bad_input():
  with pytest.raises(runtime.CompileError, match="could not compile"):
    runtime.compile_module(HEADER + " { func.func public @main( }")
  with pytest.raises(TypeError, match="MLIR text or bytecode"):
    runtime.compile_module(42)


def test_compiled_text_and_cost_analysis():
  exe = runtime.compile_module(ADD)
  assert "HloModule" in exe.as_text() and "add" in exe.as_text()
  cost = exe.cost_analysis()
  assert cost["flops"] == 3.0 and "bytes accessed" in cost


def test_bytecode_module():
  from jaxlib.mlir import ir
  from jaxlib.mlir._mlir_libs import _jax_mlir_ext
  from jaxlib.mlir.dialects import stablehlo
  registry = ir.DialectRegistry()
  _jax_mlir_ext.register_dialects(registry)
  with ir.Context() as ctx:
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    buf = io.BytesIO()
    ir.Module.parse(ADD).operation.write_bytecode(buf)
  exe = runtime.compile_module(buf.getvalue())
  (out,) = exe(runtime.device_put(np.ones(3, np.float32)))
  np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0, 2.0])


def test_no_jax_import():
  code = ("import sys, numpy as np; from stablejax import runtime; "
          f"e = runtime.compile_module({ADD!r}); "
          "r = e(runtime.device_put(np.ones(3, np.float32)))[0]; repr(r); np.asarray(r); list(r); "
          "r.copy(); assert 'jax' not in sys.modules, 'jax was imported: ' + "
          "str([m for m in sys.modules if m.split('.')[0] in ('jax', 'jax_plugins')])")
  done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
  assert done.returncode == 0, done.stderr[-3000:]


FOUR_DEVICES = f"""
import numpy as np
from stablejax import runtime
ds = runtime.devices("cpu")
assert len(ds) == 4, ds
exe = runtime.compile_module({ADD!r}, ds[2])
x = runtime.device_put(np.ones(3, np.float32), ds[2])
(out,) = exe(x)
assert out.device == ds[2], out.device
moved = runtime.device_put(out, ds[3])
assert moved.device == ds[3] and np.asarray(moved).tolist() == [2.0, 2.0, 2.0]
print("ok")
"""


def test_four_cpu_devices():
  env = dict(os.environ, STABLEJAX_NUM_CPU_DEVICES="4", STABLEJAX_PLATFORM="cpu")
  out = subprocess.run([sys.executable, "-c", FOUR_DEVICES], env=env, capture_output=True,
                       text=True)
  assert out.returncode == 0, out.stderr[-2000:]
  assert out.stdout.strip() == "ok"
