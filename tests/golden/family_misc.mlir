module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.reduce_precision %arg0, format = e8m7 : tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
