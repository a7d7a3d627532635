# RUN: %PYTHON %s | FileCheck %s
# shard_map and the collectives, as JAX 0.10.2 emits them: an sdy.manual_computation over the
# module's sdy.mesh, each collective over partition-id replica groups with channel handle 1.
import os

os.environ["STABLEJAX_NUM_CPU_DEVICES"] = "8"

import numpy as np  # noqa: E402

import stablejax as sj  # noqa: E402
from stablejax import lax  # noqa: E402
from stablejax.sharding import Mesh, PartitionSpec as P  # noqa: E402
from lit_util import f32, print_stablehlo, run  # noqa: E402

MESH = Mesh(np.array(sj.devices()), ("i",))
MESH2 = Mesh(np.array(sj.devices()).reshape(2, 4), ("a", "b"))


def on_mesh(f, in_specs=P("i"), out_specs=P("i"), mesh=MESH):
  return sj.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)


@run
def manual_computation():
  print_stablehlo(on_mesh(lambda x: x * 2, out_specs=P("i")), f32(16, 3))
  # CHECK-LABEL: TEST: manual_computation
  # CHECK: module @jit_{{.*}} attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}
  # CHECK: sdy.mesh @mesh = <["i"=8]>
  # CHECK: sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}, {}]>] out_shardings=[<@mesh, [{"i"}, {}]>] manual_axes={"i"} (%arg1: tensor<2x3xf32>)
  # CHECK: stablehlo.multiply
  # CHECK: sdy.return
  # CHECK: } : (tensor<16x3xf32>) -> tensor<16x3xf32>


@run
def psum_pmax_pmin():
  print_stablehlo(on_mesh(lambda x: (lax.psum(x, "i"), lax.pmax(x, "i"), lax.pmin(x, "i")),
                          out_specs=P()), f32(16))
  # CHECK-LABEL: TEST: psum_pmax_pmin
  # CHECK: "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}>
  # CHECK: stablehlo.add
  # CHECK: "stablehlo.all_reduce"
  # CHECK: stablehlo.maximum
  # CHECK: "stablehlo.all_reduce"
  # CHECK: stablehlo.minimum


@run
def psum_over_one_axis_of_two():
  print_stablehlo(on_mesh(lambda x: lax.psum(x, "b"), P(("a", "b")), P("a"), MESH2), f32(16))
  # CHECK-LABEL: TEST: psum_over_one_axis_of_two
  # CHECK: sdy.mesh @mesh = <["a"=2, "b"=4]>
  # CHECK: replica_groups = dense<{{\[}}[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>


@run
def all_gather():
  print_stablehlo(on_mesh(lambda x: lax.all_gather(x, "i"), out_specs=P()), f32(16))
  # CHECK-LABEL: TEST: all_gather
  # CHECK: stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
  # CHECK: "stablehlo.all_gather"(%{{.*}}) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<1x2xf32>) -> tensor<8x2xf32>


@run
def psum_scatter():
  print_stablehlo(on_mesh(lambda x: lax.psum_scatter(x, "i")[None], P(), P("i")), f32(8, 3))
  # CHECK-LABEL: TEST: psum_scatter
  # CHECK: "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64, use_global_device_ids}>
  # CHECK: stablehlo.add
  # CHECK: (tensor<8x3xf32>) -> tensor<1x3xf32>
  # CHECK: stablehlo.reshape %{{.*}} : (tensor<1x3xf32>) -> tensor<3xf32>


@run
def ppermute():
  print_stablehlo(on_mesh(lambda x: lax.ppermute(x, "i", [(j, (j + 1) % 8) for j in range(8)])),
                  f32(16))
  # CHECK-LABEL: TEST: ppermute
  # CHECK: "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<{{\[}}[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}>


@run
def all_to_all():
  print_stablehlo(on_mesh(lambda x: lax.all_to_all(x, "i", 0, 1, tiled=True)), f32(64, 2))
  # CHECK-LABEL: TEST: all_to_all
  # CHECK: "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<{{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x2xf32>) -> tensor<1x16xf32>


@run
def axis_index():
  print_stablehlo(on_mesh(lambda x: x + lax.axis_index("b"), P(("a", "b")), P(("a", "b")),
                          MESH2), f32(8))
  # CHECK-LABEL: TEST: axis_index
  # CHECK: %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<ui32>
  # CHECK: %[[FOUR:.*]] = stablehlo.constant dense<4> : tensor<ui32>
  # CHECK: %[[PID:.*]] = stablehlo.partition_id : tensor<ui32>
  # CHECK: %[[DIV:.*]] = stablehlo.divide %[[PID]], %[[ONE]] : tensor<ui32>
  # CHECK: %[[REM:.*]] = stablehlo.remainder %[[DIV]], %[[FOUR]] : tensor<ui32>
  # CHECK: stablehlo.convert %[[REM]] : (tensor<ui32>) -> tensor<i32>
