module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xui32>, %arg1: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %c_1 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_2 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %c_3 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_4 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %c_5 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_6 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %c_7 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_8 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %c_9 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_10 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %c_11 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_12 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.reshape %arg0 : (tensor<2xui32>) -> tensor<1x2xui32>
    %c_13 = stablehlo.constant dense<0> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<ui32>) -> tensor<1x12x2xui32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %c_14, %iterArg_16 = %c, %iterArg_17 = %c_0, %iterArg_18 = %0, %iterArg_19 = %1) : tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<1x2xui32>, tensor<1x12x2xui32>
    cond {
      %c_20 = stablehlo.constant dense<1> : tensor<i32>
      %13 = stablehlo.compare LT, %iterArg, %c_20, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %13 : tensor<i1>
    } do {
      %c_20 = stablehlo.constant dense<0> : tensor<i32>
      %13 = stablehlo.dynamic_slice %iterArg_18, %iterArg, %c_20, sizes = [1, 2] : (tensor<1x2xui32>, tensor<i32>, tensor<i32>) -> tensor<1x2xui32>
      %14 = stablehlo.reshape %13 : (tensor<1x2xui32>) -> tensor<2xui32>
      %15 = stablehlo.iota dim = 0 : tensor<12xui32>
      %16 = stablehlo.slice %14 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
      %17 = stablehlo.reshape %16 : (tensor<1xui32>) -> tensor<ui32>
      %18 = stablehlo.slice %14 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
      %19 = stablehlo.reshape %18 : (tensor<1xui32>) -> tensor<ui32>
      %c_21 = stablehlo.constant dense<0> : tensor<ui32>
      %20 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %21 = stablehlo.xor %17, %19 : tensor<ui32>
      %c_22 = stablehlo.constant dense<466688986> : tensor<ui32>
      %22 = stablehlo.xor %21, %c_22 : tensor<ui32>
      %23 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %24 = stablehlo.add %20, %23 : tensor<12xui32>
      %25 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %26 = stablehlo.add %15, %25 : tensor<12xui32>
      %c_23 = stablehlo.constant dense<0> : tensor<i32>
      %c_24 = stablehlo.constant dense<0> : tensor<i32>
      %27:9 = stablehlo.while(%iterArg_28 = %c_24, %iterArg_29 = %c_23, %iterArg_30 = %24, %iterArg_31 = %26, %iterArg_32 = %19, %iterArg_33 = %22, %iterArg_34 = %17, %iterArg_35 = %iterArg_16, %iterArg_36 = %iterArg_17) : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
      cond {
        %c_37 = stablehlo.constant dense<5> : tensor<i32>
        %34 = stablehlo.compare LT, %iterArg_28, %c_37, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %34 : tensor<i1>
      } do {
        %c_37 = stablehlo.constant dense<1> : tensor<i32>
        %34 = stablehlo.add %iterArg_29, %c_37 : tensor<i32>
        %35 = stablehlo.add %iterArg_30, %iterArg_31 : tensor<12xui32>
        %36 = stablehlo.slice %iterArg_35 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
        %37 = stablehlo.reshape %36 : (tensor<1xui32>) -> tensor<ui32>
        %38 = stablehlo.broadcast_in_dim %37, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %39 = stablehlo.shift_left %iterArg_31, %38 : tensor<12xui32>
        %c_38 = stablehlo.constant dense<32> : tensor<ui32>
        %40 = stablehlo.subtract %c_38, %37 : tensor<ui32>
        %41 = stablehlo.broadcast_in_dim %40, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %42 = stablehlo.shift_right_logical %iterArg_31, %41 : tensor<12xui32>
        %43 = stablehlo.or %39, %42 : tensor<12xui32>
        %44 = stablehlo.xor %35, %43 : tensor<12xui32>
        %45 = stablehlo.add %35, %44 : tensor<12xui32>
        %46 = stablehlo.slice %iterArg_35 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
        %47 = stablehlo.reshape %46 : (tensor<1xui32>) -> tensor<ui32>
        %48 = stablehlo.broadcast_in_dim %47, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %49 = stablehlo.shift_left %44, %48 : tensor<12xui32>
        %c_39 = stablehlo.constant dense<32> : tensor<ui32>
        %50 = stablehlo.subtract %c_39, %47 : tensor<ui32>
        %51 = stablehlo.broadcast_in_dim %50, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %52 = stablehlo.shift_right_logical %44, %51 : tensor<12xui32>
        %53 = stablehlo.or %49, %52 : tensor<12xui32>
        %54 = stablehlo.xor %45, %53 : tensor<12xui32>
        %55 = stablehlo.add %45, %54 : tensor<12xui32>
        %56 = stablehlo.slice %iterArg_35 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
        %57 = stablehlo.reshape %56 : (tensor<1xui32>) -> tensor<ui32>
        %58 = stablehlo.broadcast_in_dim %57, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %59 = stablehlo.shift_left %54, %58 : tensor<12xui32>
        %c_40 = stablehlo.constant dense<32> : tensor<ui32>
        %60 = stablehlo.subtract %c_40, %57 : tensor<ui32>
        %61 = stablehlo.broadcast_in_dim %60, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %62 = stablehlo.shift_right_logical %54, %61 : tensor<12xui32>
        %63 = stablehlo.or %59, %62 : tensor<12xui32>
        %64 = stablehlo.xor %55, %63 : tensor<12xui32>
        %65 = stablehlo.add %55, %64 : tensor<12xui32>
        %66 = stablehlo.slice %iterArg_35 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
        %67 = stablehlo.reshape %66 : (tensor<1xui32>) -> tensor<ui32>
        %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %69 = stablehlo.shift_left %64, %68 : tensor<12xui32>
        %c_41 = stablehlo.constant dense<32> : tensor<ui32>
        %70 = stablehlo.subtract %c_41, %67 : tensor<ui32>
        %71 = stablehlo.broadcast_in_dim %70, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %72 = stablehlo.shift_right_logical %64, %71 : tensor<12xui32>
        %73 = stablehlo.or %69, %72 : tensor<12xui32>
        %74 = stablehlo.xor %65, %73 : tensor<12xui32>
        %75 = stablehlo.broadcast_in_dim %iterArg_32, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %76 = stablehlo.add %65, %75 : tensor<12xui32>
        %77 = stablehlo.broadcast_in_dim %iterArg_33, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %78 = stablehlo.add %74, %77 : tensor<12xui32>
        %c_42 = stablehlo.constant dense<1> : tensor<i32>
        %79 = stablehlo.add %iterArg_29, %c_42 : tensor<i32>
        %80 = stablehlo.convert %79 : (tensor<i32>) -> tensor<ui32>
        %81 = stablehlo.broadcast_in_dim %80, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %82 = stablehlo.add %78, %81 : tensor<12xui32>
        %c_43 = stablehlo.constant dense<1> : tensor<i32>
        %83 = stablehlo.add %iterArg_28, %c_43 : tensor<i32>
        stablehlo.return %83, %34, %76, %82, %iterArg_33, %iterArg_34, %iterArg_32, %iterArg_36, %iterArg_35 : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
      }
      %28 = stablehlo.reshape %27#2 : (tensor<12xui32>) -> tensor<12x1xui32>
      %29 = stablehlo.reshape %27#3 : (tensor<12xui32>) -> tensor<12x1xui32>
      %30 = stablehlo.concatenate %28, %29, dim = 1 : (tensor<12x1xui32>, tensor<12x1xui32>) -> tensor<12x2xui32>
      %31 = stablehlo.reshape %30 : (tensor<12x2xui32>) -> tensor<1x12x2xui32>
      %c_25 = stablehlo.constant dense<0> : tensor<i32>
      %c_26 = stablehlo.constant dense<0> : tensor<i32>
      %32 = stablehlo.dynamic_update_slice %iterArg_19, %31, %iterArg, %c_25, %c_26 : (tensor<1x12x2xui32>, tensor<1x12x2xui32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x12x2xui32>
      %c_27 = stablehlo.constant dense<1> : tensor<i32>
      %33 = stablehlo.add %iterArg, %c_27 : tensor<i32>
      stablehlo.return %33, %iterArg_16, %iterArg_17, %iterArg_18, %32 : tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<1x2xui32>, tensor<1x12x2xui32>
    }
    %3 = stablehlo.reshape %2#4 : (tensor<1x12x2xui32>) -> tensor<12x2xui32>
    %4 = stablehlo.reshape %arg1 : (tensor<3x4xf32>) -> tensor<12xf32>
    %5 = stablehlo.slice %3 [0:12, 0:2] : (tensor<12x2xui32>) -> tensor<12x2xui32>
    %6 = stablehlo.reshape %5 : (tensor<12x2xui32>) -> tensor<1x12x2xui32>
    %7 = stablehlo.slice %4 [0:12] : (tensor<12xf32>) -> tensor<12xf32>
    %8 = stablehlo.reshape %7 : (tensor<12xf32>) -> tensor<1x12xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x12xf32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %10:16 = stablehlo.while(%iterArg = %c_15, %iterArg_16 = %c_1, %iterArg_17 = %c_2, %iterArg_18 = %c_3, %iterArg_19 = %c_4, %iterArg_20 = %c_5, %iterArg_21 = %c_6, %iterArg_22 = %c_7, %iterArg_23 = %c_8, %iterArg_24 = %c_9, %iterArg_25 = %c_10, %iterArg_26 = %c_11, %iterArg_27 = %c_12, %iterArg_28 = %6, %iterArg_29 = %8, %iterArg_30 = %9) : tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<1x12x2xui32>, tensor<1x12xf32>, tensor<1x12xf32>
    cond {
      %c_31 = stablehlo.constant dense<1> : tensor<i32>
      %13 = stablehlo.compare LT, %iterArg, %c_31, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %13 : tensor<i1>
    } do {
      %c_31 = stablehlo.constant dense<0> : tensor<i32>
      %c_32 = stablehlo.constant dense<0> : tensor<i32>
      %13 = stablehlo.dynamic_slice %iterArg_28, %iterArg, %c_31, %c_32, sizes = [1, 12, 2] : (tensor<1x12x2xui32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x12x2xui32>
      %14 = stablehlo.reshape %13 : (tensor<1x12x2xui32>) -> tensor<12x2xui32>
      %c_33 = stablehlo.constant dense<0> : tensor<i32>
      %15 = stablehlo.dynamic_slice %iterArg_29, %iterArg, %c_33, sizes = [1, 12] : (tensor<1x12xf32>, tensor<i32>, tensor<i32>) -> tensor<1x12xf32>
      %16 = stablehlo.reshape %15 : (tensor<1x12xf32>) -> tensor<12xf32>
      %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %17 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %18 = stablehlo.compare GE, %16, %17, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
      %cst_35 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %19 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %20 = stablehlo.add %16, %19 : tensor<12xf32>
      %21 = stablehlo.select %18, %16, %20 : tensor<12xi1>, tensor<12xf32>
      %cst_36 = stablehlo.constant dense<0.333333343> : tensor<f32>
      %22 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %23 = stablehlo.subtract %21, %22 : tensor<12xf32>
      %24 = stablehlo.sqrt %23 : tensor<12xf32>
      %cst_37 = stablehlo.constant dense<0.333333343> : tensor<f32>
      %25 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %26 = stablehlo.divide %25, %24 : tensor<12xf32>
      %27 = stablehlo.iota dim = 0 : tensor<2xui32>
      %28 = stablehlo.slice %14 [0:12, 0:1] : (tensor<12x2xui32>) -> tensor<12x1xui32>
      %29 = stablehlo.reshape %28 : (tensor<12x1xui32>) -> tensor<12xui32>
      %30 = stablehlo.slice %14 [0:12, 1:2] : (tensor<12x2xui32>) -> tensor<12x1xui32>
      %31 = stablehlo.reshape %30 : (tensor<12x1xui32>) -> tensor<12xui32>
      %c_38 = stablehlo.constant dense<0> : tensor<ui32>
      %32 = stablehlo.broadcast_in_dim %c_38, dims = [] : (tensor<ui32>) -> tensor<2xui32>
      %33 = stablehlo.xor %29, %31 : tensor<12xui32>
      %c_39 = stablehlo.constant dense<466688986> : tensor<ui32>
      %34 = stablehlo.broadcast_in_dim %c_39, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %35 = stablehlo.xor %33, %34 : tensor<12xui32>
      %36 = stablehlo.broadcast_in_dim %32, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
      %37 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
      %38 = stablehlo.broadcast_in_dim %36, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<12x2xui32>
      %39 = stablehlo.broadcast_in_dim %37, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
      %40 = stablehlo.add %38, %39 : tensor<12x2xui32>
      %41 = stablehlo.broadcast_in_dim %27, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
      %42 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
      %43 = stablehlo.broadcast_in_dim %41, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<12x2xui32>
      %44 = stablehlo.broadcast_in_dim %42, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
      %45 = stablehlo.add %43, %44 : tensor<12x2xui32>
      %c_40 = stablehlo.constant dense<0> : tensor<i32>
      %c_41 = stablehlo.constant dense<0> : tensor<i32>
      %46:9 = stablehlo.while(%iterArg_62 = %c_41, %iterArg_63 = %c_40, %iterArg_64 = %40, %iterArg_65 = %45, %iterArg_66 = %31, %iterArg_67 = %35, %iterArg_68 = %29, %iterArg_69 = %iterArg_16, %iterArg_70 = %iterArg_17) : tensor<i32>, tensor<i32>, tensor<12x2xui32>, tensor<12x2xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
      cond {
        %c_71 = stablehlo.constant dense<5> : tensor<i32>
        %98 = stablehlo.compare LT, %iterArg_62, %c_71, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %98 : tensor<i1>
      } do {
        %c_71 = stablehlo.constant dense<1> : tensor<i32>
        %98 = stablehlo.add %iterArg_63, %c_71 : tensor<i32>
        %99 = stablehlo.add %iterArg_64, %iterArg_65 : tensor<12x2xui32>
        %100 = stablehlo.slice %iterArg_69 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
        %101 = stablehlo.reshape %100 : (tensor<1xui32>) -> tensor<ui32>
        %102 = stablehlo.broadcast_in_dim %101, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %103 = stablehlo.shift_left %iterArg_65, %102 : tensor<12x2xui32>
        %c_72 = stablehlo.constant dense<32> : tensor<ui32>
        %104 = stablehlo.subtract %c_72, %101 : tensor<ui32>
        %105 = stablehlo.broadcast_in_dim %104, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %106 = stablehlo.shift_right_logical %iterArg_65, %105 : tensor<12x2xui32>
        %107 = stablehlo.or %103, %106 : tensor<12x2xui32>
        %108 = stablehlo.xor %99, %107 : tensor<12x2xui32>
        %109 = stablehlo.add %99, %108 : tensor<12x2xui32>
        %110 = stablehlo.slice %iterArg_69 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
        %111 = stablehlo.reshape %110 : (tensor<1xui32>) -> tensor<ui32>
        %112 = stablehlo.broadcast_in_dim %111, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %113 = stablehlo.shift_left %108, %112 : tensor<12x2xui32>
        %c_73 = stablehlo.constant dense<32> : tensor<ui32>
        %114 = stablehlo.subtract %c_73, %111 : tensor<ui32>
        %115 = stablehlo.broadcast_in_dim %114, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %116 = stablehlo.shift_right_logical %108, %115 : tensor<12x2xui32>
        %117 = stablehlo.or %113, %116 : tensor<12x2xui32>
        %118 = stablehlo.xor %109, %117 : tensor<12x2xui32>
        %119 = stablehlo.add %109, %118 : tensor<12x2xui32>
        %120 = stablehlo.slice %iterArg_69 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
        %121 = stablehlo.reshape %120 : (tensor<1xui32>) -> tensor<ui32>
        %122 = stablehlo.broadcast_in_dim %121, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %123 = stablehlo.shift_left %118, %122 : tensor<12x2xui32>
        %c_74 = stablehlo.constant dense<32> : tensor<ui32>
        %124 = stablehlo.subtract %c_74, %121 : tensor<ui32>
        %125 = stablehlo.broadcast_in_dim %124, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %126 = stablehlo.shift_right_logical %118, %125 : tensor<12x2xui32>
        %127 = stablehlo.or %123, %126 : tensor<12x2xui32>
        %128 = stablehlo.xor %119, %127 : tensor<12x2xui32>
        %129 = stablehlo.add %119, %128 : tensor<12x2xui32>
        %130 = stablehlo.slice %iterArg_69 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
        %131 = stablehlo.reshape %130 : (tensor<1xui32>) -> tensor<ui32>
        %132 = stablehlo.broadcast_in_dim %131, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %133 = stablehlo.shift_left %128, %132 : tensor<12x2xui32>
        %c_75 = stablehlo.constant dense<32> : tensor<ui32>
        %134 = stablehlo.subtract %c_75, %131 : tensor<ui32>
        %135 = stablehlo.broadcast_in_dim %134, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %136 = stablehlo.shift_right_logical %128, %135 : tensor<12x2xui32>
        %137 = stablehlo.or %133, %136 : tensor<12x2xui32>
        %138 = stablehlo.xor %129, %137 : tensor<12x2xui32>
        %139 = stablehlo.broadcast_in_dim %iterArg_66, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
        %140 = stablehlo.broadcast_in_dim %139, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
        %141 = stablehlo.add %129, %140 : tensor<12x2xui32>
        %142 = stablehlo.broadcast_in_dim %iterArg_67, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
        %143 = stablehlo.broadcast_in_dim %142, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
        %144 = stablehlo.add %138, %143 : tensor<12x2xui32>
        %c_76 = stablehlo.constant dense<1> : tensor<i32>
        %145 = stablehlo.add %iterArg_63, %c_76 : tensor<i32>
        %146 = stablehlo.convert %145 : (tensor<i32>) -> tensor<ui32>
        %147 = stablehlo.broadcast_in_dim %146, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
        %148 = stablehlo.add %144, %147 : tensor<12x2xui32>
        %c_77 = stablehlo.constant dense<1> : tensor<i32>
        %149 = stablehlo.add %iterArg_62, %c_77 : tensor<i32>
        stablehlo.return %149, %98, %141, %148, %iterArg_67, %iterArg_68, %iterArg_66, %iterArg_70, %iterArg_69 : tensor<i32>, tensor<i32>, tensor<12x2xui32>, tensor<12x2xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
      }
      %47 = stablehlo.reshape %46#2 : (tensor<12x2xui32>) -> tensor<12x2x1xui32>
      %48 = stablehlo.reshape %46#3 : (tensor<12x2xui32>) -> tensor<12x2x1xui32>
      %49 = stablehlo.concatenate %47, %48, dim = 2 : (tensor<12x2x1xui32>, tensor<12x2x1xui32>) -> tensor<12x2x2xui32>
      %50 = stablehlo.slice %49 [0:12, 0:1, 0:2] : (tensor<12x2x2xui32>) -> tensor<12x1x2xui32>
      %51 = stablehlo.reshape %50 : (tensor<12x1x2xui32>) -> tensor<12x2xui32>
      %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %52 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %cst_43 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %53 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %cst_44 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %54 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %55:4 = stablehlo.while(%iterArg_62 = %51, %iterArg_63 = %52, %iterArg_64 = %53, %iterArg_65 = %54) : tensor<12x2xui32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
      cond {
        %98 = stablehlo.multiply %iterArg_63, %iterArg_63 : tensor<12xf32>
        %cst_66 = stablehlo.constant dense<3.310000e-02> : tensor<f32>
        %99 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %100 = stablehlo.multiply %99, %98 : tensor<12xf32>
        %cst_67 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %101 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %102 = stablehlo.subtract %101, %100 : tensor<12xf32>
        %103 = stablehlo.compare GE, %iterArg_65, %102, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
        %104 = stablehlo.log %iterArg_65 : tensor<12xf32>
        %cst_68 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
        %105 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %106 = stablehlo.multiply %iterArg_63, %105 : tensor<12xf32>
        %cst_69 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %107 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %108 = stablehlo.subtract %107, %iterArg_64 : tensor<12xf32>
        %109 = stablehlo.log %iterArg_64 : tensor<12xf32>
        %110 = stablehlo.add %108, %109 : tensor<12xf32>
        %111 = stablehlo.multiply %23, %110 : tensor<12xf32>
        %112 = stablehlo.add %106, %111 : tensor<12xf32>
        %113 = stablehlo.compare GE, %104, %112, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
        %114 = stablehlo.and %103, %113 : tensor<12xi1>
        %c_70 = stablehlo.constant dense<false> : tensor<i1>
        %115 = stablehlo.reduce(%114 init: %c_70) applies stablehlo.maximum across dimensions = [0] : (tensor<12xi1>, tensor<i1>) -> tensor<i1>
        stablehlo.return %115 : tensor<i1>
      } do {
        %98 = stablehlo.multiply %iterArg_63, %iterArg_63 : tensor<12xf32>
        %cst_66 = stablehlo.constant dense<3.310000e-02> : tensor<f32>
        %99 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %100 = stablehlo.multiply %99, %98 : tensor<12xf32>
        %cst_67 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %101 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %102 = stablehlo.subtract %101, %100 : tensor<12xf32>
        %103 = stablehlo.compare GE, %iterArg_65, %102, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
        %104 = stablehlo.log %iterArg_65 : tensor<12xf32>
        %cst_68 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
        %105 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %106 = stablehlo.multiply %iterArg_63, %105 : tensor<12xf32>
        %cst_69 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %107 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %108 = stablehlo.subtract %107, %iterArg_64 : tensor<12xf32>
        %109 = stablehlo.log %iterArg_64 : tensor<12xf32>
        %110 = stablehlo.add %108, %109 : tensor<12xf32>
        %111 = stablehlo.multiply %23, %110 : tensor<12xf32>
        %112 = stablehlo.add %106, %111 : tensor<12xf32>
        %113 = stablehlo.compare GE, %104, %112, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
        %114 = stablehlo.and %103, %113 : tensor<12xi1>
        %115 = stablehlo.iota dim = 0 : tensor<3xui32>
        %116 = stablehlo.slice %iterArg_62 [0:12, 0:1] : (tensor<12x2xui32>) -> tensor<12x1xui32>
        %117 = stablehlo.reshape %116 : (tensor<12x1xui32>) -> tensor<12xui32>
        %118 = stablehlo.slice %iterArg_62 [0:12, 1:2] : (tensor<12x2xui32>) -> tensor<12x1xui32>
        %119 = stablehlo.reshape %118 : (tensor<12x1xui32>) -> tensor<12xui32>
        %c_70 = stablehlo.constant dense<0> : tensor<ui32>
        %120 = stablehlo.broadcast_in_dim %c_70, dims = [] : (tensor<ui32>) -> tensor<3xui32>
        %121 = stablehlo.xor %117, %119 : tensor<12xui32>
        %c_71 = stablehlo.constant dense<466688986> : tensor<ui32>
        %122 = stablehlo.broadcast_in_dim %c_71, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %123 = stablehlo.xor %121, %122 : tensor<12xui32>
        %124 = stablehlo.broadcast_in_dim %120, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
        %125 = stablehlo.broadcast_in_dim %117, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
        %126 = stablehlo.broadcast_in_dim %124, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<12x3xui32>
        %127 = stablehlo.broadcast_in_dim %125, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x3xui32>
        %128 = stablehlo.add %126, %127 : tensor<12x3xui32>
        %129 = stablehlo.broadcast_in_dim %115, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
        %130 = stablehlo.broadcast_in_dim %119, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
        %131 = stablehlo.broadcast_in_dim %129, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<12x3xui32>
        %132 = stablehlo.broadcast_in_dim %130, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x3xui32>
        %133 = stablehlo.add %131, %132 : tensor<12x3xui32>
        %c_72 = stablehlo.constant dense<0> : tensor<i32>
        %c_73 = stablehlo.constant dense<0> : tensor<i32>
        %134:9 = stablehlo.while(%iterArg_88 = %c_73, %iterArg_89 = %c_72, %iterArg_90 = %128, %iterArg_91 = %133, %iterArg_92 = %119, %iterArg_93 = %123, %iterArg_94 = %117, %iterArg_95 = %iterArg_18, %iterArg_96 = %iterArg_19) : tensor<i32>, tensor<i32>, tensor<12x3xui32>, tensor<12x3xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
        cond {
          %c_97 = stablehlo.constant dense<5> : tensor<i32>
          %183 = stablehlo.compare LT, %iterArg_88, %c_97, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %183 : tensor<i1>
        } do {
          %c_97 = stablehlo.constant dense<1> : tensor<i32>
          %183 = stablehlo.add %iterArg_89, %c_97 : tensor<i32>
          %184 = stablehlo.add %iterArg_90, %iterArg_91 : tensor<12x3xui32>
          %185 = stablehlo.slice %iterArg_95 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
          %186 = stablehlo.reshape %185 : (tensor<1xui32>) -> tensor<ui32>
          %187 = stablehlo.broadcast_in_dim %186, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %188 = stablehlo.shift_left %iterArg_91, %187 : tensor<12x3xui32>
          %c_98 = stablehlo.constant dense<32> : tensor<ui32>
          %189 = stablehlo.subtract %c_98, %186 : tensor<ui32>
          %190 = stablehlo.broadcast_in_dim %189, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %191 = stablehlo.shift_right_logical %iterArg_91, %190 : tensor<12x3xui32>
          %192 = stablehlo.or %188, %191 : tensor<12x3xui32>
          %193 = stablehlo.xor %184, %192 : tensor<12x3xui32>
          %194 = stablehlo.add %184, %193 : tensor<12x3xui32>
          %195 = stablehlo.slice %iterArg_95 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
          %196 = stablehlo.reshape %195 : (tensor<1xui32>) -> tensor<ui32>
          %197 = stablehlo.broadcast_in_dim %196, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %198 = stablehlo.shift_left %193, %197 : tensor<12x3xui32>
          %c_99 = stablehlo.constant dense<32> : tensor<ui32>
          %199 = stablehlo.subtract %c_99, %196 : tensor<ui32>
          %200 = stablehlo.broadcast_in_dim %199, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %201 = stablehlo.shift_right_logical %193, %200 : tensor<12x3xui32>
          %202 = stablehlo.or %198, %201 : tensor<12x3xui32>
          %203 = stablehlo.xor %194, %202 : tensor<12x3xui32>
          %204 = stablehlo.add %194, %203 : tensor<12x3xui32>
          %205 = stablehlo.slice %iterArg_95 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
          %206 = stablehlo.reshape %205 : (tensor<1xui32>) -> tensor<ui32>
          %207 = stablehlo.broadcast_in_dim %206, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %208 = stablehlo.shift_left %203, %207 : tensor<12x3xui32>
          %c_100 = stablehlo.constant dense<32> : tensor<ui32>
          %209 = stablehlo.subtract %c_100, %206 : tensor<ui32>
          %210 = stablehlo.broadcast_in_dim %209, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %211 = stablehlo.shift_right_logical %203, %210 : tensor<12x3xui32>
          %212 = stablehlo.or %208, %211 : tensor<12x3xui32>
          %213 = stablehlo.xor %204, %212 : tensor<12x3xui32>
          %214 = stablehlo.add %204, %213 : tensor<12x3xui32>
          %215 = stablehlo.slice %iterArg_95 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
          %216 = stablehlo.reshape %215 : (tensor<1xui32>) -> tensor<ui32>
          %217 = stablehlo.broadcast_in_dim %216, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %218 = stablehlo.shift_left %213, %217 : tensor<12x3xui32>
          %c_101 = stablehlo.constant dense<32> : tensor<ui32>
          %219 = stablehlo.subtract %c_101, %216 : tensor<ui32>
          %220 = stablehlo.broadcast_in_dim %219, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %221 = stablehlo.shift_right_logical %213, %220 : tensor<12x3xui32>
          %222 = stablehlo.or %218, %221 : tensor<12x3xui32>
          %223 = stablehlo.xor %214, %222 : tensor<12x3xui32>
          %224 = stablehlo.broadcast_in_dim %iterArg_92, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
          %225 = stablehlo.broadcast_in_dim %224, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x3xui32>
          %226 = stablehlo.add %214, %225 : tensor<12x3xui32>
          %227 = stablehlo.broadcast_in_dim %iterArg_93, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
          %228 = stablehlo.broadcast_in_dim %227, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x3xui32>
          %229 = stablehlo.add %223, %228 : tensor<12x3xui32>
          %c_102 = stablehlo.constant dense<1> : tensor<i32>
          %230 = stablehlo.add %iterArg_89, %c_102 : tensor<i32>
          %231 = stablehlo.convert %230 : (tensor<i32>) -> tensor<ui32>
          %232 = stablehlo.broadcast_in_dim %231, dims = [] : (tensor<ui32>) -> tensor<12x3xui32>
          %233 = stablehlo.add %229, %232 : tensor<12x3xui32>
          %c_103 = stablehlo.constant dense<1> : tensor<i32>
          %234 = stablehlo.add %iterArg_88, %c_103 : tensor<i32>
          stablehlo.return %234, %183, %226, %233, %iterArg_93, %iterArg_94, %iterArg_92, %iterArg_96, %iterArg_95 : tensor<i32>, tensor<i32>, tensor<12x3xui32>, tensor<12x3xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
        }
        %135 = stablehlo.reshape %134#2 : (tensor<12x3xui32>) -> tensor<12x3x1xui32>
        %136 = stablehlo.reshape %134#3 : (tensor<12x3xui32>) -> tensor<12x3x1xui32>
        %137 = stablehlo.concatenate %135, %136, dim = 2 : (tensor<12x3x1xui32>, tensor<12x3x1xui32>) -> tensor<12x3x2xui32>
        %138 = stablehlo.slice %137 [0:12, 1:2, 0:2] : (tensor<12x3x2xui32>) -> tensor<12x1x2xui32>
        %139 = stablehlo.reshape %138 : (tensor<12x1x2xui32>) -> tensor<12x2xui32>
        %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %140 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %cst_75 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
        %141 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %142:3 = stablehlo.while(%iterArg_88 = %139, %iterArg_89 = %140, %iterArg_90 = %141) : tensor<12x2xui32>, tensor<12xf32>, tensor<12xf32>
        cond {
          %cst_91 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
          %183 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %184 = stablehlo.compare LE, %iterArg_90, %183, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
          %c_92 = stablehlo.constant dense<false> : tensor<i1>
          %185 = stablehlo.reduce(%184 init: %c_92) applies stablehlo.maximum across dimensions = [0] : (tensor<12xi1>, tensor<i1>) -> tensor<i1>
          stablehlo.return %185 : tensor<i1>
        } do {
          %cst_91 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
          %183 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %184 = stablehlo.compare LE, %iterArg_90, %183, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
          %185 = stablehlo.iota dim = 0 : tensor<2xui32>
          %186 = stablehlo.slice %iterArg_88 [0:12, 0:1] : (tensor<12x2xui32>) -> tensor<12x1xui32>
          %187 = stablehlo.reshape %186 : (tensor<12x1xui32>) -> tensor<12xui32>
          %188 = stablehlo.slice %iterArg_88 [0:12, 1:2] : (tensor<12x2xui32>) -> tensor<12x1xui32>
          %189 = stablehlo.reshape %188 : (tensor<12x1xui32>) -> tensor<12xui32>
          %c_92 = stablehlo.constant dense<0> : tensor<ui32>
          %190 = stablehlo.broadcast_in_dim %c_92, dims = [] : (tensor<ui32>) -> tensor<2xui32>
          %191 = stablehlo.xor %187, %189 : tensor<12xui32>
          %c_93 = stablehlo.constant dense<466688986> : tensor<ui32>
          %192 = stablehlo.broadcast_in_dim %c_93, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %193 = stablehlo.xor %191, %192 : tensor<12xui32>
          %194 = stablehlo.broadcast_in_dim %190, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
          %195 = stablehlo.broadcast_in_dim %187, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
          %196 = stablehlo.broadcast_in_dim %194, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<12x2xui32>
          %197 = stablehlo.broadcast_in_dim %195, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
          %198 = stablehlo.add %196, %197 : tensor<12x2xui32>
          %199 = stablehlo.broadcast_in_dim %185, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
          %200 = stablehlo.broadcast_in_dim %189, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
          %201 = stablehlo.broadcast_in_dim %199, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<12x2xui32>
          %202 = stablehlo.broadcast_in_dim %200, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
          %203 = stablehlo.add %201, %202 : tensor<12x2xui32>
          %c_94 = stablehlo.constant dense<0> : tensor<i32>
          %c_95 = stablehlo.constant dense<0> : tensor<i32>
          %204:9 = stablehlo.while(%iterArg_110 = %c_95, %iterArg_111 = %c_94, %iterArg_112 = %198, %iterArg_113 = %203, %iterArg_114 = %189, %iterArg_115 = %193, %iterArg_116 = %187, %iterArg_117 = %iterArg_20, %iterArg_118 = %iterArg_21) : tensor<i32>, tensor<i32>, tensor<12x2xui32>, tensor<12x2xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
          cond {
            %c_119 = stablehlo.constant dense<5> : tensor<i32>
            %250 = stablehlo.compare LT, %iterArg_110, %c_119, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
            stablehlo.return %250 : tensor<i1>
          } do {
            %c_119 = stablehlo.constant dense<1> : tensor<i32>
            %250 = stablehlo.add %iterArg_111, %c_119 : tensor<i32>
            %251 = stablehlo.add %iterArg_112, %iterArg_113 : tensor<12x2xui32>
            %252 = stablehlo.slice %iterArg_117 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
            %253 = stablehlo.reshape %252 : (tensor<1xui32>) -> tensor<ui32>
            %254 = stablehlo.broadcast_in_dim %253, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %255 = stablehlo.shift_left %iterArg_113, %254 : tensor<12x2xui32>
            %c_120 = stablehlo.constant dense<32> : tensor<ui32>
            %256 = stablehlo.subtract %c_120, %253 : tensor<ui32>
            %257 = stablehlo.broadcast_in_dim %256, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %258 = stablehlo.shift_right_logical %iterArg_113, %257 : tensor<12x2xui32>
            %259 = stablehlo.or %255, %258 : tensor<12x2xui32>
            %260 = stablehlo.xor %251, %259 : tensor<12x2xui32>
            %261 = stablehlo.add %251, %260 : tensor<12x2xui32>
            %262 = stablehlo.slice %iterArg_117 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
            %263 = stablehlo.reshape %262 : (tensor<1xui32>) -> tensor<ui32>
            %264 = stablehlo.broadcast_in_dim %263, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %265 = stablehlo.shift_left %260, %264 : tensor<12x2xui32>
            %c_121 = stablehlo.constant dense<32> : tensor<ui32>
            %266 = stablehlo.subtract %c_121, %263 : tensor<ui32>
            %267 = stablehlo.broadcast_in_dim %266, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %268 = stablehlo.shift_right_logical %260, %267 : tensor<12x2xui32>
            %269 = stablehlo.or %265, %268 : tensor<12x2xui32>
            %270 = stablehlo.xor %261, %269 : tensor<12x2xui32>
            %271 = stablehlo.add %261, %270 : tensor<12x2xui32>
            %272 = stablehlo.slice %iterArg_117 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
            %273 = stablehlo.reshape %272 : (tensor<1xui32>) -> tensor<ui32>
            %274 = stablehlo.broadcast_in_dim %273, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %275 = stablehlo.shift_left %270, %274 : tensor<12x2xui32>
            %c_122 = stablehlo.constant dense<32> : tensor<ui32>
            %276 = stablehlo.subtract %c_122, %273 : tensor<ui32>
            %277 = stablehlo.broadcast_in_dim %276, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %278 = stablehlo.shift_right_logical %270, %277 : tensor<12x2xui32>
            %279 = stablehlo.or %275, %278 : tensor<12x2xui32>
            %280 = stablehlo.xor %271, %279 : tensor<12x2xui32>
            %281 = stablehlo.add %271, %280 : tensor<12x2xui32>
            %282 = stablehlo.slice %iterArg_117 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
            %283 = stablehlo.reshape %282 : (tensor<1xui32>) -> tensor<ui32>
            %284 = stablehlo.broadcast_in_dim %283, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %285 = stablehlo.shift_left %280, %284 : tensor<12x2xui32>
            %c_123 = stablehlo.constant dense<32> : tensor<ui32>
            %286 = stablehlo.subtract %c_123, %283 : tensor<ui32>
            %287 = stablehlo.broadcast_in_dim %286, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %288 = stablehlo.shift_right_logical %280, %287 : tensor<12x2xui32>
            %289 = stablehlo.or %285, %288 : tensor<12x2xui32>
            %290 = stablehlo.xor %281, %289 : tensor<12x2xui32>
            %291 = stablehlo.broadcast_in_dim %iterArg_114, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
            %292 = stablehlo.broadcast_in_dim %291, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
            %293 = stablehlo.add %281, %292 : tensor<12x2xui32>
            %294 = stablehlo.broadcast_in_dim %iterArg_115, dims = [0] : (tensor<12xui32>) -> tensor<12x1xui32>
            %295 = stablehlo.broadcast_in_dim %294, dims = [0, 1] : (tensor<12x1xui32>) -> tensor<12x2xui32>
            %296 = stablehlo.add %290, %295 : tensor<12x2xui32>
            %c_124 = stablehlo.constant dense<1> : tensor<i32>
            %297 = stablehlo.add %iterArg_111, %c_124 : tensor<i32>
            %298 = stablehlo.convert %297 : (tensor<i32>) -> tensor<ui32>
            %299 = stablehlo.broadcast_in_dim %298, dims = [] : (tensor<ui32>) -> tensor<12x2xui32>
            %300 = stablehlo.add %296, %299 : tensor<12x2xui32>
            %c_125 = stablehlo.constant dense<1> : tensor<i32>
            %301 = stablehlo.add %iterArg_110, %c_125 : tensor<i32>
            stablehlo.return %301, %250, %293, %300, %iterArg_115, %iterArg_116, %iterArg_114, %iterArg_118, %iterArg_117 : tensor<i32>, tensor<i32>, tensor<12x2xui32>, tensor<12x2xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
          }
          %205 = stablehlo.reshape %204#2 : (tensor<12x2xui32>) -> tensor<12x2x1xui32>
          %206 = stablehlo.reshape %204#3 : (tensor<12x2xui32>) -> tensor<12x2x1xui32>
          %207 = stablehlo.concatenate %205, %206, dim = 2 : (tensor<12x2x1xui32>, tensor<12x2x1xui32>) -> tensor<12x2x2xui32>
          %208 = stablehlo.slice %207 [0:12, 1:2, 0:2] : (tensor<12x2x2xui32>) -> tensor<12x1x2xui32>
          %209 = stablehlo.reshape %208 : (tensor<12x1x2xui32>) -> tensor<12x2xui32>
          %210 = stablehlo.slice %209 [0:12, 0:1] : (tensor<12x2xui32>) -> tensor<12x1xui32>
          %211 = stablehlo.reshape %210 : (tensor<12x1xui32>) -> tensor<12xui32>
          %212 = stablehlo.slice %209 [0:12, 1:2] : (tensor<12x2xui32>) -> tensor<12x1xui32>
          %213 = stablehlo.reshape %212 : (tensor<12x1xui32>) -> tensor<12xui32>
          %c_96 = stablehlo.constant dense<0> : tensor<ui32>
          %214 = stablehlo.broadcast_in_dim %c_96, dims = [] : (tensor<ui32>) -> tensor<ui32>
          %215 = stablehlo.xor %211, %213 : tensor<12xui32>
          %c_97 = stablehlo.constant dense<466688986> : tensor<ui32>
          %216 = stablehlo.broadcast_in_dim %c_97, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %217 = stablehlo.xor %215, %216 : tensor<12xui32>
          %218 = stablehlo.broadcast_in_dim %214, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %219 = stablehlo.add %218, %211 : tensor<12xui32>
          %c_98 = stablehlo.constant dense<0> : tensor<ui32>
          %220 = stablehlo.broadcast_in_dim %c_98, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %221 = stablehlo.add %220, %213 : tensor<12xui32>
          %c_99 = stablehlo.constant dense<0> : tensor<i32>
          %c_100 = stablehlo.constant dense<0> : tensor<i32>
          %222:9 = stablehlo.while(%iterArg_110 = %c_100, %iterArg_111 = %c_99, %iterArg_112 = %219, %iterArg_113 = %221, %iterArg_114 = %213, %iterArg_115 = %217, %iterArg_116 = %211, %iterArg_117 = %iterArg_22, %iterArg_118 = %iterArg_23) : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
          cond {
            %c_119 = stablehlo.constant dense<5> : tensor<i32>
            %250 = stablehlo.compare LT, %iterArg_110, %c_119, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
            stablehlo.return %250 : tensor<i1>
          } do {
            %c_119 = stablehlo.constant dense<1> : tensor<i32>
            %250 = stablehlo.add %iterArg_111, %c_119 : tensor<i32>
            %251 = stablehlo.add %iterArg_112, %iterArg_113 : tensor<12xui32>
            %252 = stablehlo.slice %iterArg_117 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
            %253 = stablehlo.reshape %252 : (tensor<1xui32>) -> tensor<ui32>
            %254 = stablehlo.broadcast_in_dim %253, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %255 = stablehlo.shift_left %iterArg_113, %254 : tensor<12xui32>
            %c_120 = stablehlo.constant dense<32> : tensor<ui32>
            %256 = stablehlo.subtract %c_120, %253 : tensor<ui32>
            %257 = stablehlo.broadcast_in_dim %256, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %258 = stablehlo.shift_right_logical %iterArg_113, %257 : tensor<12xui32>
            %259 = stablehlo.or %255, %258 : tensor<12xui32>
            %260 = stablehlo.xor %251, %259 : tensor<12xui32>
            %261 = stablehlo.add %251, %260 : tensor<12xui32>
            %262 = stablehlo.slice %iterArg_117 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
            %263 = stablehlo.reshape %262 : (tensor<1xui32>) -> tensor<ui32>
            %264 = stablehlo.broadcast_in_dim %263, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %265 = stablehlo.shift_left %260, %264 : tensor<12xui32>
            %c_121 = stablehlo.constant dense<32> : tensor<ui32>
            %266 = stablehlo.subtract %c_121, %263 : tensor<ui32>
            %267 = stablehlo.broadcast_in_dim %266, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %268 = stablehlo.shift_right_logical %260, %267 : tensor<12xui32>
            %269 = stablehlo.or %265, %268 : tensor<12xui32>
            %270 = stablehlo.xor %261, %269 : tensor<12xui32>
            %271 = stablehlo.add %261, %270 : tensor<12xui32>
            %272 = stablehlo.slice %iterArg_117 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
            %273 = stablehlo.reshape %272 : (tensor<1xui32>) -> tensor<ui32>
            %274 = stablehlo.broadcast_in_dim %273, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %275 = stablehlo.shift_left %270, %274 : tensor<12xui32>
            %c_122 = stablehlo.constant dense<32> : tensor<ui32>
            %276 = stablehlo.subtract %c_122, %273 : tensor<ui32>
            %277 = stablehlo.broadcast_in_dim %276, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %278 = stablehlo.shift_right_logical %270, %277 : tensor<12xui32>
            %279 = stablehlo.or %275, %278 : tensor<12xui32>
            %280 = stablehlo.xor %271, %279 : tensor<12xui32>
            %281 = stablehlo.add %271, %280 : tensor<12xui32>
            %282 = stablehlo.slice %iterArg_117 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
            %283 = stablehlo.reshape %282 : (tensor<1xui32>) -> tensor<ui32>
            %284 = stablehlo.broadcast_in_dim %283, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %285 = stablehlo.shift_left %280, %284 : tensor<12xui32>
            %c_123 = stablehlo.constant dense<32> : tensor<ui32>
            %286 = stablehlo.subtract %c_123, %283 : tensor<ui32>
            %287 = stablehlo.broadcast_in_dim %286, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %288 = stablehlo.shift_right_logical %280, %287 : tensor<12xui32>
            %289 = stablehlo.or %285, %288 : tensor<12xui32>
            %290 = stablehlo.xor %281, %289 : tensor<12xui32>
            %291 = stablehlo.add %281, %iterArg_114 : tensor<12xui32>
            %292 = stablehlo.add %290, %iterArg_115 : tensor<12xui32>
            %c_124 = stablehlo.constant dense<1> : tensor<i32>
            %293 = stablehlo.add %iterArg_111, %c_124 : tensor<i32>
            %294 = stablehlo.convert %293 : (tensor<i32>) -> tensor<ui32>
            %295 = stablehlo.broadcast_in_dim %294, dims = [] : (tensor<ui32>) -> tensor<12xui32>
            %296 = stablehlo.add %292, %295 : tensor<12xui32>
            %c_125 = stablehlo.constant dense<1> : tensor<i32>
            %297 = stablehlo.add %iterArg_110, %c_125 : tensor<i32>
            stablehlo.return %297, %250, %291, %296, %iterArg_115, %iterArg_116, %iterArg_114, %iterArg_118, %iterArg_117 : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
          }
          %223 = stablehlo.xor %222#2, %222#3 : tensor<12xui32>
          %c_101 = stablehlo.constant dense<9> : tensor<ui32>
          %224 = stablehlo.broadcast_in_dim %c_101, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %225 = stablehlo.shift_right_logical %223, %224 : tensor<12xui32>
          %c_102 = stablehlo.constant dense<1065353216> : tensor<ui32>
          %226 = stablehlo.broadcast_in_dim %c_102, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %227 = stablehlo.or %225, %226 : tensor<12xui32>
          %228 = stablehlo.bitcast_convert %227 : (tensor<12xui32>) -> tensor<12xf32>
          %cst_103 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
          %229 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %230 = stablehlo.subtract %228, %229 : tensor<12xf32>
          %cst_104 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
          %cst_105 = stablehlo.constant dense<-0.99999994> : tensor<f32>
          %231 = stablehlo.subtract %cst_104, %cst_105 : tensor<f32>
          %232 = stablehlo.broadcast_in_dim %231, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %233 = stablehlo.multiply %230, %232 : tensor<12xf32>
          %cst_106 = stablehlo.constant dense<-0.99999994> : tensor<f32>
          %234 = stablehlo.broadcast_in_dim %cst_106, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %235 = stablehlo.add %233, %234 : tensor<12xf32>
          %cst_107 = stablehlo.constant dense<-0.99999994> : tensor<f32>
          %236 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %237 = stablehlo.maximum %236, %235 : tensor<12xf32>
          %238 = chlo.erf_inv %237 : tensor<12xf32> -> tensor<12xf32>
          %cst_108 = stablehlo.constant dense<1.41421354> : tensor<f32>
          %239 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %240 = stablehlo.multiply %239, %238 : tensor<12xf32>
          %241 = stablehlo.slice %207 [0:12, 0:1, 0:2] : (tensor<12x2x2xui32>) -> tensor<12x1x2xui32>
          %242 = stablehlo.reshape %241 : (tensor<12x1x2xui32>) -> tensor<12x2xui32>
          %243 = stablehlo.multiply %240, %26 : tensor<12xf32>
          %cst_109 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
          %244 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<12xf32>
          %245 = stablehlo.add %244, %243 : tensor<12xf32>
          %246 = stablehlo.broadcast_in_dim %184, dims = [0] : (tensor<12xi1>) -> tensor<12x2xi1>
          %247 = stablehlo.select %246, %242, %iterArg_88 : tensor<12x2xi1>, tensor<12x2xui32>
          %248 = stablehlo.select %184, %240, %iterArg_89 : tensor<12xi1>, tensor<12xf32>
          %249 = stablehlo.select %184, %245, %iterArg_90 : tensor<12xi1>, tensor<12xf32>
          stablehlo.return %247, %248, %249 : tensor<12x2xui32>, tensor<12xf32>, tensor<12xf32>
        }
        %143 = stablehlo.slice %137 [0:12, 2:3, 0:2] : (tensor<12x3x2xui32>) -> tensor<12x1x2xui32>
        %144 = stablehlo.reshape %143 : (tensor<12x1x2xui32>) -> tensor<12x2xui32>
        %145 = stablehlo.slice %144 [0:12, 0:1] : (tensor<12x2xui32>) -> tensor<12x1xui32>
        %146 = stablehlo.reshape %145 : (tensor<12x1xui32>) -> tensor<12xui32>
        %147 = stablehlo.slice %144 [0:12, 1:2] : (tensor<12x2xui32>) -> tensor<12x1xui32>
        %148 = stablehlo.reshape %147 : (tensor<12x1xui32>) -> tensor<12xui32>
        %c_76 = stablehlo.constant dense<0> : tensor<ui32>
        %149 = stablehlo.broadcast_in_dim %c_76, dims = [] : (tensor<ui32>) -> tensor<ui32>
        %150 = stablehlo.xor %146, %148 : tensor<12xui32>
        %c_77 = stablehlo.constant dense<466688986> : tensor<ui32>
        %151 = stablehlo.broadcast_in_dim %c_77, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %152 = stablehlo.xor %150, %151 : tensor<12xui32>
        %153 = stablehlo.broadcast_in_dim %149, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %154 = stablehlo.add %153, %146 : tensor<12xui32>
        %c_78 = stablehlo.constant dense<0> : tensor<ui32>
        %155 = stablehlo.broadcast_in_dim %c_78, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %156 = stablehlo.add %155, %148 : tensor<12xui32>
        %c_79 = stablehlo.constant dense<0> : tensor<i32>
        %c_80 = stablehlo.constant dense<0> : tensor<i32>
        %157:9 = stablehlo.while(%iterArg_88 = %c_80, %iterArg_89 = %c_79, %iterArg_90 = %154, %iterArg_91 = %156, %iterArg_92 = %148, %iterArg_93 = %152, %iterArg_94 = %146, %iterArg_95 = %iterArg_24, %iterArg_96 = %iterArg_25) : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
        cond {
          %c_97 = stablehlo.constant dense<5> : tensor<i32>
          %183 = stablehlo.compare LT, %iterArg_88, %c_97, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %183 : tensor<i1>
        } do {
          %c_97 = stablehlo.constant dense<1> : tensor<i32>
          %183 = stablehlo.add %iterArg_89, %c_97 : tensor<i32>
          %184 = stablehlo.add %iterArg_90, %iterArg_91 : tensor<12xui32>
          %185 = stablehlo.slice %iterArg_95 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
          %186 = stablehlo.reshape %185 : (tensor<1xui32>) -> tensor<ui32>
          %187 = stablehlo.broadcast_in_dim %186, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %188 = stablehlo.shift_left %iterArg_91, %187 : tensor<12xui32>
          %c_98 = stablehlo.constant dense<32> : tensor<ui32>
          %189 = stablehlo.subtract %c_98, %186 : tensor<ui32>
          %190 = stablehlo.broadcast_in_dim %189, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %191 = stablehlo.shift_right_logical %iterArg_91, %190 : tensor<12xui32>
          %192 = stablehlo.or %188, %191 : tensor<12xui32>
          %193 = stablehlo.xor %184, %192 : tensor<12xui32>
          %194 = stablehlo.add %184, %193 : tensor<12xui32>
          %195 = stablehlo.slice %iterArg_95 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
          %196 = stablehlo.reshape %195 : (tensor<1xui32>) -> tensor<ui32>
          %197 = stablehlo.broadcast_in_dim %196, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %198 = stablehlo.shift_left %193, %197 : tensor<12xui32>
          %c_99 = stablehlo.constant dense<32> : tensor<ui32>
          %199 = stablehlo.subtract %c_99, %196 : tensor<ui32>
          %200 = stablehlo.broadcast_in_dim %199, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %201 = stablehlo.shift_right_logical %193, %200 : tensor<12xui32>
          %202 = stablehlo.or %198, %201 : tensor<12xui32>
          %203 = stablehlo.xor %194, %202 : tensor<12xui32>
          %204 = stablehlo.add %194, %203 : tensor<12xui32>
          %205 = stablehlo.slice %iterArg_95 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
          %206 = stablehlo.reshape %205 : (tensor<1xui32>) -> tensor<ui32>
          %207 = stablehlo.broadcast_in_dim %206, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %208 = stablehlo.shift_left %203, %207 : tensor<12xui32>
          %c_100 = stablehlo.constant dense<32> : tensor<ui32>
          %209 = stablehlo.subtract %c_100, %206 : tensor<ui32>
          %210 = stablehlo.broadcast_in_dim %209, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %211 = stablehlo.shift_right_logical %203, %210 : tensor<12xui32>
          %212 = stablehlo.or %208, %211 : tensor<12xui32>
          %213 = stablehlo.xor %204, %212 : tensor<12xui32>
          %214 = stablehlo.add %204, %213 : tensor<12xui32>
          %215 = stablehlo.slice %iterArg_95 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
          %216 = stablehlo.reshape %215 : (tensor<1xui32>) -> tensor<ui32>
          %217 = stablehlo.broadcast_in_dim %216, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %218 = stablehlo.shift_left %213, %217 : tensor<12xui32>
          %c_101 = stablehlo.constant dense<32> : tensor<ui32>
          %219 = stablehlo.subtract %c_101, %216 : tensor<ui32>
          %220 = stablehlo.broadcast_in_dim %219, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %221 = stablehlo.shift_right_logical %213, %220 : tensor<12xui32>
          %222 = stablehlo.or %218, %221 : tensor<12xui32>
          %223 = stablehlo.xor %214, %222 : tensor<12xui32>
          %224 = stablehlo.add %214, %iterArg_92 : tensor<12xui32>
          %225 = stablehlo.add %223, %iterArg_93 : tensor<12xui32>
          %c_102 = stablehlo.constant dense<1> : tensor<i32>
          %226 = stablehlo.add %iterArg_89, %c_102 : tensor<i32>
          %227 = stablehlo.convert %226 : (tensor<i32>) -> tensor<ui32>
          %228 = stablehlo.broadcast_in_dim %227, dims = [] : (tensor<ui32>) -> tensor<12xui32>
          %229 = stablehlo.add %225, %228 : tensor<12xui32>
          %c_103 = stablehlo.constant dense<1> : tensor<i32>
          %230 = stablehlo.add %iterArg_88, %c_103 : tensor<i32>
          stablehlo.return %230, %183, %224, %229, %iterArg_93, %iterArg_94, %iterArg_92, %iterArg_96, %iterArg_95 : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
        }
        %158 = stablehlo.xor %157#2, %157#3 : tensor<12xui32>
        %c_81 = stablehlo.constant dense<9> : tensor<ui32>
        %159 = stablehlo.broadcast_in_dim %c_81, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %160 = stablehlo.shift_right_logical %158, %159 : tensor<12xui32>
        %c_82 = stablehlo.constant dense<1065353216> : tensor<ui32>
        %161 = stablehlo.broadcast_in_dim %c_82, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %162 = stablehlo.or %160, %161 : tensor<12xui32>
        %163 = stablehlo.bitcast_convert %162 : (tensor<12xui32>) -> tensor<12xf32>
        %cst_83 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %164 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %165 = stablehlo.subtract %163, %164 : tensor<12xf32>
        %cst_84 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %cst_85 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %166 = stablehlo.subtract %cst_84, %cst_85 : tensor<f32>
        %167 = stablehlo.broadcast_in_dim %166, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %168 = stablehlo.multiply %165, %167 : tensor<12xf32>
        %cst_86 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %169 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %170 = stablehlo.add %168, %169 : tensor<12xf32>
        %cst_87 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %171 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<12xf32>
        %172 = stablehlo.maximum %171, %170 : tensor<12xf32>
        %173 = stablehlo.slice %137 [0:12, 0:1, 0:2] : (tensor<12x3x2xui32>) -> tensor<12x1x2xui32>
        %174 = stablehlo.reshape %173 : (tensor<12x1x2xui32>) -> tensor<12x2xui32>
        %175 = stablehlo.multiply %142#1, %142#1 : tensor<12xf32>
        %176 = stablehlo.multiply %142#2, %142#2 : tensor<12xf32>
        %177 = stablehlo.multiply %176, %142#2 : tensor<12xf32>
        %178 = stablehlo.broadcast_in_dim %114, dims = [0] : (tensor<12xi1>) -> tensor<12x2xi1>
        %179 = stablehlo.select %178, %174, %iterArg_62 : tensor<12x2xi1>, tensor<12x2xui32>
        %180 = stablehlo.select %114, %175, %iterArg_63 : tensor<12xi1>, tensor<12xf32>
        %181 = stablehlo.select %114, %177, %iterArg_64 : tensor<12xi1>, tensor<12xf32>
        %182 = stablehlo.select %114, %172, %iterArg_65 : tensor<12xi1>, tensor<12xf32>
        stablehlo.return %179, %180, %181, %182 : tensor<12x2xui32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
      }
      %56 = stablehlo.slice %49 [0:12, 1:2, 0:2] : (tensor<12x2x2xui32>) -> tensor<12x1x2xui32>
      %57 = stablehlo.reshape %56 : (tensor<12x1x2xui32>) -> tensor<12x2xui32>
      %58 = stablehlo.slice %57 [0:12, 0:1] : (tensor<12x2xui32>) -> tensor<12x1xui32>
      %59 = stablehlo.reshape %58 : (tensor<12x1xui32>) -> tensor<12xui32>
      %60 = stablehlo.slice %57 [0:12, 1:2] : (tensor<12x2xui32>) -> tensor<12x1xui32>
      %61 = stablehlo.reshape %60 : (tensor<12x1xui32>) -> tensor<12xui32>
      %c_45 = stablehlo.constant dense<0> : tensor<ui32>
      %62 = stablehlo.broadcast_in_dim %c_45, dims = [] : (tensor<ui32>) -> tensor<ui32>
      %63 = stablehlo.xor %59, %61 : tensor<12xui32>
      %c_46 = stablehlo.constant dense<466688986> : tensor<ui32>
      %64 = stablehlo.broadcast_in_dim %c_46, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %65 = stablehlo.xor %63, %64 : tensor<12xui32>
      %66 = stablehlo.broadcast_in_dim %62, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %67 = stablehlo.add %66, %59 : tensor<12xui32>
      %c_47 = stablehlo.constant dense<0> : tensor<ui32>
      %68 = stablehlo.broadcast_in_dim %c_47, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %69 = stablehlo.add %68, %61 : tensor<12xui32>
      %c_48 = stablehlo.constant dense<0> : tensor<i32>
      %c_49 = stablehlo.constant dense<0> : tensor<i32>
      %70:9 = stablehlo.while(%iterArg_62 = %c_49, %iterArg_63 = %c_48, %iterArg_64 = %67, %iterArg_65 = %69, %iterArg_66 = %61, %iterArg_67 = %65, %iterArg_68 = %59, %iterArg_69 = %iterArg_26, %iterArg_70 = %iterArg_27) : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
      cond {
        %c_71 = stablehlo.constant dense<5> : tensor<i32>
        %98 = stablehlo.compare LT, %iterArg_62, %c_71, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %98 : tensor<i1>
      } do {
        %c_71 = stablehlo.constant dense<1> : tensor<i32>
        %98 = stablehlo.add %iterArg_63, %c_71 : tensor<i32>
        %99 = stablehlo.add %iterArg_64, %iterArg_65 : tensor<12xui32>
        %100 = stablehlo.slice %iterArg_69 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
        %101 = stablehlo.reshape %100 : (tensor<1xui32>) -> tensor<ui32>
        %102 = stablehlo.broadcast_in_dim %101, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %103 = stablehlo.shift_left %iterArg_65, %102 : tensor<12xui32>
        %c_72 = stablehlo.constant dense<32> : tensor<ui32>
        %104 = stablehlo.subtract %c_72, %101 : tensor<ui32>
        %105 = stablehlo.broadcast_in_dim %104, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %106 = stablehlo.shift_right_logical %iterArg_65, %105 : tensor<12xui32>
        %107 = stablehlo.or %103, %106 : tensor<12xui32>
        %108 = stablehlo.xor %99, %107 : tensor<12xui32>
        %109 = stablehlo.add %99, %108 : tensor<12xui32>
        %110 = stablehlo.slice %iterArg_69 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
        %111 = stablehlo.reshape %110 : (tensor<1xui32>) -> tensor<ui32>
        %112 = stablehlo.broadcast_in_dim %111, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %113 = stablehlo.shift_left %108, %112 : tensor<12xui32>
        %c_73 = stablehlo.constant dense<32> : tensor<ui32>
        %114 = stablehlo.subtract %c_73, %111 : tensor<ui32>
        %115 = stablehlo.broadcast_in_dim %114, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %116 = stablehlo.shift_right_logical %108, %115 : tensor<12xui32>
        %117 = stablehlo.or %113, %116 : tensor<12xui32>
        %118 = stablehlo.xor %109, %117 : tensor<12xui32>
        %119 = stablehlo.add %109, %118 : tensor<12xui32>
        %120 = stablehlo.slice %iterArg_69 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
        %121 = stablehlo.reshape %120 : (tensor<1xui32>) -> tensor<ui32>
        %122 = stablehlo.broadcast_in_dim %121, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %123 = stablehlo.shift_left %118, %122 : tensor<12xui32>
        %c_74 = stablehlo.constant dense<32> : tensor<ui32>
        %124 = stablehlo.subtract %c_74, %121 : tensor<ui32>
        %125 = stablehlo.broadcast_in_dim %124, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %126 = stablehlo.shift_right_logical %118, %125 : tensor<12xui32>
        %127 = stablehlo.or %123, %126 : tensor<12xui32>
        %128 = stablehlo.xor %119, %127 : tensor<12xui32>
        %129 = stablehlo.add %119, %128 : tensor<12xui32>
        %130 = stablehlo.slice %iterArg_69 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
        %131 = stablehlo.reshape %130 : (tensor<1xui32>) -> tensor<ui32>
        %132 = stablehlo.broadcast_in_dim %131, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %133 = stablehlo.shift_left %128, %132 : tensor<12xui32>
        %c_75 = stablehlo.constant dense<32> : tensor<ui32>
        %134 = stablehlo.subtract %c_75, %131 : tensor<ui32>
        %135 = stablehlo.broadcast_in_dim %134, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %136 = stablehlo.shift_right_logical %128, %135 : tensor<12xui32>
        %137 = stablehlo.or %133, %136 : tensor<12xui32>
        %138 = stablehlo.xor %129, %137 : tensor<12xui32>
        %139 = stablehlo.add %129, %iterArg_66 : tensor<12xui32>
        %140 = stablehlo.add %138, %iterArg_67 : tensor<12xui32>
        %c_76 = stablehlo.constant dense<1> : tensor<i32>
        %141 = stablehlo.add %iterArg_63, %c_76 : tensor<i32>
        %142 = stablehlo.convert %141 : (tensor<i32>) -> tensor<ui32>
        %143 = stablehlo.broadcast_in_dim %142, dims = [] : (tensor<ui32>) -> tensor<12xui32>
        %144 = stablehlo.add %140, %143 : tensor<12xui32>
        %c_77 = stablehlo.constant dense<1> : tensor<i32>
        %145 = stablehlo.add %iterArg_62, %c_77 : tensor<i32>
        stablehlo.return %145, %98, %139, %144, %iterArg_67, %iterArg_68, %iterArg_66, %iterArg_70, %iterArg_69 : tensor<i32>, tensor<i32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<12xui32>, tensor<4xui32>, tensor<4xui32>
      }
      %71 = stablehlo.xor %70#2, %70#3 : tensor<12xui32>
      %c_50 = stablehlo.constant dense<9> : tensor<ui32>
      %72 = stablehlo.broadcast_in_dim %c_50, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %73 = stablehlo.shift_right_logical %71, %72 : tensor<12xui32>
      %c_51 = stablehlo.constant dense<1065353216> : tensor<ui32>
      %74 = stablehlo.broadcast_in_dim %c_51, dims = [] : (tensor<ui32>) -> tensor<12xui32>
      %75 = stablehlo.or %73, %74 : tensor<12xui32>
      %76 = stablehlo.bitcast_convert %75 : (tensor<12xui32>) -> tensor<12xf32>
      %cst_52 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %77 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %78 = stablehlo.subtract %76, %77 : tensor<12xf32>
      %cst_53 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %79 = stablehlo.subtract %cst_53, %cst_54 : tensor<f32>
      %80 = stablehlo.broadcast_in_dim %79, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %81 = stablehlo.multiply %78, %80 : tensor<12xf32>
      %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %82 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %83 = stablehlo.add %81, %82 : tensor<12xf32>
      %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %84 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %85 = stablehlo.maximum %84, %83 : tensor<12xf32>
      %cst_57 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %86 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %87 = stablehlo.subtract %86, %85 : tensor<12xf32>
      %cst_58 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %88 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %89 = stablehlo.divide %88, %16 : tensor<12xf32>
      %90 = stablehlo.power %87, %89 : tensor<12xf32>
      %cst_59 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %91 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<12xf32>
      %92 = stablehlo.select %18, %91, %90 : tensor<12xi1>, tensor<12xf32>
      %93 = stablehlo.multiply %23, %55#2 : tensor<12xf32>
      %94 = stablehlo.multiply %93, %92 : tensor<12xf32>
      %95 = stablehlo.reshape %94 : (tensor<12xf32>) -> tensor<1x12xf32>
      %c_60 = stablehlo.constant dense<0> : tensor<i32>
      %96 = stablehlo.dynamic_update_slice %iterArg_30, %95, %iterArg, %c_60 : (tensor<1x12xf32>, tensor<1x12xf32>, tensor<i32>, tensor<i32>) -> tensor<1x12xf32>
      %c_61 = stablehlo.constant dense<1> : tensor<i32>
      %97 = stablehlo.add %iterArg, %c_61 : tensor<i32>
      stablehlo.return %97, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24, %iterArg_25, %iterArg_26, %iterArg_27, %iterArg_28, %iterArg_29, %96 : tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<1x12x2xui32>, tensor<1x12xf32>, tensor<1x12xf32>
    }
    %11 = stablehlo.reshape %10#15 : (tensor<1x12xf32>) -> tensor<12xf32>
    %12 = stablehlo.reshape %11 : (tensor<12xf32>) -> tensor<3x4xf32>
    return %12 : tensor<3x4xf32>
  }
}
