module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
    %0 = stablehlo.tanh %arg0 : tensor<4x3xf32>
    %1 = stablehlo.multiply %arg1, %0 : tensor<4x3xf32>
    %2 = stablehlo.add %arg1, %1 : tensor<4x3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %4 = stablehlo.subtract %3, %0 : tensor<4x3xf32>
    %5 = stablehlo.multiply %2, %4 : tensor<4x3xf32>
    return %0, %5 : tensor<4x3xf32>, tensor<4x3xf32>
  }
}
