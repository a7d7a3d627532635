module @jit_run attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<5x5xf32>, %arg2: tensor<5xf32>, %arg3: tensor<4x2x3xf32>) -> (tensor<2x5xf32>, tensor<f32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x2x5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:7 = stablehlo.while(%iterArg = %c, %iterArg_3 = %arg0, %iterArg_4 = %arg1, %iterArg_5 = %arg2, %iterArg_6 = %0, %iterArg_7 = %arg3, %iterArg_8 = %1) : tensor<i32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<2x5xf32>, tensor<4x2x3xf32>, tensor<4x2x5xf32>
    cond {
      %c_9 = stablehlo.constant dense<4> : tensor<i32>
      %6 = stablehlo.compare LT, %iterArg, %c_9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %c_9 = stablehlo.constant dense<0> : tensor<i32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %6 = stablehlo.dynamic_slice %iterArg_7, %iterArg, %c_9, %c_10, sizes = [1, 2, 3] : (tensor<4x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
      %7 = stablehlo.reshape %6 : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
      %8 = stablehlo.dot_general %7, %iterArg_3, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
      %9 = stablehlo.dot_general %iterArg_6, %iterArg_4, contracting_dims = [1] x [0] : (tensor<2x5xf32>, tensor<5x5xf32>) -> tensor<2x5xf32>
      %10 = stablehlo.add %8, %9 : tensor<2x5xf32>
      %11 = stablehlo.broadcast_in_dim %iterArg_5, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
      %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<2x5xf32>
      %13 = stablehlo.add %10, %12 : tensor<2x5xf32>
      %14 = stablehlo.tanh %13 : tensor<2x5xf32>
      %15 = stablehlo.reshape %14 : (tensor<2x5xf32>) -> tensor<1x2x5xf32>
      %c_11 = stablehlo.constant dense<0> : tensor<i32>
      %c_12 = stablehlo.constant dense<0> : tensor<i32>
      %16 = stablehlo.dynamic_update_slice %iterArg_8, %15, %iterArg, %c_11, %c_12 : (tensor<4x2x5xf32>, tensor<1x2x5xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x2x5xf32>
      %c_13 = stablehlo.constant dense<1> : tensor<i32>
      %17 = stablehlo.add %iterArg, %c_13 : tensor<i32>
      stablehlo.return %17, %iterArg_3, %iterArg_4, %iterArg_5, %14, %iterArg_7, %16 : tensor<i32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<2x5xf32>, tensor<4x2x3xf32>, tensor<4x2x5xf32>
    }
    %3 = stablehlo.multiply %2#6, %2#6 : tensor<4x2x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_1) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x2x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.multiply %cst_2, %4 : tensor<f32>
    return %2#4, %5 : tensor<2x5xf32>, tensor<f32>
  }
}
