module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xui32>) -> tensor<3x2xf32> {
    %0 = call @_normal(%arg0) : (tensor<2xui32>) -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  }
  func.func private @_normal(%arg0: tensor<2xui32>) -> tensor<3x2xf32> {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %cst = stablehlo.constant dense<-0.99999994> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %2 = stablehlo.iota dim = 0 : tensor<6xui32>
    %3 = stablehlo.reshape %2 : (tensor<6xui32>) -> tensor<3x2xui32>
    %4 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %7 = stablehlo.reshape %6 : (tensor<1xui32>) -> tensor<ui32>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %8 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %9 = stablehlo.xor %5, %7 : tensor<ui32>
    %c_3 = stablehlo.constant dense<466688986> : tensor<ui32>
    %10 = stablehlo.xor %9, %c_3 : tensor<ui32>
    %11 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %12 = stablehlo.add %8, %11 : tensor<3x2xui32>
    %13 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %14 = stablehlo.add %3, %13 : tensor<3x2xui32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %15:9 = stablehlo.while(%iterArg = %c_5, %iterArg_10 = %c_4, %iterArg_11 = %12, %iterArg_12 = %14, %iterArg_13 = %7, %iterArg_14 = %10, %iterArg_15 = %5, %iterArg_16 = %c, %iterArg_17 = %c_0) : tensor<i32>, tensor<i32>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_18 = stablehlo.constant dense<5> : tensor<i32>
      %34 = stablehlo.compare LT, %iterArg, %c_18, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %34 : tensor<i1>
    } do {
      %c_18 = stablehlo.constant dense<1> : tensor<i32>
      %34 = stablehlo.add %iterArg_10, %c_18 : tensor<i32>
      %35 = stablehlo.add %iterArg_11, %iterArg_12 : tensor<3x2xui32>
      %36 = stablehlo.slice %iterArg_16 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
      %37 = stablehlo.reshape %36 : (tensor<1xui32>) -> tensor<ui32>
      %38 = stablehlo.broadcast_in_dim %37, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %39 = stablehlo.shift_left %iterArg_12, %38 : tensor<3x2xui32>
      %c_19 = stablehlo.constant dense<32> : tensor<ui32>
      %40 = stablehlo.subtract %c_19, %37 : tensor<ui32>
      %41 = stablehlo.broadcast_in_dim %40, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %42 = stablehlo.shift_right_logical %iterArg_12, %41 : tensor<3x2xui32>
      %43 = stablehlo.or %39, %42 : tensor<3x2xui32>
      %44 = stablehlo.xor %35, %43 : tensor<3x2xui32>
      %45 = stablehlo.add %35, %44 : tensor<3x2xui32>
      %46 = stablehlo.slice %iterArg_16 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
      %47 = stablehlo.reshape %46 : (tensor<1xui32>) -> tensor<ui32>
      %48 = stablehlo.broadcast_in_dim %47, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %49 = stablehlo.shift_left %44, %48 : tensor<3x2xui32>
      %c_20 = stablehlo.constant dense<32> : tensor<ui32>
      %50 = stablehlo.subtract %c_20, %47 : tensor<ui32>
      %51 = stablehlo.broadcast_in_dim %50, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %52 = stablehlo.shift_right_logical %44, %51 : tensor<3x2xui32>
      %53 = stablehlo.or %49, %52 : tensor<3x2xui32>
      %54 = stablehlo.xor %45, %53 : tensor<3x2xui32>
      %55 = stablehlo.add %45, %54 : tensor<3x2xui32>
      %56 = stablehlo.slice %iterArg_16 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
      %57 = stablehlo.reshape %56 : (tensor<1xui32>) -> tensor<ui32>
      %58 = stablehlo.broadcast_in_dim %57, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %59 = stablehlo.shift_left %54, %58 : tensor<3x2xui32>
      %c_21 = stablehlo.constant dense<32> : tensor<ui32>
      %60 = stablehlo.subtract %c_21, %57 : tensor<ui32>
      %61 = stablehlo.broadcast_in_dim %60, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %62 = stablehlo.shift_right_logical %54, %61 : tensor<3x2xui32>
      %63 = stablehlo.or %59, %62 : tensor<3x2xui32>
      %64 = stablehlo.xor %55, %63 : tensor<3x2xui32>
      %65 = stablehlo.add %55, %64 : tensor<3x2xui32>
      %66 = stablehlo.slice %iterArg_16 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
      %67 = stablehlo.reshape %66 : (tensor<1xui32>) -> tensor<ui32>
      %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %69 = stablehlo.shift_left %64, %68 : tensor<3x2xui32>
      %c_22 = stablehlo.constant dense<32> : tensor<ui32>
      %70 = stablehlo.subtract %c_22, %67 : tensor<ui32>
      %71 = stablehlo.broadcast_in_dim %70, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %72 = stablehlo.shift_right_logical %64, %71 : tensor<3x2xui32>
      %73 = stablehlo.or %69, %72 : tensor<3x2xui32>
      %74 = stablehlo.xor %65, %73 : tensor<3x2xui32>
      %75 = stablehlo.broadcast_in_dim %iterArg_13, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %76 = stablehlo.add %65, %75 : tensor<3x2xui32>
      %77 = stablehlo.broadcast_in_dim %iterArg_14, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %78 = stablehlo.add %74, %77 : tensor<3x2xui32>
      %c_23 = stablehlo.constant dense<1> : tensor<i32>
      %79 = stablehlo.add %iterArg_10, %c_23 : tensor<i32>
      %80 = stablehlo.convert %79 : (tensor<i32>) -> tensor<ui32>
      %81 = stablehlo.broadcast_in_dim %80, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
      %82 = stablehlo.add %78, %81 : tensor<3x2xui32>
      %c_24 = stablehlo.constant dense<1> : tensor<i32>
      %83 = stablehlo.add %iterArg, %c_24 : tensor<i32>
      stablehlo.return %83, %34, %76, %82, %iterArg_14, %iterArg_15, %iterArg_13, %iterArg_17, %iterArg_16 : tensor<i32>, tensor<i32>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    %16 = stablehlo.xor %15#2, %15#3 : tensor<3x2xui32>
    %c_6 = stablehlo.constant dense<9> : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %18 = stablehlo.shift_right_logical %16, %17 : tensor<3x2xui32>
    %c_7 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %19 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %20 = stablehlo.or %18, %19 : tensor<3x2xui32>
    %21 = stablehlo.bitcast_convert %20 : (tensor<3x2xui32>) -> tensor<3x2xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
    %23 = stablehlo.subtract %21, %22 : tensor<3x2xf32>
    %24 = stablehlo.subtract %1, %0 : tensor<1x1xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<3x2xf32>
    %26 = stablehlo.multiply %23, %25 : tensor<3x2xf32>
    %27 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<3x2xf32>
    %28 = stablehlo.add %26, %27 : tensor<3x2xf32>
    %29 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<3x2xf32>
    %30 = stablehlo.maximum %29, %28 : tensor<3x2xf32>
    %31 = chlo.erf_inv %30 : tensor<3x2xf32> -> tensor<3x2xf32>
    %cst_9 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
    %33 = stablehlo.multiply %32, %31 : tensor<3x2xf32>
    return %33 : tensor<3x2xf32>
  }
}
