module @jit_square_add attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<f32>, %arg2: tensor<3xf32>) -> tensor<3xf32> {
    %0 = "stablehlo.case"(%arg0) ({
      %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %2 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %3 = stablehlo.multiply %1, %2 : tensor<3xf32>
      %4 = stablehlo.add %3, %arg2 : tensor<3xf32>
      stablehlo.return %4 : tensor<3xf32>
    }, {
      %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %2 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %3 = stablehlo.divide %arg2, %2 : tensor<3xf32>
      %4 = stablehlo.add %1, %3 : tensor<3xf32>
      %5 = stablehlo.multiply %4, %2 : tensor<3xf32>
      stablehlo.return %5 : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
