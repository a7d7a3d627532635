module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = call @sin(%arg0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<4x3xf32>
    return %2 : tensor<4x3xf32>
  }
  func.func private @sin(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = stablehlo.sine %arg0 : tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}
