module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<16xf32>, %arg4: tensor<16x1xf32>, %arg5: tensor<1xf32>, %arg6: tensor<4x8xf32>, %arg7: tensor<4x1xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x1xf32>, tensor<1xf32>, tensor<f32>) {
    %0 = stablehlo.dot_general %arg6, %arg0, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x16xf32>
    %4 = stablehlo.tanh %3 : tensor<4x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<4x16xf32>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
    %10 = stablehlo.add %7, %9 : tensor<4x16xf32>
    %11 = stablehlo.tanh %10 : tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %13 = stablehlo.subtract %12, %11 : tensor<4x16xf32>
    %14 = stablehlo.dot_general %11, %arg4, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x1xf32>) -> tensor<4x1xf32>
    %15 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x1xf32>
    %17 = stablehlo.add %14, %16 : tensor<4x1xf32>
    %18 = stablehlo.subtract %17, %arg7 : tensor<4x1xf32>
    %19 = stablehlo.multiply %18, %18 : tensor<4x1xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %21 = stablehlo.multiply %20, %18 : tensor<4x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.reduce(%19 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x1xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %23 = stablehlo.divide %22, %cst_3 : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_5 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %24 = stablehlo.divide %cst_4, %cst_5 : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %26 = stablehlo.multiply %25, %21 : tensor<4x1xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<4x1xf32>, tensor<f32>) -> tensor<1xf32>
    %28 = stablehlo.reshape %27 : (tensor<1xf32>) -> tensor<1x1xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1xf32>, tensor<f32>) -> tensor<f32>
    %30 = stablehlo.reshape %29 : (tensor<f32>) -> tensor<1xf32>
    %31 = stablehlo.dot_general %26, %11, contracting_dims = [0] x [0] : (tensor<4x1xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
    %32 = stablehlo.transpose %31, dims = [1, 0] : (tensor<1x16xf32>) -> tensor<16x1xf32>
    %33 = stablehlo.dot_general %26, %arg4, contracting_dims = [1] x [1] : (tensor<4x1xf32>, tensor<16x1xf32>) -> tensor<4x16xf32>
    %34 = stablehlo.multiply %33, %13 : tensor<4x16xf32>
    %35 = stablehlo.multiply %34, %11 : tensor<4x16xf32>
    %36 = stablehlo.add %34, %35 : tensor<4x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%36 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %38 = stablehlo.reshape %37 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.reduce(%38 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %40 = stablehlo.dot_general %36, %4, contracting_dims = [0] x [0] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
    %41 = stablehlo.transpose %40, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %42 = stablehlo.dot_general %36, %arg2, contracting_dims = [1] x [1] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %43 = stablehlo.multiply %42, %6 : tensor<4x16xf32>
    %44 = stablehlo.multiply %43, %4 : tensor<4x16xf32>
    %45 = stablehlo.add %43, %44 : tensor<4x16xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %47 = stablehlo.reshape %46 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.reduce(%47 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %49 = stablehlo.dot_general %45, %arg6, contracting_dims = [0] x [0] : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
    %50 = stablehlo.transpose %49, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %cst_12 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %52 = stablehlo.multiply %51, %50 : tensor<8x16xf32>
    %53 = stablehlo.subtract %arg0, %52 : tensor<8x16xf32>
    %cst_13 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %55 = stablehlo.multiply %54, %48 : tensor<16xf32>
    %56 = stablehlo.subtract %arg1, %55 : tensor<16xf32>
    %cst_14 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %58 = stablehlo.multiply %57, %41 : tensor<16x16xf32>
    %59 = stablehlo.subtract %arg2, %58 : tensor<16x16xf32>
    %cst_15 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %61 = stablehlo.multiply %60, %39 : tensor<16xf32>
    %62 = stablehlo.subtract %arg3, %61 : tensor<16xf32>
    %cst_16 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %64 = stablehlo.multiply %63, %32 : tensor<16x1xf32>
    %65 = stablehlo.subtract %arg4, %64 : tensor<16x1xf32>
    %cst_17 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %67 = stablehlo.multiply %66, %30 : tensor<1xf32>
    %68 = stablehlo.subtract %arg5, %67 : tensor<1xf32>
    return %53, %56, %59, %62, %65, %68, %23 : tensor<8x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x1xf32>, tensor<1xf32>, tensor<f32>
  }
}
