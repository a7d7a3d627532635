module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.sine %arg0 : tensor<8xf32>
    %1 = stablehlo.cosine %arg0 : tensor<8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.multiply %0, %2 : tensor<8xf32>
    %4 = stablehlo.add %3, %arg0 : tensor<8xf32>
    %5 = stablehlo.sine %4 : tensor<8xf32>
    %6 = stablehlo.cosine %4 : tensor<8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %8 = stablehlo.multiply %5, %7 : tensor<8xf32>
    %9 = stablehlo.add %8, %4 : tensor<8xf32>
    %10 = stablehlo.sine %9 : tensor<8xf32>
    %11 = stablehlo.cosine %9 : tensor<8xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %13 = stablehlo.multiply %10, %12 : tensor<8xf32>
    %14 = stablehlo.add %13, %9 : tensor<8xf32>
    %15 = stablehlo.sine %14 : tensor<8xf32>
    %16 = stablehlo.cosine %14 : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %18 = stablehlo.multiply %15, %17 : tensor<8xf32>
    %19 = stablehlo.add %18, %14 : tensor<8xf32>
    %20 = stablehlo.sine %19 : tensor<8xf32>
    %21 = stablehlo.cosine %19 : tensor<8xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %23 = stablehlo.multiply %20, %22 : tensor<8xf32>
    %24 = stablehlo.add %23, %19 : tensor<8xf32>
    %25 = stablehlo.sine %24 : tensor<8xf32>
    %26 = stablehlo.cosine %24 : tensor<8xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %28 = stablehlo.multiply %25, %27 : tensor<8xf32>
    %29 = stablehlo.add %28, %24 : tensor<8xf32>
    %30 = stablehlo.sine %29 : tensor<8xf32>
    %31 = stablehlo.cosine %29 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %33 = stablehlo.multiply %30, %32 : tensor<8xf32>
    %34 = stablehlo.add %33, %29 : tensor<8xf32>
    %35 = stablehlo.sine %34 : tensor<8xf32>
    %36 = stablehlo.cosine %34 : tensor<8xf32>
    %cst_6 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %38 = stablehlo.multiply %35, %37 : tensor<8xf32>
    %39 = stablehlo.add %38, %34 : tensor<8xf32>
    %40 = stablehlo.sine %39 : tensor<8xf32>
    %41 = stablehlo.cosine %39 : tensor<8xf32>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %43 = stablehlo.multiply %40, %42 : tensor<8xf32>
    %44 = stablehlo.add %43, %39 : tensor<8xf32>
    %45 = stablehlo.cosine %44 : tensor<8xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %48 = stablehlo.multiply %46, %47 : tensor<8xf32>
    %49 = stablehlo.multiply %48, %45 : tensor<8xf32>
    %50 = stablehlo.add %46, %49 : tensor<8xf32>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %52 = stablehlo.multiply %50, %51 : tensor<8xf32>
    %53 = stablehlo.multiply %52, %41 : tensor<8xf32>
    %54 = stablehlo.add %50, %53 : tensor<8xf32>
    %cst_11 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %56 = stablehlo.multiply %54, %55 : tensor<8xf32>
    %57 = stablehlo.multiply %56, %36 : tensor<8xf32>
    %58 = stablehlo.add %54, %57 : tensor<8xf32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %60 = stablehlo.multiply %58, %59 : tensor<8xf32>
    %61 = stablehlo.multiply %60, %31 : tensor<8xf32>
    %62 = stablehlo.add %58, %61 : tensor<8xf32>
    %cst_13 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %64 = stablehlo.multiply %62, %63 : tensor<8xf32>
    %65 = stablehlo.multiply %64, %26 : tensor<8xf32>
    %66 = stablehlo.add %62, %65 : tensor<8xf32>
    %cst_14 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %68 = stablehlo.multiply %66, %67 : tensor<8xf32>
    %69 = stablehlo.multiply %68, %21 : tensor<8xf32>
    %70 = stablehlo.add %66, %69 : tensor<8xf32>
    %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %72 = stablehlo.multiply %70, %71 : tensor<8xf32>
    %73 = stablehlo.multiply %72, %16 : tensor<8xf32>
    %74 = stablehlo.add %70, %73 : tensor<8xf32>
    %cst_16 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %76 = stablehlo.multiply %74, %75 : tensor<8xf32>
    %77 = stablehlo.multiply %76, %11 : tensor<8xf32>
    %78 = stablehlo.add %74, %77 : tensor<8xf32>
    %cst_17 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %80 = stablehlo.multiply %78, %79 : tensor<8xf32>
    %81 = stablehlo.multiply %80, %6 : tensor<8xf32>
    %82 = stablehlo.add %78, %81 : tensor<8xf32>
    %cst_18 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %84 = stablehlo.multiply %82, %83 : tensor<8xf32>
    %85 = stablehlo.multiply %84, %1 : tensor<8xf32>
    %86 = stablehlo.add %82, %85 : tensor<8xf32>
    return %86 : tensor<8xf32>
  }
}
