module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x4x4xf32>, %arg1: tensor<2x2x2x6xf32>) -> tensor<2x4x7x6xf32> {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 0], [0, 1]], lhs_dilate = [1, 2], rhs_dilate = [2, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x5x4x4xf32>, tensor<2x2x2x6xf32>) -> tensor<2x4x7x6xf32>
    return %0 : tensor<2x4x7x6xf32>
  }
}
