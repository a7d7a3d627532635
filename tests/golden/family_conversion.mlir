module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xf16>
    %cst = stablehlo.constant dense<1.500000e+00> : tensor<f16>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<3x4xf16>
    %2 = stablehlo.multiply %0, %1 : tensor<3x4xf16>
    %3 = stablehlo.convert %2 : (tensor<3x4xf16>) -> tensor<3x4xf32>
    return %3 : tensor<3x4xf32>
  }
}
