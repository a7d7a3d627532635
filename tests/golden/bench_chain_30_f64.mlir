module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf64>) -> tensor<8xf64> {
    %0 = stablehlo.sine %arg0 : tensor<8xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %2 = stablehlo.multiply %0, %1 : tensor<8xf64>
    %3 = stablehlo.add %2, %arg0 : tensor<8xf64>
    %4 = stablehlo.sine %3 : tensor<8xf64>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %6 = stablehlo.multiply %4, %5 : tensor<8xf64>
    %7 = stablehlo.add %6, %3 : tensor<8xf64>
    %8 = stablehlo.sine %7 : tensor<8xf64>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %10 = stablehlo.multiply %8, %9 : tensor<8xf64>
    %11 = stablehlo.add %10, %7 : tensor<8xf64>
    %12 = stablehlo.sine %11 : tensor<8xf64>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %14 = stablehlo.multiply %12, %13 : tensor<8xf64>
    %15 = stablehlo.add %14, %11 : tensor<8xf64>
    %16 = stablehlo.sine %15 : tensor<8xf64>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %18 = stablehlo.multiply %16, %17 : tensor<8xf64>
    %19 = stablehlo.add %18, %15 : tensor<8xf64>
    %20 = stablehlo.sine %19 : tensor<8xf64>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %22 = stablehlo.multiply %20, %21 : tensor<8xf64>
    %23 = stablehlo.add %22, %19 : tensor<8xf64>
    %24 = stablehlo.sine %23 : tensor<8xf64>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %25 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %26 = stablehlo.multiply %24, %25 : tensor<8xf64>
    %27 = stablehlo.add %26, %23 : tensor<8xf64>
    %28 = stablehlo.sine %27 : tensor<8xf64>
    %cst_6 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %29 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %30 = stablehlo.multiply %28, %29 : tensor<8xf64>
    %31 = stablehlo.add %30, %27 : tensor<8xf64>
    %32 = stablehlo.sine %31 : tensor<8xf64>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %33 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %34 = stablehlo.multiply %32, %33 : tensor<8xf64>
    %35 = stablehlo.add %34, %31 : tensor<8xf64>
    %36 = stablehlo.sine %35 : tensor<8xf64>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %37 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %38 = stablehlo.multiply %36, %37 : tensor<8xf64>
    %39 = stablehlo.add %38, %35 : tensor<8xf64>
    return %39 : tensor<8xf64>
  }
}
