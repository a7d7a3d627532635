module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4x4xf32> {
    %cst = stablehlo.constant dense<[[1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<4x4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<1xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.maximum %cst_2, %0 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %4 = stablehlo.subtract %arg0, %3 : tensor<4xf32>
    %5 = stablehlo.exponential %4 : tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %8 = stablehlo.multiply %cst, %7 : tensor<4x4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%5 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%8 init: %cst_4) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %14 = stablehlo.divide %5, %13 : tensor<4xf32>
    %15 = stablehlo.broadcast_in_dim %11, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x4xf32>
    %17 = stablehlo.divide %8, %16 : tensor<4x4xf32>
    %18 = stablehlo.negate %12 : tensor<4x1xf32>
    %19 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %20 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
    %21 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %22 = stablehlo.multiply %20, %21 : tensor<4x4xf32>
    %23 = stablehlo.multiply %11, %11 : tensor<1xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %25 = stablehlo.divide %24, %23 : tensor<1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x4xf32>
    %28 = stablehlo.multiply %22, %27 : tensor<4x4xf32>
    %29 = stablehlo.add %17, %28 : tensor<4x4xf32>
    %30 = stablehlo.multiply %11, %11 : tensor<1xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %32 = stablehlo.divide %31, %30 : tensor<1xf32>
    %33 = stablehlo.multiply %11, %11 : tensor<1xf32>
    %34 = stablehlo.multiply %11, %33 : tensor<1xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %36 = stablehlo.divide %35, %34 : tensor<1xf32>
    %cst_8 = stablehlo.constant dense<-2.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %38 = stablehlo.multiply %37, %36 : tensor<1xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x1xf32>
    %41 = stablehlo.multiply %12, %40 : tensor<4x1xf32>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %43 = stablehlo.multiply %42, %14 : tensor<4xf32>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %45 = stablehlo.multiply %44, %29 : tensor<4x4xf32>
    %46 = stablehlo.broadcast_in_dim %cst_0, dims = [0] : (tensor<1xf32>) -> tensor<1x4xf32>
    %47 = stablehlo.broadcast_in_dim %43, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %48 = stablehlo.broadcast_in_dim %45, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
    %49 = stablehlo.multiply %46, %47 : tensor<1x4xf32>
    %50 = stablehlo.broadcast_in_dim %46, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %52 = stablehlo.multiply %51, %48 : tensor<4x1x4xf32>
    %53 = stablehlo.broadcast_in_dim %32, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %54 = stablehlo.broadcast_in_dim %41, dims = [0, 2] : (tensor<4x1xf32>) -> tensor<4x1x1xf32>
    %55 = stablehlo.broadcast_in_dim %53, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x4xf32>
    %56 = stablehlo.multiply %49, %55 : tensor<1x4xf32>
    %57 = stablehlo.broadcast_in_dim %53, dims = [1, 2] : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2] : (tensor<1x1x1xf32>) -> tensor<4x1x4xf32>
    %59 = stablehlo.multiply %52, %58 : tensor<4x1x4xf32>
    %60 = stablehlo.broadcast_in_dim %49, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %62 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2] : (tensor<4x1x1xf32>) -> tensor<4x1x4xf32>
    %63 = stablehlo.multiply %61, %62 : tensor<4x1x4xf32>
    %64 = stablehlo.add %59, %63 : tensor<4x1x4xf32>
    %65 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %66 = stablehlo.broadcast_in_dim %8, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
    %67 = stablehlo.multiply %56, %65 : tensor<1x4xf32>
    %68 = stablehlo.broadcast_in_dim %65, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %70 = stablehlo.multiply %64, %69 : tensor<4x1x4xf32>
    %71 = stablehlo.broadcast_in_dim %56, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %73 = stablehlo.multiply %72, %66 : tensor<4x1x4xf32>
    %74 = stablehlo.add %70, %73 : tensor<4x1x4xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %75 = stablehlo.reduce(%67 init: %cst_11) applies stablehlo.add across dimensions = [1] : (tensor<1x4xf32>, tensor<f32>) -> tensor<1xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.reduce(%74 init: %cst_12) applies stablehlo.add across dimensions = [2] : (tensor<4x1x4xf32>, tensor<f32>) -> tensor<4x1xf32>
    %77 = stablehlo.reshape %75 : (tensor<1xf32>) -> tensor<1x1xf32>
    %78 = stablehlo.reshape %76 : (tensor<4x1xf32>) -> tensor<4x1x1xf32>
    %79 = stablehlo.negate %77 : tensor<1x1xf32>
    %80 = stablehlo.negate %78 : tensor<4x1x1xf32>
    %81 = stablehlo.broadcast_in_dim %11, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %82 = stablehlo.broadcast_in_dim %12, dims = [0, 2] : (tensor<4x1xf32>) -> tensor<4x1x1xf32>
    %83 = stablehlo.broadcast_in_dim %81, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x4xf32>
    %84 = stablehlo.divide %49, %83 : tensor<1x4xf32>
    %85 = stablehlo.broadcast_in_dim %81, dims = [1, 2] : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %86 = stablehlo.broadcast_in_dim %85, dims = [0, 1, 2] : (tensor<1x1x1xf32>) -> tensor<4x1x4xf32>
    %87 = stablehlo.divide %52, %86 : tensor<4x1x4xf32>
    %88 = stablehlo.negate %82 : tensor<4x1x1xf32>
    %89 = stablehlo.broadcast_in_dim %49, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %90 = stablehlo.broadcast_in_dim %88, dims = [0, 1, 2] : (tensor<4x1x1xf32>) -> tensor<4x1x4xf32>
    %91 = stablehlo.broadcast_in_dim %89, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %92 = stablehlo.multiply %90, %91 : tensor<4x1x4xf32>
    %93 = stablehlo.multiply %81, %81 : tensor<1x1xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %95 = stablehlo.divide %94, %93 : tensor<1x1xf32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [1, 2] : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0, 1, 2] : (tensor<1x1x1xf32>) -> tensor<4x1x4xf32>
    %98 = stablehlo.multiply %92, %97 : tensor<4x1x4xf32>
    %99 = stablehlo.add %87, %98 : tensor<4x1x4xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %100 = stablehlo.reduce(%79 init: %cst_14) applies stablehlo.add across dimensions = [1] : (tensor<1x1xf32>, tensor<f32>) -> tensor<1xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %101 = stablehlo.reduce(%80 init: %cst_15) applies stablehlo.add across dimensions = [2] : (tensor<4x1x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %102 = stablehlo.broadcast_in_dim %100, dims = [0] : (tensor<1xf32>) -> tensor<1x4xf32>
    %103 = stablehlo.broadcast_in_dim %101, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x1x4xf32>
    %104 = stablehlo.add %84, %102 : tensor<1x4xf32>
    %105 = stablehlo.add %99, %103 : tensor<4x1x4xf32>
    %106 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %107 = stablehlo.broadcast_in_dim %8, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
    %108 = stablehlo.broadcast_in_dim %106, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %109 = stablehlo.broadcast_in_dim %108, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %110 = stablehlo.multiply %105, %109 : tensor<4x1x4xf32>
    %111 = stablehlo.broadcast_in_dim %104, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %113 = stablehlo.multiply %112, %107 : tensor<4x1x4xf32>
    %114 = stablehlo.add %110, %113 : tensor<4x1x4xf32>
    %115 = stablehlo.reshape %114 : (tensor<4x1x4xf32>) -> tensor<4x4xf32>
    %116 = stablehlo.transpose %115, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %116 : tensor<4x4xf32>
  }
}
