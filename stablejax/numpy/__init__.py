"""stablejax.numpy: the numpy API over stablejax.lax, with JAX's dtype promotion and broadcasting.

Importing it installs the operators and methods of traced values and device arrays.
"""
import numpy as _np

from stablejax.numpy import array_methods  # noqa: F401  (installs operators and methods)
from stablejax.numpy._contractions import dot, einsum, matmul
from stablejax.numpy._convolution import convolve, correlate  # noqa: F401
from stablejax.numpy._creation import (
    arange, array, asarray, eye, full, full_like, linspace, ones, ones_like, zeros, zeros_like)
from stablejax.numpy._creation import (  # noqa: F401
    copy, empty, empty_like, frombuffer, fromfunction, geomspace, identity, logspace, meshgrid,
    mgrid, ogrid, tri, tril, triu, vander)
from stablejax.numpy._manipulation_elements import (  # noqa: F401
    append, array_split, atleast_1d, atleast_2d, atleast_3d, block, broadcast_arrays,
    broadcast_shapes, broadcast_to, column_stack, delete, diff, dsplit, dstack, ediff1d,
    flip, fliplr, flipud, hsplit, hstack, insert, repeat, resize,
    pad, roll, rot90, split, tile, unstack, vsplit, vstack)
from stablejax.numpy._reductions import argmax, argmin, cumsum, max, mean, min, prod, sum
from stablejax.numpy._indexing_functions import (  # noqa: F401
    argwhere, compress, diag, diag_indices, diagonal, extract, flatnonzero, indices, ix_, nonzero,
    put_along_axis, ravel_multi_index, select, take, take_along_axis, tril_indices, triu_indices,
    unravel_index, where)
from stablejax.numpy._products import (
    cross, inner, kron, outer, tensordot, trace, vdot, vecdot)
from stablejax.numpy._reductions import (
    all, amax, amin, any, average, count_nonzero, nanargmax, nanargmin, nanmax, nanmean, nanmin,
    nanprod, nanstd, nansum, nanvar, ptp, std, var)
from stablejax.numpy._reductions import (  # noqa: F401
    cumprod, cumulative_prod, cumulative_sum, nancumprod, nancumsum)
from stablejax.numpy._sorting import argsort, lexsort, searchsorted, sort  # noqa: F401
from stablejax.numpy._sorting import (  # noqa: F401
    argpartition, bincount, digitize, histogram, histogram_bin_edges, intersect1d, isin, median,
    nanmedian, nanpercentile, nanquantile, partition, percentile, quantile, setdiff1d, setxor1d,
    union1d, unique)
from stablejax.numpy._manipulation_shape import (  # noqa: F401
    concat, concatenate, expand_dims, matrix_transpose, moveaxis, permute_dims, ravel, reshape,
    rollaxis, squeeze, stack, swapaxes, transpose)
from stablejax.numpy._ufuncs import (
    BINARY as _BINARY, UNARY as _UNARY, clip, floor_divide, invert, logical_not, power,
    reciprocal, remainder, round, square)
from stablejax.numpy._ufuncs import bitwise_count  # noqa: F401
from stablejax.numpy._ufuncs import (  # noqa: F401
    allclose, angle, array_equal, array_equiv, conj, conjugate, copysign, deg2rad, degrees,
    float_power, fmax, fmin, fmod, gcd, heaviside, hypot, i0, imag, isclose, isfinite, isinf,
    isnan, isneginf, isposinf, lcm, log10, log2, logaddexp, logaddexp2, nan_to_num, positive,
    rad2deg, radians, real, rint, signbit, sinc, trunc)

# the scalar types: dtypes, and `jnp.float32(x)` is an array (as in JAX)
from stablejax.numpy._scalar_types import (  # noqa: E402
    bfloat16, bool_, complex64, complex128, float16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64)
dtype = _np.dtype
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None

globals().update(_UNARY)
globals().update(_BINARY)
mod = remainder
pow = power  # noqa: A001
from stablejax.numpy._metadata import (  # noqa: F401,E402
    finfo, iinfo, issubdtype, ndarray, ndim, promote_types, result_type, shape, size)
float_, int_ = float64, int64  # noqa: E305  (as JAX: the 64-bit types, canonicalized)
# the abstract dtype classes, for issubdtype
generic, number, inexact, floating, complexfloating = (
    _np.generic, _np.number, _np.inexact, _np.floating, _np.complexfloating)
integer, signedinteger, unsignedinteger = _np.integer, _np.signedinteger, _np.unsignedinteger
bool = bool_  # noqa: A001  (numpy-2 names of the dtypes)
double, single, cdouble, csingle, complex_, uint = (
    float64, float32, complex128, complex64, complex128, uint64)
character, flexible, object_ = _np.character, _np.flexible, _np.object_
from stablejax.numpy._misc import (  # noqa: F401,E402
    ComplexWarning, acos, acosh, apply_along_axis, apply_over_axes, around, asin, asinh, astype,
    atan, atan2, atanh, bitwise_invert, bitwise_not, c_, can_cast, choose, diag_indices_from,
    diagflat, divmod, einsum_path, euler_gamma, fabs, fill_diagonal, frexp, get_printoptions,
    index_exp, iscomplex, iscomplexobj, isdtype, isreal, isrealobj, isscalar, iterable, ldexp,
    mask_indices, matvec, modf, packbits, piecewise, place, printoptions, put, r_, s_,
    set_printoptions, sort_complex, spacing, tril_indices_from, trim_zeros, triu_indices_from,
    unique_all, unique_counts, unique_inverse, unique_values, unpackbits, vecmat, vectorize)
from stablejax.numpy._misc import (  # noqa: F401,E402
    array_repr, array_str, fromfile, fromiter, fromstring, load, save, savez)
from stablejax.numpy._polynomial import (  # noqa: F401,E402
    poly, polyadd, polyder, polydiv, polyint, polymul, polysub, polyval)
from stablejax.numpy._statistics import (  # noqa: F401,E402
    corrcoef, cov, gradient, histogram2d, histogramdd, interp, trapezoid, unwrap)
from stablejax.numpy._windows import bartlett, blackman, hamming, hanning, kaiser  # noqa: F401,E402
from stablejax.numpy import linalg  # noqa: F401,E402
from stablejax.numpy import fft  # noqa: F401,E402
