module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4xi32>, tensor<2xi32>)
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<2x4xi32>
    %3 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4:5 = stablehlo.while(%iterArg = %c_1, %iterArg_3 = %2, %iterArg_4 = %3, %iterArg_5 = %c_0, %iterArg_6 = %3) : tensor<i32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<i32>, tensor<2x4xi32>
    cond {
      %c_7 = stablehlo.constant dense<4> : tensor<i32>
      %11 = stablehlo.compare LT, %iterArg, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %11 : tensor<i1>
    } do {
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %11 = stablehlo.add %iterArg_5, %c_7 : tensor<i32>
      %c_8 = stablehlo.constant dense<0> : tensor<i32>
      %12 = stablehlo.compare LT, %iterArg_5, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_9 = stablehlo.constant dense<4> : tensor<i32>
      %13 = stablehlo.add %iterArg_5, %c_9 : tensor<i32>
      %14 = stablehlo.select %12, %13, %iterArg_5 : tensor<i1>, tensor<i32>
      %c_10 = stablehlo.constant dense<0> : tensor<i32>
      %15 = stablehlo.dynamic_slice %iterArg_3, %c_10, %14, sizes = [2, 1] : (tensor<2x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x1xi32>
      %16 = stablehlo.reshape %15 : (tensor<2x1xi32>) -> tensor<2xi32>
      %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<2xi32>) -> tensor<2x4xi32>
      %18 = stablehlo.broadcast_in_dim %iterArg_5, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
      %19 = stablehlo.compare EQ, %iterArg_4, %18, SIGNED : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
      %20 = stablehlo.compare EQ, %iterArg_4, %17, SIGNED : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
      %c_11 = stablehlo.constant dense<0> : tensor<i32>
      %21 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
      %22 = stablehlo.select %19, %iterArg_6, %21 : tensor<2x4xi1>, tensor<2x4xi32>
      %c_12 = stablehlo.constant dense<0> : tensor<i32>
      %23 = stablehlo.reduce(%22 init: %c_12) applies stablehlo.add across dimensions = [1] : (tensor<2x4xi32>, tensor<i32>) -> tensor<2xi32>
      %24 = stablehlo.select %20, %iterArg_6, %21 : tensor<2x4xi1>, tensor<2x4xi32>
      %c_13 = stablehlo.constant dense<0> : tensor<i32>
      %25 = stablehlo.reduce(%24 init: %c_13) applies stablehlo.add across dimensions = [1] : (tensor<2x4xi32>, tensor<i32>) -> tensor<2xi32>
      %26 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<2xi32>) -> tensor<2x4xi32>
      %27 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<2xi32>) -> tensor<2x4xi32>
      %28 = stablehlo.select %20, %26, %iterArg_6 : tensor<2x4xi1>, tensor<2x4xi32>
      %29 = stablehlo.select %19, %27, %28 : tensor<2x4xi1>, tensor<2x4xi32>
      %c_14 = stablehlo.constant dense<1> : tensor<i32>
      %30 = stablehlo.add %iterArg, %c_14 : tensor<i32>
      stablehlo.return %30, %iterArg_3, %iterArg_4, %11, %29 : tensor<i32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<i32>, tensor<2x4xi32>
    }
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %6 = stablehlo.compare GE, %0#2, %5, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x4xf32>
    %10 = stablehlo.select %8, %0#0, %9 : tensor<2x4x4xi1>, tensor<2x4x4xf32>
    return %10 : tensor<2x4x4xf32>
  }
}
