module @jit_square_add attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.divide %arg1, %1 : tensor<3xf32>
    %3 = stablehlo.add %0, %2 : tensor<3xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<3xf32>
    return %4 : tensor<3xf32>
  }
}
