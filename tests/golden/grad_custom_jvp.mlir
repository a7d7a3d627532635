module @jit__softplus_sum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = call @jvp_softplus_(%arg0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %2 = stablehlo.compare GT, %arg0, %1, FLOAT : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %5 = stablehlo.select %2, %3, %4 : tensor<4x3xi1>, tensor<4x3xf32>
    %6 = call @transpose_jvp_softplus__(%0, %3) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %7 = stablehlo.add %5, %6 : tensor<4x3xf32>
    return %7 : tensor<4x3xf32>
  }
  func.func private @jvp_softplus_(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x3xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<4x3xf32>
    %4 = stablehlo.abs %3 : tensor<4x3xf32>
    %5 = stablehlo.negate %4 : tensor<4x3xf32>
    %6 = stablehlo.exponential %5 : tensor<4x3xf32>
    %7 = stablehlo.log_plus_one %6 : tensor<4x3xf32>
    %8 = stablehlo.add %1, %7 : tensor<4x3xf32>
    %9 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %11 = stablehlo.add %arg0, %10 : tensor<4x3xf32>
    %12 = stablehlo.select %9, %11, %8 : tensor<4x3xi1>, tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %14 = stablehlo.compare EQ, %arg0, %13, FLOAT : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %16 = stablehlo.select %14, %15, %arg0 : tensor<4x3xi1>, tensor<4x3xf32>
    %cst_2 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %18 = stablehlo.compare EQ, %12, %17, FLOAT : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %20 = stablehlo.select %18, %19, %12 : tensor<4x3xi1>, tensor<4x3xf32>
    %21 = stablehlo.subtract %16, %20 : tensor<4x3xf32>
    %22 = stablehlo.exponential %21 : tensor<4x3xf32>
    return %22 : tensor<4x3xf32>
  }
  func.func private @transpose_jvp_softplus__(%arg0: tensor<4x3xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = stablehlo.multiply %arg1, %arg0 : tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}
