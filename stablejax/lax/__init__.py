"""stablejax.lax: the primitives, with JAX's names and params."""
from stablejax.lax.elementwise import *  # noqa: F401,F403
from stablejax.lax.elementwise import (  # noqa: F401
    abs_p, add_p, and_p, ceil_p, clamp_p, convert_element_type_p, cos_p, div_p, eq_p, exp_p,
    expm1_p, floor_p, ge_p, gt_p, integer_pow_p, le_p, log1p_p, log_p, logistic_p, lt_p, max_p,
    min_p, mul_p, ne_p, neg_p, not_p, or_p, pow_p, rem_p, round_p, rsqrt_p, select_n_p, sign_p,
    sin_p, sqrt_p, sub_p, tan_p, tanh_p)
from stablejax.lax.elementwise import (  # noqa: F401
    acos_p, acosh_p, asin_p, asinh_p, atan2_p, atan_p, atanh_p, cbrt_p, complex_p, conj_p,
    cosh_p, exp2_p, imag_p, is_finite_p, nextafter_p, real_p, sinh_p, square_p)
from stablejax.lax.special import *  # noqa: F401,F403
from stablejax.lax.special import (  # noqa: F401
    bessel_i0e_p, bessel_i1e_p, digamma_p, erf_inv_p, erf_p, erfc_p, igamma_grad_a_p, igamma_p,
    igammac_p, lgamma_p, polygamma_p, zeta_p)
from stablejax.lax.special import regularized_incomplete_beta_p  # noqa: F401
from stablejax.lax.structural import *  # noqa: F401,F403
from stablejax.lax.structural import (  # noqa: F401
    broadcast_in_dim_p, concatenate_p, dynamic_slice_p, dynamic_update_slice_p, expand_dims_p,
    iota_p, pad_p, reshape_p, slice_p, squeeze_p, transpose_p)
from stablejax.lax.structural import rev_p  # noqa: F401
from stablejax.lax.reductions import *  # noqa: F401,F403
from stablejax.lax.reductions import (  # noqa: F401
    argmax_p, argmin_p, cumsum_p, reduce_max_p, reduce_min_p, reduce_prod_p, reduce_sum_p)
from stablejax.lax.reductions import reduce_and_p, reduce_or_p, reduce_xor_p  # noqa: F401
from stablejax.lax.reductions import (  # noqa: F401
    cumlogsumexp_p, cummax_p, cummin_p, cumprod_p)
from stablejax.lax.misc import *  # noqa: F401,F403
from stablejax.lax.misc import optimization_barrier_p, reduce_precision_p  # noqa: F401
from stablejax.lax.dot import *  # noqa: F401,F403
from stablejax.lax.dot import dot_general_p  # noqa: F401
from stablejax.lax.slicing import *  # noqa: F401,F403
from stablejax.lax.slicing import (  # noqa: F401
    gather_p, scatter_add_p, scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p)
from stablejax.lax.bitwise import *  # noqa: F401,F403
from stablejax.lax.bitwise import (  # noqa: F401
    bitcast_convert_type_p, clz_p, population_count_p, shift_left_p, shift_right_arithmetic_p,
    shift_right_logical_p, xor_p)
from stablejax.lax.bitwise import mulhi_p  # noqa: F401
from stablejax.lax.windowed_reductions import *  # noqa: F401,F403
from stablejax.lax.windowed_reductions import (  # noqa: F401
    reduce_window_max_p, reduce_window_min_p, reduce_window_sum_p)
from stablejax.lax.sorting import *  # noqa: F401,F403
from stablejax.lax.sorting import sort_p, top_k_p  # noqa: F401
from stablejax.lax.convolution import *  # noqa: F401,F403
from stablejax.lax.convolution import conv_general_dilated_p  # noqa: F401
from stablejax.lax.utility import *  # noqa: F401,F403
from stablejax.lax.control_flow.loops import associative_scan, fori_loop, map  # noqa: F401,A004
from stablejax.lax.control_flow.scan import scan, scan_p  # noqa: F401
from stablejax.lax.control_flow.cond import cond, cond_p, switch  # noqa: F401
from stablejax.lax.control_flow.while_loop import while_loop, while_p  # noqa: F401
from stablejax.lax.call import jit_p  # noqa: F401
from stablejax.lax.custom_derivatives import (  # noqa: F401
    custom_jvp_call_p, custom_vjp_call_p, remat_p, stop_gradient, stop_gradient_p)
from stablejax.lax.callback import debug_callback_p, pure_callback_p  # noqa: F401
from stablejax.lax.ffi import ffi_call_p  # noqa: F401
from stablejax.lax.random import random_gamma_p  # noqa: F401
from stablejax.lax.exported_call import call_exported_p  # noqa: F401
from stablejax.lax import linalg  # noqa: F401  (jax.lax.linalg)
from stablejax.lax.fft import FftType, fft, fft_p  # noqa: F401
from stablejax.lax.parallel import (  # noqa: F401
    all_gather, all_gather_p, all_to_all, all_to_all_p, axis_index, axis_index_p, axis_size,
    pmax, pmax_p, pmean, pmin, pmin_p, ppermute, ppermute_p, psum, psum_p, psum_scatter,
    reduce_scatter_p)
from stablejax.lax.sharding import sharding_constraint_p, with_sharding_constraint  # noqa: F401
from stablejax.lax.shard_map import shard_map_p  # noqa: F401
