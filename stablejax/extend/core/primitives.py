"""`jax.extend.core.primitives`: JAX's primitive names bound to stablejax's primitives where
they are the same operation (same name; their params are stablejax's). A JAX primitive that
stablejax lacks (`eig_p`, `schur_p`, `reduce_p`, `select_and_scatter_p`, `threefry2x32_p`, ...)
is absent."""
from stablejax.interpreters.ad import add_jaxvals_p
from stablejax.lax.bitwise import (
    bitcast_convert_type_p, clz_p, population_count_p, shift_left_p, shift_right_arithmetic_p,
    shift_right_logical_p, xor_p
)
from stablejax.lax.call import call_p, closed_call_p, jit_p
from stablejax.lax.control_flow.cond import cond_p
from stablejax.lax.control_flow.scan import scan_p
from stablejax.lax.control_flow.while_loop import while_p
from stablejax.lax.convolution import conv_general_dilated_p
from stablejax.lax.custom_derivatives import (
    custom_jvp_call_p, custom_lin_p, custom_vjp_call_p, name_p, remat_p, stop_gradient_p
)
from stablejax.lax.dot import dot_general_p
from stablejax.lax.elementwise import (
    abs_p, acos_p, acosh_p, add_p, and_p, asin_p, asinh_p, atan2_p, atan_p, atanh_p, cbrt_p,
    ceil_p, clamp_p, complex_p, conj_p, convert_element_type_p, cos_p, cosh_p, div_p, eq_p,
    eq_to_p, exp2_p, exp_p, expm1_p, floor_p, ge_p, gt_p, imag_p, integer_pow_p, is_finite_p,
    le_p, le_to_p, log1p_p, log_p, logistic_p, lt_p, lt_to_p, max_p, min_p, mul_p, ne_p, neg_p,
    nextafter_p, not_p, or_p, pow_p, real_p, rem_p, round_p, rsqrt_p, select_n_p, sign_p, sin_p,
    sinh_p, sqrt_p, square_p, sub_p, tan_p, tanh_p
)
from stablejax.lax.fft import fft_p
from stablejax.lax.linalg import (
    cholesky_p, eigh_p, householder_product_p, lu_p, qr_p, svd_p, triangular_solve_p
)
from stablejax.lax.misc import copy_p, device_put_p, reduce_precision_p
from stablejax.lax.parallel import (
    all_gather_p, all_to_all_p, axis_index_p, pmax_p, pmin_p, ppermute_p, psum_p
)
from stablejax.lax.random import (
    random_bits_p, random_fold_in_p, random_gamma_p, random_seed_p, random_split_p
)
from stablejax.lax.reductions import (
    argmax_p, argmin_p, cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p, reduce_and_p,
    reduce_max_p, reduce_min_p, reduce_or_p, reduce_prod_p, reduce_sum_p, reduce_xor_p
)
from stablejax.lax.rng import rng_bit_generator_p, rng_uniform_p
from stablejax.lax.sharding import sharding_constraint_p
from stablejax.lax.slicing import (
    gather_p, scatter_add_p, scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p
)
from stablejax.lax.sorting import approx_top_k_p, sort_p, top_k_p
from stablejax.lax.special import (
    bessel_i0e_p, bessel_i1e_p, digamma_p, erf_inv_p, erf_p, erfc_p, igamma_grad_a_p, igamma_p,
    igammac_p, lgamma_p, polygamma_p, regularized_incomplete_beta_p, zeta_p
)
from stablejax.lax.structural import (
    broadcast_in_dim_p, concatenate_p, dynamic_slice_p, dynamic_update_slice_p, iota_p, pad_p,
    reshape_p, rev_p, slice_p, squeeze_p, transpose_p
)
from stablejax.lax.windowed_reductions import (
    reduce_window_max_p, reduce_window_min_p, reduce_window_sum_p
)

__all__ = [
    "abs_p", "acos_p", "acosh_p", "add_jaxvals_p", "add_p", "all_gather_p", "all_to_all_p",
    "and_p", "approx_top_k_p", "argmax_p", "argmin_p", "asin_p", "asinh_p", "atan2_p", "atan_p",
    "atanh_p", "axis_index_p", "bessel_i0e_p", "bessel_i1e_p", "bitcast_convert_type_p",
    "broadcast_in_dim_p", "call_p", "cbrt_p", "ceil_p", "cholesky_p", "clamp_p", "closed_call_p",
    "clz_p", "complex_p", "concatenate_p", "cond_p", "conj_p", "conv_general_dilated_p",
    "convert_element_type_p", "copy_p", "cos_p", "cosh_p", "cumlogsumexp_p", "cummax_p",
    "cummin_p", "cumprod_p", "cumsum_p", "custom_jvp_call_p", "custom_lin_p", "custom_vjp_call_p",
    "device_put_p", "digamma_p", "div_p", "dot_general_p", "dynamic_slice_p",
    "dynamic_update_slice_p", "eigh_p", "eq_p", "eq_to_p", "erf_inv_p", "erf_p", "erfc_p",
    "exp2_p", "exp_p", "expm1_p", "fft_p", "floor_p", "gather_p", "ge_p", "gt_p",
    "householder_product_p", "igamma_grad_a_p", "igamma_p", "igammac_p", "imag_p", "integer_pow_p",
    "iota_p", "is_finite_p", "jit_p", "le_p", "le_to_p", "lgamma_p", "log1p_p", "log_p",
    "logistic_p", "lt_p", "lt_to_p", "lu_p", "max_p", "min_p", "mul_p", "name_p", "ne_p", "neg_p",
    "nextafter_p", "not_p", "or_p", "pad_p", "pmax_p", "pmin_p", "polygamma_p",
    "population_count_p", "pow_p", "ppermute_p", "psum_p", "qr_p", "random_bits_p",
    "random_fold_in_p", "random_gamma_p", "random_seed_p", "random_split_p", "real_p",
    "reduce_and_p", "reduce_max_p", "reduce_min_p", "reduce_or_p", "reduce_precision_p",
    "reduce_prod_p", "reduce_sum_p", "reduce_window_max_p", "reduce_window_min_p",
    "reduce_window_sum_p", "reduce_xor_p", "regularized_incomplete_beta_p", "rem_p", "remat_p",
    "reshape_p", "rev_p", "rng_bit_generator_p", "rng_uniform_p", "round_p", "rsqrt_p", "scan_p",
    "scatter_add_p", "scatter_max_p", "scatter_min_p", "scatter_mul_p", "scatter_p", "select_n_p",
    "sharding_constraint_p", "shift_left_p", "shift_right_arithmetic_p", "shift_right_logical_p",
    "sign_p", "sin_p", "sinh_p", "slice_p", "sort_p", "sqrt_p", "square_p", "squeeze_p",
    "stop_gradient_p", "sub_p", "svd_p", "tan_p", "tanh_p", "top_k_p", "transpose_p",
    "triangular_solve_p", "while_p", "xor_p", "zeta_p",
]
