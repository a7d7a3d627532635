"""stablejax.lax: the primitives, with JAX's names and params."""
from stablejax.lax.elementwise import *  # noqa: F401,F403
from stablejax.lax.elementwise import (  # noqa: F401
    abs_p, add_p, and_p, ceil_p, clamp_p, convert_element_type_p, cos_p, div_p, eq_p, exp_p,
    expm1_p, floor_p, ge_p, gt_p, integer_pow_p, le_p, log1p_p, log_p, logistic_p, lt_p, max_p,
    min_p, mul_p, ne_p, neg_p, not_p, or_p, pow_p, rem_p, round_p, rsqrt_p, select_n_p, sign_p,
    sin_p, sqrt_p, sub_p, tan_p, tanh_p)
from stablejax.lax.structural import *  # noqa: F401,F403
from stablejax.lax.structural import (  # noqa: F401
    broadcast_in_dim_p, concatenate_p, dynamic_slice_p, dynamic_update_slice_p, expand_dims_p,
    iota_p, pad_p, reshape_p, slice_p, squeeze_p, transpose_p)
from stablejax.lax.reductions import *  # noqa: F401,F403
from stablejax.lax.reductions import (  # noqa: F401
    argmax_p, argmin_p, cumsum_p, reduce_max_p, reduce_min_p, reduce_prod_p, reduce_sum_p)
from stablejax.lax.dot import *  # noqa: F401,F403
from stablejax.lax.dot import dot_general_p  # noqa: F401
from stablejax.lax.control_flow.loops import fori_loop  # noqa: F401
from stablejax.lax.control_flow.scan import scan, scan_p  # noqa: F401
from stablejax.lax.control_flow.cond import cond, cond_p, switch  # noqa: F401
from stablejax.lax.control_flow.while_loop import while_loop, while_p  # noqa: F401
from stablejax.lax.call import jit_p  # noqa: F401
