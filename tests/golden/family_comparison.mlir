module @jit_bind attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>) -> tensor<3x4xi1> {
    %0 = stablehlo.compare LT, %arg0, %arg1, TOTALORDER : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    return %0 : tensor<3x4xi1>
  }
}
