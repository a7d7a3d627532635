module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x4xf32>, %arg1: tensor<4x16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16x8xf32>, %arg4: tensor<8xf32>, %arg5: tensor<8x2xf32>) -> tensor<6x2x6x4xf32> {
    %cst = stablehlo.constant dense<"0x0000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F"> : tensor<12x6x2xf32>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<6x4xf32>, tensor<4x16xf32>) -> tensor<6x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<6x16xf32>
    %4 = stablehlo.tanh %3 : tensor<6x16xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<6x16xf32>
    %7 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0] : (tensor<6x16xf32>, tensor<16x8xf32>) -> tensor<6x8xf32>
    %8 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
    %10 = stablehlo.add %7, %9 : tensor<6x8xf32>
    %11 = stablehlo.tanh %10 : tensor<6x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %13 = stablehlo.subtract %12, %11 : tensor<6x8xf32>
    %14 = stablehlo.dot_general %cst, %arg5, contracting_dims = [2] x [1] : (tensor<12x6x2xf32>, tensor<8x2xf32>) -> tensor<12x6x8xf32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [1, 2] : (tensor<6x8xf32>) -> tensor<1x6x8xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<1x6x8xf32>) -> tensor<12x6x8xf32>
    %17 = stablehlo.multiply %14, %16 : tensor<12x6x8xf32>
    %18 = stablehlo.broadcast_in_dim %11, dims = [1, 2] : (tensor<6x8xf32>) -> tensor<1x6x8xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x6x8xf32>) -> tensor<12x6x8xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<12x6x8xf32>
    %21 = stablehlo.add %17, %20 : tensor<12x6x8xf32>
    %22 = stablehlo.dot_general %21, %arg3, contracting_dims = [2] x [1] : (tensor<12x6x8xf32>, tensor<16x8xf32>) -> tensor<12x6x16xf32>
    %23 = stablehlo.broadcast_in_dim %6, dims = [1, 2] : (tensor<6x16xf32>) -> tensor<1x6x16xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2] : (tensor<1x6x16xf32>) -> tensor<12x6x16xf32>
    %25 = stablehlo.multiply %22, %24 : tensor<12x6x16xf32>
    %26 = stablehlo.broadcast_in_dim %4, dims = [1, 2] : (tensor<6x16xf32>) -> tensor<1x6x16xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1, 2] : (tensor<1x6x16xf32>) -> tensor<12x6x16xf32>
    %28 = stablehlo.multiply %25, %27 : tensor<12x6x16xf32>
    %29 = stablehlo.add %25, %28 : tensor<12x6x16xf32>
    %30 = stablehlo.dot_general %29, %arg1, contracting_dims = [2] x [1] : (tensor<12x6x16xf32>, tensor<4x16xf32>) -> tensor<12x6x4xf32>
    %31 = stablehlo.reshape %30 : (tensor<12x6x4xf32>) -> tensor<6x2x6x4xf32>
    return %31 : tensor<6x2x6x4xf32>
  }
}
