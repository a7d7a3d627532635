"""stablejax.numpy: the numpy API over stablejax.lax, with JAX's dtype promotion and broadcasting.

Importing it installs the operators and methods of traced values and device arrays. Each function
lives in the private module named for the section of numpy's reference that documents it
(`_creation`, `_manipulation_*`, `_logic`, `_math_*`, `_padding`, `_sets`, `_sorting_searching`,
`_statistics`, ...), reductions included (`sum` in `_math_sums`, `all` in `_logic`, `mean` in
`_statistics`, `argmax` in `_sorting_searching`); the functions JAX makes ufuncs (`add`, ...)
from `_ufunc`, which wraps their section's function; `_promotion`, `_axes`, `_elementwise`,
`_reductions`, `_indexing` and `_scalar_types` are the machinery they share.
"""
import numpy as _np

from stablejax.numpy import array_methods  # noqa: F401  (installs operators and methods)
# array creation
from stablejax.numpy._creation import (  # noqa: F401
    arange, array, asarray, astype, copy, diagflat, empty, empty_like, eye, from_dlpack,
    frombuffer, fromfile, fromfunction, fromiter, fromstring, full, full_like, geomspace,
    identity, linspace, logspace, meshgrid, mgrid, ogrid, ones, ones_like, tri, tril, triu,
    vander, zeros, zeros_like)
# array manipulation
from stablejax.numpy._manipulation_basics import (  # noqa: F401
    ndarray, ndim, shape, size)
from stablejax.numpy._manipulation_shape import (  # noqa: F401
    concat, concatenate, expand_dims, matrix_transpose, moveaxis, permute_dims, ravel, reshape,
    rollaxis, squeeze, stack, swapaxes, transpose)
from stablejax.numpy._manipulation_elements import (  # noqa: F401
    append, array_split, atleast_1d, atleast_2d, atleast_3d, block, broadcast_arrays,
    broadcast_shapes, broadcast_to, column_stack, delete, dsplit, dstack, flip, fliplr, flipud,
    hsplit, hstack, insert, repeat, resize, roll, rot90, split, tile, trim_zeros, unstack, vsplit,
    vstack)
# binary operations
from stablejax.numpy._bitwise import (  # noqa: F401
    bitwise_count, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_right_shift, invert,
    left_shift, packbits, right_shift, unpackbits)
# data type routines
from stablejax.numpy._dtype_routines import (  # noqa: F401
    can_cast, finfo, iinfo, isdtype, issubdtype, promote_types, result_type)
# functional programming
from stablejax.numpy._functional import (  # noqa: F401
    apply_along_axis, apply_over_axes, piecewise, vectorize)
# input and output
from stablejax.numpy._io import (  # noqa: F401
    array_repr, array_str, get_printoptions, load, printoptions, save, savez, set_printoptions)
# indexing routines
from stablejax.numpy._indexing_routines import (  # noqa: F401
    c_, choose, compress, diag, diag_indices, diag_indices_from, diagonal, fill_diagonal,
    index_exp, indices, ix_, mask_indices, nonzero, place, put, put_along_axis, r_,
    ravel_multi_index, s_, select, take, take_along_axis, tril_indices, tril_indices_from,
    triu_indices, triu_indices_from, unravel_index, where)
# linear algebra (the products; the rest is `linalg`)
from stablejax.numpy._linalg_products import (  # noqa: F401
    cross, dot, einsum, einsum_path, inner, kron, matmul, matvec, outer, tensordot, trace, vdot,
    vecdot, vecmat)
# logic functions
from stablejax.numpy._logic import (  # noqa: F401
    all, allclose, any, array_equal, array_equiv, equal, greater, greater_equal, isclose, isfinite,
    isinf, isnan, isneginf, isposinf, less, less_equal, logical_not, not_equal)
from stablejax.numpy._logic_type_tests import (  # noqa: F401
    iscomplex, iscomplexobj, isreal, isrealobj, isscalar, iterable)
