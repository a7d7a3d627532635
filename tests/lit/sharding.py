# RUN: %PYTHON %s | FileCheck %s
# Sharding annotations (Shardy's sdy dialect, as JAX 0.10.2 prints them): the mesh, the
# arguments' and results' shardings, sharding constraints and the number of partitions.
import os

os.environ["STABLEJAX_NUM_CPU_DEVICES"] = "8"  # before stablejax makes its CPU client

import numpy as np  # noqa: E402

import stablejax as sj  # noqa: E402
from stablejax import lax  # noqa: E402
from stablejax.sharding import NamedSharding, P  # noqa: E402
from lit_util import f32, run  # noqa: E402

# Auto axes: JAX's with_sharding_constraint refuses Explicit ones (make_mesh's default)
mesh = sj.make_mesh((2, 4), ("x", "y"), axis_types=(sj.sharding.AxisType.Auto,) * 2)


def named(*spec):
  return NamedSharding(mesh, P(*spec))


@run
def in_out_shardings():
  f = sj.jit(lambda x, y: x @ y, in_shardings=(named("x", None), named(None, "y")),
             out_shardings=named("x", "y"))
  print(f.lower(f32(8, 4), f32(4, 8)).as_text(), flush=True)
  # CHECK-LABEL: TEST: in_out_shardings
  # CHECK: module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}
  # CHECK-NEXT: sdy.mesh @mesh = <["x"=2, "y"=4]>
  # CHECK: func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>})


@run
def replicated_and_multi_axis():
  f = sj.jit(lambda x: x + 1, in_shardings=named(("x", "y")), out_shardings=named())
  print(f.lower(f32(16, 2)).as_text(), flush=True)
  # CHECK-LABEL: TEST: replicated_and_multi_axis
  # CHECK: %arg0: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}
  # CHECK-SAME: -> (tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})


@run
def sharding_constraint():
  f = sj.jit(lambda x: lax.with_sharding_constraint(x * 2, named(None, "y")))
  print(f.lower(f32(8, 4)).as_text(), flush=True)
  # CHECK-LABEL: TEST: sharding_constraint
  # CHECK: mhlo.num_partitions = 8 : i32
  # CHECK: sdy.mesh @mesh = <["x"=2, "y"=4]>
  # CHECK: func.func public @main(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32>
  # CHECK: sdy.sharding_constraint %{{.*}} <@mesh, [{}, {"y"}]> : tensor<8x4xf32>


@run
def constraint_transposed_by_grad():
  f = sj.jit(sj.grad(lambda x: (lax.with_sharding_constraint(x, named("x")) ** 2).sum()))
  print(f.lower(f32(8, 4)).as_text(), flush=True)
  # CHECK-LABEL: TEST: constraint_transposed_by_grad
  # CHECK: sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}]>
  # CHECK: sdy.sharding_constraint %{{.*}} <@mesh, [{"x"}, {}]>


@run
def mesh_with_reordered_devices():
  devices = np.array(sj.devices())[[1, 0, 3, 2]]
  m = sj.sharding.Mesh(devices, ("d",))
  f = sj.jit(lambda x: x, in_shardings=NamedSharding(m, P("d")))
  print(f.lower(f32(4)).as_text(), flush=True)
  # CHECK-LABEL: TEST: mesh_with_reordered_devices
  # CHECK: mhlo.num_partitions = 4 : i32
  # CHECK: sdy.mesh @mesh = <["d"=4], device_ids=[1, 0, 3, 2]>
