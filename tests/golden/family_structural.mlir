module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> tensor<6x3xf32> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.pad %arg0, %cst, low = [-2, 2], high = [1, -3], interior = [2, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<6x3xf32>
    return %0 : tensor<6x3xf32>
  }
}