# mathematical functions
from stablejax.numpy._math_arithmetic import (  # noqa: F401
    abs, absolute, around, cbrt, ceil, clip, conj, conjugate, copysign, divide, divmod, fabs,
    float_power, floor, floor_divide, fmax, fmin, fmod, frexp, gcd, heaviside, imag, lcm, ldexp,
    mod, modf, nan_to_num, nextafter, positive, pow, power, real, reciprocal, remainder, rint,
    round, sign, signbit, spacing, sqrt, square, true_divide, trunc)
from stablejax.numpy._math_transcendental import (  # noqa: F401
    acos, acosh, angle, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, asin, asinh,
    atan, atan2, atanh, cos, cosh, deg2rad, degrees, exp, exp2, expm1, hypot, i0, log, log10,
    log1p, log2, rad2deg, radians, sin, sinc, sinh, tan, tanh)
from stablejax.numpy._math_sums import (  # noqa: F401
    cumprod, cumsum, cumulative_prod, cumulative_sum, diff, ediff1d, gradient, nancumprod,
    nancumsum, nanprod, nansum, prod, sum, trapezoid)
from stablejax.numpy._math_miscellaneous import (  # noqa: F401
    convolve, correlate, interp, unwrap)
# padding arrays
from stablejax.numpy._padding import pad  # noqa: F401
# polynomials
from stablejax.numpy._polynomial import (  # noqa: F401
    poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub, polyval, roots)
# set routines
from stablejax.numpy._sets import (  # noqa: F401
    intersect1d, isin, setdiff1d, setxor1d, union1d, unique, unique_all, unique_counts,
    unique_inverse, unique_values)
# sorting, searching and counting
from stablejax.numpy._sorting_searching import (  # noqa: F401
    argmax, argmin, argpartition, argsort, argwhere, count_nonzero, extract, flatnonzero,
    lexsort, nanargmax, nanargmin, partition, searchsorted, sort, sort_complex)
# statistics
from stablejax.numpy._statistics import (  # noqa: F401
    amax, amin, average, bincount, corrcoef, cov, digitize, histogram, histogram2d,
    histogram_bin_edges, histogramdd, max, mean, median, min, nanmax, nanmean, nanmedian, nanmin,
    nanpercentile, nanquantile, nanstd, nanvar, percentile, ptp, quantile, std, var)
# universal functions: the ufunc class, and the functions JAX makes ufuncs
from stablejax.numpy._ufunc import (  # noqa: F401
    add, bitwise_and, bitwise_or, bitwise_xor, frompyfunc, logaddexp, logaddexp2, logical_and,
    logical_or, logical_xor, maximum, minimum, multiply, negative, subtract, ufunc)
# window functions
from stablejax.numpy._windows import (  # noqa: F401
    bartlett, blackman, hamming, hanning, kaiser)
from stablejax.numpy import fft, linalg  # noqa: F401

# the scalar types: dtypes, and `jnp.float32(x)` is an array (as in JAX)
from stablejax.numpy._scalar_types import (  # noqa: F401
    bfloat16, bool_, complex64, complex128, float16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64)
from stablejax.numpy._scalar_types import (  # noqa: F401
    float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, float8_e3m4, float8_e4m3, float8_e4m3b11fnuz,
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, int1, int2, int4,
    uint1, uint2, uint4)

# constants
pi, e, euler_gamma, inf, nan, newaxis = _np.pi, _np.e, _np.euler_gamma, _np.inf, _np.nan, None
ComplexWarning = _np.exceptions.ComplexWarning

dtype = _np.dtype
float_, int_ = float64, int64  # (as JAX: the 64-bit types, canonicalized)
# the abstract dtype classes, for issubdtype
generic, number, inexact, floating, complexfloating = (
    _np.generic, _np.number, _np.inexact, _np.floating, _np.complexfloating)
integer, signedinteger, unsignedinteger = _np.integer, _np.signedinteger, _np.unsignedinteger
bool = bool_  # noqa: A001  (numpy-2 names of the dtypes)
double, single, cdouble, csingle, complex_, uint = (
    float64, float32, complex128, complex64, complex128, uint64)
character, flexible, object_ = _np.character, _np.flexible, _np.object_
