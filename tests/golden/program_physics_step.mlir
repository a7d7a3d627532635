module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x3xf32>, %arg1: tensor<6x3xf32>, %arg2: tensor<6xf32>) -> (tensor<6x3xf32>, tensor<6x3xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<6x3xf32>) -> tensor<1x6x3xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<6x3xf32>) -> tensor<6x1x3xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2] : (tensor<1x6x3xf32>) -> tensor<6x6x3xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2] : (tensor<6x1x3xf32>) -> tensor<6x6x3xf32>
    %4 = stablehlo.subtract %2, %3 : tensor<6x6x3xf32>
    %5 = stablehlo.multiply %4, %4 : tensor<6x6x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<6x6x3xf32>, tensor<f32>) -> tensor<6x6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %8 = stablehlo.add %6, %7 : tensor<6x6xf32>
    %cst_1 = stablehlo.constant dense<-1.500000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %10 = stablehlo.power %8, %9 : tensor<6x6xf32>
    %11 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<6x6xf32>
    %13 = stablehlo.multiply %10, %12 : tensor<6x6xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<6x6xf32>) -> tensor<6x6x1xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<6x6x1xf32>) -> tensor<6x6x3xf32>
    %16 = stablehlo.multiply %4, %15 : tensor<6x6x3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x6x3xf32>, tensor<f32>) -> tensor<6x3xf32>
    %cst_3 = stablehlo.constant dense<5.000000e-03> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x3xf32>
    %19 = stablehlo.multiply %18, %17 : tensor<6x3xf32>
    %20 = stablehlo.add %arg1, %19 : tensor<6x3xf32>
    %cst_4 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x3xf32>
    %22 = stablehlo.multiply %21, %20 : tensor<6x3xf32>
    %23 = stablehlo.add %arg0, %22 : tensor<6x3xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [1, 2] : (tensor<6x3xf32>) -> tensor<1x6x3xf32>
    %25 = stablehlo.broadcast_in_dim %23, dims = [0, 2] : (tensor<6x3xf32>) -> tensor<6x1x3xf32>
    %26 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2] : (tensor<1x6x3xf32>) -> tensor<6x6x3xf32>
    %27 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2] : (tensor<6x1x3xf32>) -> tensor<6x6x3xf32>
    %28 = stablehlo.subtract %26, %27 : tensor<6x6x3xf32>
    %29 = stablehlo.multiply %28, %28 : tensor<6x6x3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%29 init: %cst_5) applies stablehlo.add across dimensions = [2] : (tensor<6x6x3xf32>, tensor<f32>) -> tensor<6x6xf32>
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %32 = stablehlo.add %30, %31 : tensor<6x6xf32>
    %cst_7 = stablehlo.constant dense<-1.500000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %34 = stablehlo.power %32, %33 : tensor<6x6xf32>
    %35 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<6x6xf32>
    %37 = stablehlo.multiply %34, %36 : tensor<6x6xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1] : (tensor<6x6xf32>) -> tensor<6x6x1xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2] : (tensor<6x6x1xf32>) -> tensor<6x6x3xf32>
    %40 = stablehlo.multiply %28, %39 : tensor<6x6x3xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.reduce(%40 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<6x6x3xf32>, tensor<f32>) -> tensor<6x3xf32>
    %cst_9 = stablehlo.constant dense<5.000000e-03> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<6x3xf32>
    %43 = stablehlo.multiply %42, %41 : tensor<6x3xf32>
    %44 = stablehlo.add %20, %43 : tensor<6x3xf32>
    return %23, %44 : tensor<6x3xf32>, tensor<6x3xf32>
  }
}
