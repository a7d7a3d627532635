module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf32>) -> tensor<5x3xf32> {
    %0 = stablehlo.slice %arg0 [0:1, 0:3] : (tensor<5x3xf32>) -> tensor<1x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xf32>) -> tensor<3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %22:23 = stablehlo.while(%iterArg = %c, %iterArg_24 = %1, %iterArg_25 = %arg0, %iterArg_26 = %2, %iterArg_27 = %3, %iterArg_28 = %4, %iterArg_29 = %5, %iterArg_30 = %6, %iterArg_31 = %7, %iterArg_32 = %8, %iterArg_33 = %9, %iterArg_34 = %10, %iterArg_35 = %11, %iterArg_36 = %12, %iterArg_37 = %13, %iterArg_38 = %14, %iterArg_39 = %15, %iterArg_40 = %16, %iterArg_41 = %17, %iterArg_42 = %18, %iterArg_43 = %19, %iterArg_44 = %20, %iterArg_45 = %21) : tensor<i32>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
    cond {
      %c_46 = stablehlo.constant dense<5> : tensor<i32>
      %30 = stablehlo.compare LT, %iterArg, %c_46, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %30 : tensor<i1>
    } do {
      %c_46 = stablehlo.constant dense<0> : tensor<i32>
      %30 = stablehlo.dynamic_slice %iterArg_25, %iterArg, %c_46, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %31 = stablehlo.reshape %30 : (tensor<1x3xf32>) -> tensor<3xf32>
      %32 = stablehlo.sine %iterArg_24 : tensor<3xf32>
      %33 = stablehlo.cosine %iterArg_24 : tensor<3xf32>
      %34 = stablehlo.multiply %32, %31 : tensor<3xf32>
      %cst_47 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %35 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %36 = stablehlo.add %34, %35 : tensor<3xf32>
      %37 = stablehlo.sine %36 : tensor<3xf32>
      %38 = stablehlo.cosine %36 : tensor<3xf32>
      %39 = stablehlo.multiply %37, %31 : tensor<3xf32>
      %cst_48 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %40 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %41 = stablehlo.add %39, %40 : tensor<3xf32>
      %42 = stablehlo.sine %41 : tensor<3xf32>
      %43 = stablehlo.cosine %41 : tensor<3xf32>
      %44 = stablehlo.multiply %42, %31 : tensor<3xf32>
      %cst_49 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %45 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %46 = stablehlo.add %44, %45 : tensor<3xf32>
      %47 = stablehlo.sine %46 : tensor<3xf32>
      %48 = stablehlo.cosine %46 : tensor<3xf32>
      %49 = stablehlo.multiply %47, %31 : tensor<3xf32>
      %cst_50 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %50 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %51 = stablehlo.add %49, %50 : tensor<3xf32>
      %52 = stablehlo.sine %51 : tensor<3xf32>
      %53 = stablehlo.cosine %51 : tensor<3xf32>
      %54 = stablehlo.multiply %52, %31 : tensor<3xf32>
      %cst_51 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %55 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %56 = stablehlo.add %54, %55 : tensor<3xf32>
      %57 = stablehlo.sine %56 : tensor<3xf32>
      %58 = stablehlo.cosine %56 : tensor<3xf32>
      %59 = stablehlo.multiply %57, %31 : tensor<3xf32>
      %cst_52 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %60 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %61 = stablehlo.add %59, %60 : tensor<3xf32>
      %62 = stablehlo.sine %61 : tensor<3xf32>
      %63 = stablehlo.cosine %61 : tensor<3xf32>
      %64 = stablehlo.multiply %62, %31 : tensor<3xf32>
      %cst_53 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %65 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %66 = stablehlo.add %64, %65 : tensor<3xf32>
      %67 = stablehlo.sine %66 : tensor<3xf32>
      %68 = stablehlo.cosine %66 : tensor<3xf32>
      %69 = stablehlo.multiply %67, %31 : tensor<3xf32>
      %cst_54 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %70 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %71 = stablehlo.add %69, %70 : tensor<3xf32>
      %72 = stablehlo.sine %71 : tensor<3xf32>
      %73 = stablehlo.cosine %71 : tensor<3xf32>
      %74 = stablehlo.multiply %72, %31 : tensor<3xf32>
      %cst_55 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %75 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %76 = stablehlo.add %74, %75 : tensor<3xf32>
      %77 = stablehlo.sine %76 : tensor<3xf32>
      %78 = stablehlo.cosine %76 : tensor<3xf32>
      %79 = stablehlo.multiply %77, %31 : tensor<3xf32>
      %cst_56 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %80 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %81 = stablehlo.add %79, %80 : tensor<3xf32>
      %82 = stablehlo.reshape %33 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_57 = stablehlo.constant dense<0> : tensor<i32>
      %83 = stablehlo.dynamic_update_slice %iterArg_26, %82, %iterArg, %c_57 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %84 = stablehlo.reshape %32 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_58 = stablehlo.constant dense<0> : tensor<i32>
      %85 = stablehlo.dynamic_update_slice %iterArg_27, %84, %iterArg, %c_58 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %86 = stablehlo.reshape %38 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_59 = stablehlo.constant dense<0> : tensor<i32>
      %87 = stablehlo.dynamic_update_slice %iterArg_28, %86, %iterArg, %c_59 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %88 = stablehlo.reshape %37 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_60 = stablehlo.constant dense<0> : tensor<i32>
      %89 = stablehlo.dynamic_update_slice %iterArg_29, %88, %iterArg, %c_60 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %90 = stablehlo.reshape %43 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_61 = stablehlo.constant dense<0> : tensor<i32>
      %91 = stablehlo.dynamic_update_slice %iterArg_30, %90, %iterArg, %c_61 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %92 = stablehlo.reshape %42 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_62 = stablehlo.constant dense<0> : tensor<i32>
      %93 = stablehlo.dynamic_update_slice %iterArg_31, %92, %iterArg, %c_62 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %94 = stablehlo.reshape %48 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_63 = stablehlo.constant dense<0> : tensor<i32>
      %95 = stablehlo.dynamic_update_slice %iterArg_32, %94, %iterArg, %c_63 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %96 = stablehlo.reshape %47 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_64 = stablehlo.constant dense<0> : tensor<i32>
      %97 = stablehlo.dynamic_update_slice %iterArg_33, %96, %iterArg, %c_64 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %98 = stablehlo.reshape %53 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_65 = stablehlo.constant dense<0> : tensor<i32>
      %99 = stablehlo.dynamic_update_slice %iterArg_34, %98, %iterArg, %c_65 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %100 = stablehlo.reshape %52 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_66 = stablehlo.constant dense<0> : tensor<i32>
      %101 = stablehlo.dynamic_update_slice %iterArg_35, %100, %iterArg, %c_66 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %102 = stablehlo.reshape %58 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_67 = stablehlo.constant dense<0> : tensor<i32>
      %103 = stablehlo.dynamic_update_slice %iterArg_36, %102, %iterArg, %c_67 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %104 = stablehlo.reshape %57 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_68 = stablehlo.constant dense<0> : tensor<i32>
      %105 = stablehlo.dynamic_update_slice %iterArg_37, %104, %iterArg, %c_68 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %106 = stablehlo.reshape %63 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_69 = stablehlo.constant dense<0> : tensor<i32>
      %107 = stablehlo.dynamic_update_slice %iterArg_38, %106, %iterArg, %c_69 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %108 = stablehlo.reshape %62 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_70 = stablehlo.constant dense<0> : tensor<i32>
      %109 = stablehlo.dynamic_update_slice %iterArg_39, %108, %iterArg, %c_70 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %110 = stablehlo.reshape %68 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_71 = stablehlo.constant dense<0> : tensor<i32>
      %111 = stablehlo.dynamic_update_slice %iterArg_40, %110, %iterArg, %c_71 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %112 = stablehlo.reshape %67 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_72 = stablehlo.constant dense<0> : tensor<i32>
      %113 = stablehlo.dynamic_update_slice %iterArg_41, %112, %iterArg, %c_72 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %114 = stablehlo.reshape %73 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_73 = stablehlo.constant dense<0> : tensor<i32>
      %115 = stablehlo.dynamic_update_slice %iterArg_42, %114, %iterArg, %c_73 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %116 = stablehlo.reshape %72 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_74 = stablehlo.constant dense<0> : tensor<i32>
      %117 = stablehlo.dynamic_update_slice %iterArg_43, %116, %iterArg, %c_74 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %118 = stablehlo.reshape %78 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_75 = stablehlo.constant dense<0> : tensor<i32>
      %119 = stablehlo.dynamic_update_slice %iterArg_44, %118, %iterArg, %c_75 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %120 = stablehlo.reshape %77 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_76 = stablehlo.constant dense<0> : tensor<i32>
      %121 = stablehlo.dynamic_update_slice %iterArg_45, %120, %iterArg, %c_76 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %c_77 = stablehlo.constant dense<1> : tensor<i32>
      %122 = stablehlo.add %iterArg, %c_77 : tensor<i32>
      stablehlo.return %122, %81, %iterArg_25, %83, %85, %87, %89, %91, %93, %95, %97, %99, %101, %103, %105, %107, %109, %111, %113, %115, %117, %119, %121 : tensor<i32>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
    }
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %c_22 = stablehlo.constant dense<0> : tensor<i32>
    %26:25 = stablehlo.while(%iterArg = %c_22, %iterArg_24 = %24, %iterArg_25 = %23, %iterArg_26 = %22#3, %iterArg_27 = %arg0, %iterArg_28 = %22#4, %iterArg_29 = %22#5, %iterArg_30 = %22#6, %iterArg_31 = %22#7, %iterArg_32 = %22#8, %iterArg_33 = %22#9, %iterArg_34 = %22#10, %iterArg_35 = %22#11, %iterArg_36 = %22#12, %iterArg_37 = %22#13, %iterArg_38 = %22#14, %iterArg_39 = %22#15, %iterArg_40 = %22#16, %iterArg_41 = %22#17, %iterArg_42 = %22#18, %iterArg_43 = %22#19, %iterArg_44 = %22#20, %iterArg_45 = %22#21, %iterArg_46 = %22#22, %iterArg_47 = %25) : tensor<i32>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
    cond {
      %c_48 = stablehlo.constant dense<5> : tensor<i32>
      %30 = stablehlo.compare LT, %iterArg, %c_48, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %30 : tensor<i1>
    } do {
      %c_48 = stablehlo.constant dense<4> : tensor<i32>
      %30 = stablehlo.subtract %c_48, %iterArg : tensor<i32>
      %c_49 = stablehlo.constant dense<0> : tensor<i32>
      %31 = stablehlo.dynamic_slice %iterArg_25, %30, %c_49, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %32 = stablehlo.reshape %31 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_50 = stablehlo.constant dense<0> : tensor<i32>
      %33 = stablehlo.dynamic_slice %iterArg_26, %30, %c_50, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %34 = stablehlo.reshape %33 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_51 = stablehlo.constant dense<0> : tensor<i32>
      %35 = stablehlo.dynamic_slice %iterArg_27, %30, %c_51, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %36 = stablehlo.reshape %35 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_52 = stablehlo.constant dense<0> : tensor<i32>
      %37 = stablehlo.dynamic_slice %iterArg_28, %30, %c_52, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %38 = stablehlo.reshape %37 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_53 = stablehlo.constant dense<0> : tensor<i32>
      %39 = stablehlo.dynamic_slice %iterArg_29, %30, %c_53, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %40 = stablehlo.reshape %39 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_54 = stablehlo.constant dense<0> : tensor<i32>
      %41 = stablehlo.dynamic_slice %iterArg_30, %30, %c_54, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %42 = stablehlo.reshape %41 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_55 = stablehlo.constant dense<0> : tensor<i32>
      %43 = stablehlo.dynamic_slice %iterArg_31, %30, %c_55, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %44 = stablehlo.reshape %43 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_56 = stablehlo.constant dense<0> : tensor<i32>
      %45 = stablehlo.dynamic_slice %iterArg_32, %30, %c_56, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %46 = stablehlo.reshape %45 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_57 = stablehlo.constant dense<0> : tensor<i32>
      %47 = stablehlo.dynamic_slice %iterArg_33, %30, %c_57, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %48 = stablehlo.reshape %47 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_58 = stablehlo.constant dense<0> : tensor<i32>
      %49 = stablehlo.dynamic_slice %iterArg_34, %30, %c_58, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %50 = stablehlo.reshape %49 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_59 = stablehlo.constant dense<0> : tensor<i32>
      %51 = stablehlo.dynamic_slice %iterArg_35, %30, %c_59, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %52 = stablehlo.reshape %51 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_60 = stablehlo.constant dense<0> : tensor<i32>
      %53 = stablehlo.dynamic_slice %iterArg_36, %30, %c_60, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %54 = stablehlo.reshape %53 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_61 = stablehlo.constant dense<0> : tensor<i32>
      %55 = stablehlo.dynamic_slice %iterArg_37, %30, %c_61, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %56 = stablehlo.reshape %55 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_62 = stablehlo.constant dense<0> : tensor<i32>
      %57 = stablehlo.dynamic_slice %iterArg_38, %30, %c_62, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %58 = stablehlo.reshape %57 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_63 = stablehlo.constant dense<0> : tensor<i32>
      %59 = stablehlo.dynamic_slice %iterArg_39, %30, %c_63, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %60 = stablehlo.reshape %59 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_64 = stablehlo.constant dense<0> : tensor<i32>
      %61 = stablehlo.dynamic_slice %iterArg_40, %30, %c_64, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %62 = stablehlo.reshape %61 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_65 = stablehlo.constant dense<0> : tensor<i32>
      %63 = stablehlo.dynamic_slice %iterArg_41, %30, %c_65, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %64 = stablehlo.reshape %63 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_66 = stablehlo.constant dense<0> : tensor<i32>
      %65 = stablehlo.dynamic_slice %iterArg_42, %30, %c_66, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %66 = stablehlo.reshape %65 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_67 = stablehlo.constant dense<0> : tensor<i32>
      %67 = stablehlo.dynamic_slice %iterArg_43, %30, %c_67, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %68 = stablehlo.reshape %67 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_68 = stablehlo.constant dense<0> : tensor<i32>
      %69 = stablehlo.dynamic_slice %iterArg_44, %30, %c_68, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %70 = stablehlo.reshape %69 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_69 = stablehlo.constant dense<0> : tensor<i32>
      %71 = stablehlo.dynamic_slice %iterArg_45, %30, %c_69, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %72 = stablehlo.reshape %71 : (tensor<1x3xf32>) -> tensor<3xf32>
      %c_70 = stablehlo.constant dense<0> : tensor<i32>
      %73 = stablehlo.dynamic_slice %iterArg_46, %30, %c_70, sizes = [1, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %74 = stablehlo.reshape %73 : (tensor<1x3xf32>) -> tensor<3xf32>
      %cst_71 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %75 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %76 = stablehlo.multiply %32, %75 : tensor<3xf32>
      %77 = stablehlo.add %iterArg_24, %76 : tensor<3xf32>
      %78 = stablehlo.multiply %74, %77 : tensor<3xf32>
      %79 = stablehlo.multiply %77, %36 : tensor<3xf32>
      %80 = stablehlo.multiply %79, %72 : tensor<3xf32>
      %81 = stablehlo.multiply %70, %80 : tensor<3xf32>
      %82 = stablehlo.add %78, %81 : tensor<3xf32>
      %83 = stablehlo.multiply %80, %36 : tensor<3xf32>
      %84 = stablehlo.multiply %83, %68 : tensor<3xf32>
      %85 = stablehlo.multiply %66, %84 : tensor<3xf32>
      %86 = stablehlo.add %82, %85 : tensor<3xf32>
      %87 = stablehlo.multiply %84, %36 : tensor<3xf32>
      %88 = stablehlo.multiply %87, %64 : tensor<3xf32>
      %89 = stablehlo.multiply %62, %88 : tensor<3xf32>
      %90 = stablehlo.add %86, %89 : tensor<3xf32>
      %91 = stablehlo.multiply %88, %36 : tensor<3xf32>
      %92 = stablehlo.multiply %91, %60 : tensor<3xf32>
      %93 = stablehlo.multiply %58, %92 : tensor<3xf32>
      %94 = stablehlo.add %90, %93 : tensor<3xf32>
      %95 = stablehlo.multiply %92, %36 : tensor<3xf32>
      %96 = stablehlo.multiply %95, %56 : tensor<3xf32>
      %97 = stablehlo.multiply %54, %96 : tensor<3xf32>
      %98 = stablehlo.add %94, %97 : tensor<3xf32>
      %99 = stablehlo.multiply %96, %36 : tensor<3xf32>
      %100 = stablehlo.multiply %99, %52 : tensor<3xf32>
      %101 = stablehlo.multiply %50, %100 : tensor<3xf32>
      %102 = stablehlo.add %98, %101 : tensor<3xf32>
      %103 = stablehlo.multiply %100, %36 : tensor<3xf32>
      %104 = stablehlo.multiply %103, %48 : tensor<3xf32>
      %105 = stablehlo.multiply %46, %104 : tensor<3xf32>
      %106 = stablehlo.add %102, %105 : tensor<3xf32>
      %107 = stablehlo.multiply %104, %36 : tensor<3xf32>
      %108 = stablehlo.multiply %107, %44 : tensor<3xf32>
      %109 = stablehlo.multiply %42, %108 : tensor<3xf32>
      %110 = stablehlo.add %106, %109 : tensor<3xf32>
      %111 = stablehlo.multiply %108, %36 : tensor<3xf32>
      %112 = stablehlo.multiply %111, %40 : tensor<3xf32>
      %113 = stablehlo.multiply %38, %112 : tensor<3xf32>
      %114 = stablehlo.add %110, %113 : tensor<3xf32>
      %115 = stablehlo.multiply %112, %36 : tensor<3xf32>
      %116 = stablehlo.multiply %115, %34 : tensor<3xf32>
      %117 = stablehlo.reshape %114 : (tensor<3xf32>) -> tensor<1x3xf32>
      %c_72 = stablehlo.constant dense<0> : tensor<i32>
      %118 = stablehlo.dynamic_update_slice %iterArg_47, %117, %30, %c_72 : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
      %c_73 = stablehlo.constant dense<1> : tensor<i32>
      %119 = stablehlo.add %iterArg, %c_73 : tensor<i32>
      stablehlo.return %119, %116, %iterArg_25, %iterArg_26, %iterArg_27, %iterArg_28, %iterArg_29, %iterArg_30, %iterArg_31, %iterArg_32, %iterArg_33, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %iterArg_45, %iterArg_46, %118 : tensor<i32>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
    }
    %27 = stablehlo.reshape %26#1 : (tensor<3xf32>) -> tensor<1x3xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.pad %27, %cst_23, low = [0, 0], high = [4, 0], interior = [0, 0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    %29 = stablehlo.add %26#24, %28 : tensor<5x3xf32>
    return %29 : tensor<5x3xf32>
  }
}
