"""Regressions from the reliability issue: each case runs on stablejax and JAX and must agree
(values, dtypes, weak types), or both must raise the same kind of error."""
from __future__ import annotations

import copy
import operator
import pickle
import warnings

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp

LIBS = {"stablejax": (sj, jnp), "jax": (jax, jjnp)}


def _set_to_itself(v, i):
  return v.at[i].set(v[i])


def _made_under_x64(api, np_):
  """A float64 array made inside `enable_x64`, to be used after it."""
  with api.enable_x64(True):
    return np_.float64(1) + np_.float64(1e-12)


def _error(thunk):
  try:
    thunk()
  except Exception as e:  # noqa: BLE001 (the error's type is the outcome)
    return e
  return None


def outcome(fn):
  """(value, dtype, weak type) of `fn(api, numpy)` on each library, or the error type."""
  out = {}
  for name, (api, np_) in LIBS.items():
    try:
      with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the casts JAX warns about are tested apart)
        r = fn(api, np_)
      out[name] = (np.asarray(r).tolist(), np.asarray(r).dtype, bool(getattr(r, "weak_type", 0)))
    except Exception as e:  # noqa: BLE001 -- the error type is what is compared
      out[name] = type(e)
  return out


B = np.array([True, False, True])
I32 = np.arange(3, dtype=np.int32)
U32 = np.array([2**32 - 1, 1, 5, 3], np.uint32)
CASES = {
    "bool ** 2": lambda api, np_: np_.asarray(B) ** 2,
    "bool ** int array": lambda api, np_: np_.asarray(B) ** np_.asarray(I32),
    "bool // bool": lambda api, np_: np_.floor_divide(np_.asarray(B), np_.asarray(B)),
    "bool % bool": lambda api, np_: np_.remainder(np_.asarray(B), np_.asarray(B)),
    "power(scalar, int array)": lambda api, np_: np_.power(2.0, np_.asarray(I32)),
    "power keeps a size-1 exponent's shape": lambda api, np_: np_.power(
        np_.abs(1) + 0.5, np_.clip(np_.asarray(np.array([[2]], np.int32)), -3, 3)),
    "static index past the end clamps": lambda api, np_: np_.arange(3)[5],
    "int32 + 2**40": lambda api, np_: np_.asarray(I32) + 2 ** 40,
    "int32 + 2**40 under jit": lambda api, np_: api.jit(lambda x: x + 2 ** 40)(I32),
    "float32 + 2**40 (the int must fit int32 first)": lambda api, np_: np_.ones(2) + 2 ** 40,
    "uint8 + 300 wraps": lambda api, np_: np_.asarray(np.arange(3, dtype=np.uint8)) + 300,
    "array(2**40)": lambda api, np_: np_.array(2 ** 40),
    "jit argument 2**40": lambda api, np_: api.jit(lambda x: x)(2 ** 40),
    "vmap out_axes=3 on a rank-2 output": lambda api, np_: api.vmap(
        lambda x: x, out_axes=3)(np_.ones((2, 3))),
    "vmap out_axes=-3 on a rank-2 output": lambda api, np_: api.vmap(
        lambda x: x, out_axes=-3)(np_.ones((2, 3))),
    "vmap out_axes=-2": lambda api, np_: api.vmap(lambda x: x, out_axes=-2)(np_.ones((2, 3))),
    "max of an empty array": lambda api, np_: np_.max(np_.zeros((0,))),
    "min of an empty axis": lambda api, np_: np_.min(np_.zeros((0, 2)), axis=0),
    "unknown static_argnames": lambda api, np_: api.jit(lambda x: x, static_argnames="zz")(1.0),
    "a size-1 array is not an index": lambda api, np_: operator.index(np_.asarray([1])),
    "a 0-d integer array indexes": lambda api, np_: (lambda x: x[np_.argmax(x)])(
        np_.asarray([1.0, 5.0, 2.0])),
    "True as an index": lambda api, np_: np_.arange(3)[True],
    "False as an index": lambda api, np_: np_.arange(3)[False],
    "jnp.float32(2.0) is a strong array": lambda api, np_: np_.float32(2.0),
    "jnp.int32 of a traced value": lambda api, np_: api.jit(lambda x: np_.int32(x > 0) + 2)(1.0),
    # the fuzzer's findings (tests/py/fuzz)
    "jvp's zero tangent keeps the weak type": lambda api, np_: api.jvp(
        lambda x: (x, 2.0), (np_.ones(()),), (np_.ones(()),))[1][1],
    "jvp's zero tangent of a weak array": lambda api, np_: api.jvp(
        lambda x: (x, np_.zeros(3) + 2.0), (np_.ones(()),), (np_.ones(()),))[1][1],
    "arctan2 of complex operands": lambda api, np_: np_.arctan2(
        np_.asarray([1 + 1j, -2j]), np_.asarray([2 + 0j, 1 - 1j])),
    "hypot of weak operands": lambda api, np_: np_.hypot(3.0, 4.0),
    "hypot of Python ints": lambda api, np_: np_.hypot(3, 4),
    "hypot of complex operands": lambda api, np_: np_.hypot(1 + 1j, np_.ones(2)),
    ".at[].add of a complex scalar to a real array": lambda api, np_: np_.zeros(3).at[1].add(
        1 + 2j),
    ".at[].max of a complex scalar to a real array": lambda api, np_: np_.zeros(3).at[1].max(
        1 + 2j),
    ".at[].mul(0.5) of a bool array computes in float": lambda api, np_: np_.asarray(
        B).at[...].mul(0.5),
    ".at[].add(-0.5) of an int array truncates the sum": lambda api, np_: np_.asarray(
        I32).at[1].add(-0.5),
    ".at[].multiply(0.5) of an int array": lambda api, np_: np_.asarray(I32).at[2].multiply(0.5),
    "bool % 0 is weakly typed": lambda api, np_: np_.asarray(B) % 0,
    "floor_divide of a weak float array": lambda api, np_: api.jit(
        lambda s: np_.floor_divide(np_.full((3, 2), s), -2.0))(2.0),
    "floor_divide of a weak int array": lambda api, np_: api.jit(
        lambda s: np_.floor_divide(np_.full((3,), s), -2))(5),
    "einsum of weak operands": lambda api, np_: api.jit(lambda s: np_.einsum(
        "ij,kj->ik", np_.full((2, 2), s), np_.full((2, 2), s)))(2.0),
    "einsum sums booleans with or": lambda api, np_: np_.einsum(
        "ij->j", np_.isfinite(np_.ones((2, 3)))),
    "einsum sums int8 in int8": lambda api, np_: np_.einsum("ij->", np_.ones((2, 3), "int8")),
    "dynamic_update_slice is not weakly typed": lambda api, np_: api.jit(
        lambda s: api.lax.dynamic_update_slice(np_.full((4,), s), np_.full((2,), s), (1,)))(2.0),
    "vmap of dynamic_update_slice keeps the operand's weak type (a scatter in JAX)":
        lambda api, np_: api.vmap(lambda v: api.lax.dynamic_update_slice_in_dim(
            v, v[:2], 1, axis=0))(np_.clip(np_.ones((3, 4), bool), 0, None)),
    "uint32 ** int under jvp keeps uint32": lambda api, np_: api.jvp(
        lambda x: np_.asarray(np.array([1, 2, 3], "uint32")) ** np_.mean(x).astype(np_.int32),
        (np_.ones(3),), (np_.ones(3),))[0],
    "rfft of an empty axis": lambda api, np_: np_.fft.rfft(np_.zeros((2, 0))),
    "max and min of complex arrays are lexicographic": lambda api, np_: [
        f(np_.asarray(np.array([[1 + 2j, 1 + 3j, 0.5 + 5j], [2 - 1j, 2 - 3j, 0j]], "complex64")),
          axis=a) for f in (np_.max, np_.min) for a in (None, 0, 1)],
    "cummax of a complex array": lambda api, np_: api.lax.cummax(
        np_.asarray(np.array([1 + 2j, 1 + 3j, 0.5 + 5j], "complex64")), axis=0),
    "clip of a complex array": lambda api, np_: np_.clip(np_.ones(2, "complex64"), 0, None),
    "imag of a weak array stays weak": lambda api, np_: np_.imag(
        np_.clip(np_.ones(2, bool), 0, None)),
    "hypot of weak arrays is strong (JAX's inf constant)": lambda api, np_: api.jit(
        lambda s: np_.hypot(np_.full((2,), s), -1))(2.0),
    "hypot of inf and nan": lambda api, np_: np_.hypot(np_.asarray([np.inf, np.nan]),
                                                       np_.asarray([np.nan, np.inf])),
    "int ** negative int as JAX computes it": lambda api, np_: np_.asarray(
        np.array([3, -3, 2, -2], "int32")) ** np_.asarray(np.array([-3, -3, 10, 3], "int32")),
    "weak types of boolean results as JAX gives them": lambda api, np_: [
        r.weak_type for r in api.jit(lambda s, i: [
            np_.isnan(i), np_.logical_and(i, True), np_.logical_not(s), np_.iscomplex(s),
            np_.isreal(s), (s < s) == (s < s), np_.logical_and(s < s, s < s),
            np_.fmod(i < i, 0), np_.logical_not(np_.full((2,), i))])(2.0, 3)],
    "weak types of gradients with respect to a Python scalar": lambda api, np_: [
        api.grad(f)(0.5).weak_type for f in [
            lambda x: np_.stack([x, x])[1], lambda x: np_.pad(x[None], 1)[1],
            lambda x: np_.where(x > 0, x, 0.0), lambda x: np_.maximum(x, 0.2),
            lambda x: np_.clip(x, 0, 1), lambda x: np_.tanh(x) ** 2, lambda x: np_.sqrt(x),
            lambda x: np_.logaddexp(x, 1.0), lambda x: api.nn.softplus(x)]],
    # (JAX's add_any keeps its first operand's weak type when traced, and adds as + eagerly)
    "weak types of a gradient through x.at[i].set(x[i]), eager and jitted": lambda api, np_: [
        g(lambda a, i: np_.sum(_set_to_itself(i * a, i).astype(np.float32)))(
            3.25, np_.asarray(np.array([k], "uint8"))).weak_type
        for g in (api.grad, lambda f: api.jit(api.grad(f))) for k in (0, 1)],
    "take with uint32 indices past int32, each mode": lambda api, np_: [
        str(api.jit(lambda a, i: np_.take(a, i, mode=m))(np_.arange(3.0), U32).tolist())
        for m in (None, "clip", "wrap")],
    "take_along_axis with uint32 indices past int32 (JAX converts them to int32)":
        lambda api, np_: [str(api.jit(lambda a, i: np_.take_along_axis(a, i, 0, mode=m))(
            np_.arange(3.0), U32).tolist()) for m in (None, "clip")],
    "take_along_axis has no wrap mode": lambda api, np_: np_.take_along_axis(
        np_.arange(3.0), np_.asarray(I32), 0, mode="wrap"),
    "weak types of a gradient through where(a > 0, a, uint32 array), eager and jitted":
        lambda api, np_: [g(lambda a: np_.sum(np_.where(a > 0, a, U32).astype(np.float32)))(
            3.25).weak_type for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "a loop's transpose carries its cotangent typed as it arrives (weak types)": lambda api, np_: [
        g(lambda a: np_.sum(api.lax.dynamic_update_slice_in_dim(np_.broadcast_to(
            api.lax.fori_loop(0, 1, lambda i, c: np_.sin(c), a), (0,)), np_.zeros((0,)), 2,
            axis=0).astype(np.float32)))(0.5).weak_type
        for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "tangents of .at[].max/.min where NaN or nothing reaches (JAX: the operand's, or 0)":
        lambda api, np_: [str(api.jvp(lambda x, u: getattr(x.at[np.array([1, 1, 2, 3])], m)(u),
                                      (np.array([np.nan, 1, np.nan, 2, 5], np.float32),
                                       np.array([3, 3, 0, 7], np.float32)),
                                      (np.arange(1, 6, dtype=np.float32),
                                       np.ones(4, np.float32)))[1]) for m in ("max", "min")],
    "weak types of vmapped dynamic_slice with batched starts": lambda api, np_: [
        api.vmap(lambda i: api.lax.dynamic_slice_in_dim(np_.broadcast_to(v, (3,)), i, n))(
            np.array([0, 2], np.int32)).weak_type for v in (0, 0.5) for n in (0, 1)],
    "weak type of the gradient of int16 array ** Python float": lambda api, np_: [
        g(lambda b: np_.sum(np_.power(np.array([[2]], np.int16), b).astype(np.float32)))(
            -1.5).weak_type for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "weak types of the gradients of dot of Python floats": lambda api, np_: [
        g(f)(-1.5).weak_type for f in (lambda a: np_.dot(a, a), lambda a: np_.dot(a, 2.0).astype(
            np.float32)) for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "an empty take keeps the weak type": lambda api, np_: np_.take(
        np_.broadcast_to(-2, (0, 3)), np_.broadcast_to(-2, (0, 3)), axis=1, mode="wrap"),
    "full_like of a weak bool (a comparison with a Python float) is a weak bool": lambda api, np_:
        [f(np_.less(np_.asarray(np.int8(1)), 1.5)).weak_type for f in (
            lambda v: api.lax.full_like(v, True), lambda v: np_.zeros_like(v),
            lambda v: np_.take(np_.broadcast_to(v, (0, 1)), np.uint8(1), axis=1))],
    "fmod of bools by False is the dividend (XLA's remainder), as JAX": lambda api, np_: np_.fmod(
        np.array([True, True, False]), np.array([True, False, False])),
    "vmap of x[x] over an empty batch": lambda api, np_: api.vmap(
        lambda v: v[v.astype(int)])(np_.zeros((0, 3))),
    "grad of sort of an empty array": lambda api, np_: api.grad(
        lambda v: np_.sort(v, axis=0).sum())(np_.zeros((0, 1))),
    "grad past a while_loop no cotangent reaches": lambda api, np_: api.grad(
        lambda x: x * 2 + api.lax.while_loop(lambda c: c[0] < 3,
                                             lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[0])(1.0),
    "grad through a while_loop's carry": lambda api, np_: api.grad(
        lambda x: api.lax.while_loop(lambda c: c[0] < 3,
                                     lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1])(1.0),
    "an unsigned index wrapping negative in int32 is not counted from the end": lambda api, np_:
        api.jit(lambda a, i: a[..., i])(np.array([[5, 8]], "uint32"),
                                        np.array([[2**32 - 1]], "uint32")),
    "an empty gather keeps the weak type": lambda api, np_: api.jit(
        lambda v: np_.add(v, 1.5)[..., v])(np.zeros((1, 0), "uint8")),
    "a numpy integer array beside a Python float is weakly typed": lambda api, np_:
        np_.subtract(np.array([1, 2], "uint32"), 3.25),
    "cond's transpose types its cotangents as they arrive": lambda api, np_: [
        api.grad(f)(3.25).weak_type for f in [
            lambda x: np_.sort(np.array([[1]], "uint32") - api.lax.switch(
                1, [lambda a: a * a, lambda a: -a], x), axis=1).sum(),
            lambda x: (np_.ones(2) - api.lax.cond(x > 0, lambda a: a * a, lambda a: -a, x)).sum(),
            lambda x: np_.sort(np_.stack([x, 1.0]) - api.jit(lambda a: a * a)(x)).sum()]],
    "where on empty arrays is x (nextafter of it is never differentiated)": lambda api, np_:
        api.grad(lambda v: np_.nextafter(*[np_.where(v > 0, 1.0, v)] * 2).sum() + v.sum())(
            np.ones((0, 1))),
    ".at[].max's tangent is NaN where its result and tangent are": lambda api, np_: np_.isnan(
        api.jvp(lambda v: (v ** v).at[:3].max(True), (np_.asarray([0.3, -4.5, -6.75], "float16"),),
                (np_.asarray([0.8, 0.2, -0.5], "float16"),))[1]),
    "round of bools is a ValueError": lambda api, np_: api.jit(np_.round)(np_.ones(2, bool)),
    "pow's tangents are strongly typed": lambda api, np_: [
        api.grad(f)(2.5).weak_type for f in [lambda x: np_.power(x, np_.isfinite(x)),
                                             lambda x: x ** 2.0, lambda y: np_.power(2.0, y),
                                             lambda x: api.lax.pow(x, 3)]],
    "dot's cotangent cast back to a weak operand's type is weak": lambda api, np_: [
        api.grad(lambda x: np_.dot(x, np_.ones((1, 1), dt)).astype("float32").sum())(0.5)
        .weak_type for dt in ("bfloat16", "float16", "float32")],
    "min's gradient at a NaN multiplies by the indicator as JAX's (compiled: XLA's select)":
        lambda api, np_: [np_.isnan(g(lambda v: np_.sum(np_.min(v, axis=0).astype("float32")))(
            np_.asarray([[2.9, np.nan, 1.2], [1.0, 3.0, np.nan]], dt))).tolist()
            for g in (api.grad, lambda f: api.jit(api.grad(f))) for dt in ("float32", "bfloat16")],
    "functions that leave integers as they are still give Arrays": lambda api, np_: [
        (str(f(v).dtype), f(v).weak_type) for v in (-3, True, np.int8(4)) for f in (
            np_.trunc, np_.floor, np_.ceil, np_.abs, np_.conjugate, np_.nan_to_num,
            np_.positive)],
    "cumprod over an axis of 1 multiplies by 1 (complex nan * 1 is nan+nanj)": lambda api, np_: [
        np_.isnan(f(np_.cumprod(np_.asarray([[complex(np.nan, -1.5), 2 + 1j]]), axis=0)))
        for f in (np_.real, np_.imag)],
    "isfinite and isinf of integers are bool Arrays": lambda api, np_: [
        (str(r.dtype), r.weak_type) for v in (-3, True, np.arange(2)) for r in (
            np_.isfinite(v), np_.isinf(v), np_.isposinf(v), np_.isfinite(v) % np_.isfinite(v),
            np_.isfinite(v) - 1.5)],
    ".at[].max/.min of complex values are lexicographic": lambda api, np_: [
        getattr(np_.asarray([1 + 0j, 2 - 1j], "complex64").at[np_.asarray([0, 0, 1])], op)(
            np_.asarray([1 + 1j, 1 - 1j, 2 + 0j], "complex64")) for op in ("max", "min")],
    "cumprod's gradient scans odd/even as JAX's (an infinity meets a zero once)": lambda api, np_:
        np_.isnan(api.grad(lambda v: np_.sum(np_.cumprod(v, axis=1)))(
            np_.asarray([[np.inf, -1.15, -0.0, 2.0, 0.5], [-2.0, 0.0, 0.48, np.inf, -3.0]]))),
    "cumlogsumexp's gradient follows JAX's logaddexp rule": lambda api, np_: [
        api.grad(lambda v: np_.sum(api.lax.cumlogsumexp(v, reverse=r) * np_.arange(7.0)))(
            np_.asarray([np.inf, 0.3, 0.0, 0.3, 3.0, np.inf, 0.0])) for r in (False, True)],
    "scan's transpose types the scanned cotangents as they arrive (strong zeros)": lambda api,
        np_: api.grad(lambda v: np_.sum(api.lax.dynamic_slice_in_dim(api.lax.scan(
            lambda c, t: (c * 0.5 + t, c * t), np_.zeros_like(v), np_.reshape(v, (1,)))[1],
            -1, 0)))(0.5),
    "derivatives keep a weak array's type through JAX's _one (asinh, log1p, tanh, ...)":
        lambda api, np_: [api.grad(lambda v: np_.sum(f(np_.reshape(v, (-1,))).astype("float32")))(
            1.5).weak_type for f in (np_.arcsinh, np_.arccosh, np_.arctanh, np_.expm1, np_.log1p,
                                     np_.tanh, np_.tan, np_.arcsin, api.nn.sigmoid)],
    "power broadcasts before it promotes, as JAX's (XLA keeps a fused bfloat16 sum alike)":
        lambda api, np_: api.jit(lambda m, v: np_.power(m, v + np.array([0.337, 1.017, 1.9],
                                                                         "bfloat16")))(
            np.float32([[1.0498059]]), np.array([4.03125, -0.416015625, 2.90625], "bfloat16")),
    "scatter max's gradient adds the scaled window tangents to the operand's, as JAX's": lambda
        api, np_: [np_.isnan(g(lambda v: np_.sum(np_.log(np_.reshape(v, (1,)).at[-1].max(-2.0))))(
            0.0)).tolist() for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "scatter min's gradient types as JAX's, eagerly and under jit": lambda api, np_: [
        g(lambda v: np_.sum(v.at[None,].min(-2.0).astype("float32")))(0.5).weak_type
        for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "einsum's sums are strong inside, its result weak again (a weak gradient through it)":
        lambda api, np_: [g(lambda v: np_.sum(np_.cbrt(np_.einsum("...ij->...j", np_.maximum(
            np_.expand_dims(np.array([2, -5, 3], np.int32), 1), v))).astype("float32")))(
            2.0).weak_type for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "einsum hands dot_general its operands' own types (a weak one beside a bool: a strong "
    "gradient)": lambda api, np_: [
        g(lambda v: np_.sum(np_.einsum(spec, np_.ones((2, 2)) if k else
                                       np_.ones((2, 2), "int32"), v * np_.asarray(np.array(
                                           [[True, False], [True, True]])))))(1.5).weak_type
        for spec in ("ij,jk->ik", "ij,ij->ij", "ij,jk") for k in (0, 1)
        for g in (api.grad, lambda f: api.jit(api.grad(f)))],
    "einsum of three: int32 by bool contracted first cannot give float16, as in JAX":
        lambda api, np_: np_.einsum("ij,jk,kl->il", np_.ones((2, 2), "int32"),
                                    np_.ones((2, 2), bool), np_.ones((2, 2), "float16")),
    "cumlogsumexp's gradient in float16 rounds as JAX's": lambda api, np_: api.grad(
        lambda v: np_.sum(api.lax.cumlogsumexp(v) * np_.arange(9.0, dtype="float16")))(
        np_.asarray(np.linspace(-3, 3, 9), "float16")),
    "associative_scan interleaves by adding zeros, as JAX's (-0.0 comes out +0.0)": lambda api,
        np_: [np_.signbit(api.lax.associative_scan(np_.minimum, np_.asarray([0.0, -0.0, 0.0]))),
              np_.signbit(api.jvp(lambda v: api.lax.cummin(v), (np_.asarray([0.0, -0.0, 0.0]),),
                                  (np_.ones(3),))[0]),
              api.grad(lambda v: np_.sum(np_.arctan2(v, api.lax.cummin(v)) * np_.arange(3.0)))(
                  np_.asarray([-1.5, -0.0, 0.0]))],
    "take of an empty array by some indices is a gather, as JAX's (so grad reaches a while_loop)":
        lambda api, np_: api.grad(lambda v: np_.sum(api.lax.while_loop(
            lambda s: s[0] < 1, lambda s: (s[0] + 1, np_.sin(s[1])),
            (0, np_.take(v, np_.asarray([[1]]), axis=0)))[1]))(np_.zeros((1, 0, 1))),
    "take's bool indices index 0 and 1, as JAX's": lambda api, np_: api.jit(
        lambda x: np_.take(x, np_.asarray([True, False, True])))(np_.arange(3.0)),
    "take's float indices are a ValueError, as JAX's": lambda api, np_: np_.take(
        np_.arange(3.0), np_.asarray([1.0])),
    "real of a Python scalar is an Array, as JAX's (seed 7000 #340: .astype on it)":
        lambda api, np_: np_.real(3).astype(np_.complex64),
    "functions leaving a value as it is still return an Array, as JAX's": lambda api, np_: [
        isinstance(f(x), api.Array) for x in (3, 2.5, True, np.arange(2, dtype=np.int8))
        for f in (np_.real, np_.clip, np_.transpose, np_.squeeze, np_.ravel)],
    "angle of real scalars and integers is a strong default float, as JAX's": lambda api, np_: [
        (str(r.dtype), r.weak_type) for r in (np_.angle(3), np_.angle(-2.5),
                                              np_.angle(np.float16(-1.5)), np_.angle(1 + 2j))],
    "rint of integers is a strong default float, as JAX's": lambda api, np_: [
        (str(r.dtype), r.weak_type) for r in (np_.rint(3), np_.rint(np.arange(2, dtype=np.int8)))],
    "constants beside a weak scalar are weak, as JAX's _const (deg2rad, sinc, ...)":
        lambda api, np_: [f(x).weak_type for x in (2.5, np_.asarray(2.5))
                          for f in (np_.deg2rad, np_.sinc, api.jit(np_.rad2deg))],
    "arange's dtype comes from the bounds given: arange(True) is a TypeError, as JAX's":
        lambda api, np_: np_.arange(True),
    "arange of complex bounds is a ValueError, as in JAX 0.10": lambda api, np_: np_.arange(1j),
    "tril_indices' n must be an integer, as JAX's": lambda api, np_: np_.tril_indices(2.5),
    "the index functions give Arrays, as JAX's": lambda api, np_: [
        isinstance(i, api.Array) for i in np_.diag_indices(2) + np_.triu_indices(3, 1)],
    "linearize: a tangent that does not depend on the inputs is zero, as JAX's (seed 7000 "
    "#1216: grad through nextafter of an empty product)": lambda api, np_: api.jit(api.grad(
        lambda v: np_.sum(np_.nextafter(np_.sign(v), np_.prod(np_.broadcast_to(v, (0, 2)),
                                                              axis=0)))))(np_.ones(2)),
    "a vmapped gather over an empty batch from an empty axis, as JAX's (seed 7000 #3829)":
        lambda api, np_: [g(lambda v: np_.broadcast_to(v, (0, 3, 3))[v])(
            np.zeros((0, 1, 1), np.int16)).shape for g in (api.vmap, lambda f: api.jit(
                api.vmap(f)))],
    "a float64 array made under enable_x64 and a Python scalar after it promote to float32, "
    "two such arrays stay float64, as JAX's": lambda api, np_: (lambda s: [
        (s - 1.0).dtype, (s * 2).dtype, (s + s).dtype])(_made_under_x64(api, np_)),
    "cumulative_prod keeps narrow integers (only cumulative_sum promotes), as JAX's":
        lambda api, np_: np_.cumulative_prod(np.array([1, 200], np.uint8), include_initial=True),
    "diag of a weak vector stays weak, as JAX's": lambda api, np_: [
        np_.diag(np_.broadcast_to(np_.asarray(2.5), (3,)), k).weak_type for k in (0, 1)],
    "bincount counts bools as 0 and 1, as JAX's": lambda api, np_: np_.bincount(
        np.array([True, False, True])),
    "lexsort of scalar keys is an Array, as JAX's": lambda api, np_: isinstance(
        np_.lexsort([np.float32(2.0)]), api.Array),
    "where of a condition alone is nonzero, as JAX's": lambda api, np_: [
        np_.where(np.array([0.0, 2.0, 0.0, 3.0]))[0], api.jit(lambda v: np_.where(
            v, size=3, fill_value=-1)[0])(np.array([0.0, 2.0, 0.0, 3.0]))],
    "where of a condition and x alone is a TypeError, as JAX's": lambda api, np_: np_.where(
        np.array([True]), 1.0),
    "stack of an array stacks its subarrays, as JAX's": lambda api, np_: [
        np_.stack(np.arange(24.0).reshape(2, 3, 4), axis=k) for k in (0, 2, -1)],
    "vander computes in x's dtype, as JAX's (uint8 stays uint8)": lambda api, np_: np_.vander(
        np.array([1, 3], np.uint8), 3),
    "vander of bools is a TypeError, as JAX's": lambda api, np_: np_.vander(
        np.array([True, False])),
    "a bool divided by 0 under jit is XLA's select (False / 0 is 0), as JAX's (seed 8000 #1940; "
    "eagerly stablejax divides as numpy, see KNOWN)": lambda api, np_: api.jit(
        lambda v: np_.divide(v, 0))(np.array([False, True])),
    "jvp through that nextafter still needs its rule, as JAX's": lambda api, np_: api.jvp(
        lambda v: np_.nextafter(np_.prod(np_.broadcast_to(v, (0, 2)), axis=0), 1.0),
        (np_.ones(2),), (np_.ones(2),))[1],
    "unique takes every complex NaN for one (nan+0j), as JAX's": lambda api, np_: str([
        (np.asarray(r).tolist(), r.dtype, r.weak_type) for r in np_.unique(
            np.array([complex(1, np.nan), complex(1, np.nan), complex(np.nan, 0), 2 + 1j,
                      complex(2, np.nan)], np.complex64), return_counts=True,
            return_inverse=True, return_index=True) + (np_.unique(np_.asarray(1 + 2j)),)]),
    "stack and concatenate of a scalar are TypeErrors, as JAX's": lambda api, np_: [
        type(_error(lambda: f(a))) for f in (np_.stack, np_.concatenate, np_.hstack,
                                             np_.vstack) for a in (np.float32(1), 5)],
    "indices' dimensions must be integers, as JAX's": lambda api, np_: np_.indices((2.0, 3)),
    "fmax and fmin of complex values order them lexicographically, as JAX's": lambda api, np_: [
        f(np.array([1 + 1j, 1 + 2j, complex(np.nan, 1), 2, 1 - 1j], np.complex64),
          np.array([1 + 2j, 1 + 1j, 5, complex(np.nan, 0), 1j], np.complex64))
        for f in (np_.fmax, np_.fmin)],
    "logaddexp2 of weak scalars stays weak, as JAX's": lambda api, np_: [
        np_.logaddexp2(a, b).weak_type
        for a, b in ((3, 2.5), (1 + 2j, 3), (2.5, np_.asarray(1.0)))],
    "logaddexp of complex values wraps the imaginary part and of a weak complex vector is strong, "
    "as JAX's": lambda api, np_: [
        np_.logaddexp(1 + 2j, np.array([1, -2, 3], np.int32)).weak_type,
        *np_.round(np_.logaddexp(np.array([3 + 3j, 1 - 3j], np.complex64), 2 + 3.1j), 4)],
    "logaddexp's gradient is JAX's custom JVP, also at infinities": lambda api, np_: [
        api.grad(f, argnums=(0, 1))(a, b) for f in (np_.logaddexp, np_.logaddexp2)
        for a, b in ((1.0, 1.0), (2.0, -1.0), (np.inf, np.inf), (np.inf, 1.0))],
    "heaviside of weak scalars stays weak, as JAX's": lambda api, np_: [
        np_.heaviside(a, b).weak_type for a, b in ((3, 2.5), (-1.5, True), (0, np_.asarray(0.5)))],
    "ldexp is exact in bfloat16 (2 ** e, not exp2), as JAX's": lambda api, np_: np_.ldexp(
        np.array([0.5, -3, 0, 1e-5, np.inf], "bfloat16"), 3),
    "gcd and lcm of bools are ValueErrors, as JAX's": lambda api, np_: [
        type(_error(lambda: f(a, b))) for f in (np_.gcd, np_.lcm)
        for a, b in ((True, True), (np.array([True, False]), True))],
    "gcd and lcm keep JAX's weak types (weak scalars weak, a weak vector strong)": lambda api,
        np_: [f(a, b).weak_type for f in (np_.gcd, np_.lcm) for a, b in (
            (3, 6), (True, 4), (np_.broadcast_to(np_.asarray(3), (3,)), 6),
            (3, np.array([True, False, True])))],
    "polymul of a scalar is a TypeError, as JAX's": lambda api, np_: np_.polymul(
        3, np.array([1.0, 2.0])),
    "isclose compares integers in floating point, as JAX's": lambda api, np_: np_.isclose(
        np.array([100000000, 3, -7], np.int32), np.array([100000001, 3, 7], np.int32)),
    "isclose, allclose, array_equal and array_equiv results are strong Arrays, as JAX's":
        lambda api, np_: [(type(r).__name__ in ("Array", "ArrayImpl"), r.weak_type) for r in (
            np_.isclose(3, True), np_.allclose(3, 3), np_.array_equal(2.5, 2.5),
            np_.array_equal(3, np.ones(2)), np_.array_equiv(1, np.ones(2)))],
}


# The outcomes newer JAX changed, as JAX 0.10.2 (the JAX stablejax follows) gives them: JAX 0.12
# keeps hypot's weak type, gives strong gradients through maximum and clip, changes the weak
# types of asinh's and asin's derivatives, and no longer needs nextafter's JVP rule after an
# empty product in jvp either.
AS_IN_0_10_2 = {
    "jvp through that nextafter still needs its rule, as JAX's": NotImplementedError,
    "hypot of weak arrays is strong (JAX's inf constant)":
        ([2.2360680103302, 2.2360680103302], np.dtype(np.float32), False),
    "weak types of gradients with respect to a Python scalar":
        ([False, False, True, True, True, True, True, True, True], np.dtype(np.bool_), False),
    "derivatives keep a weak array's type through JAX's _one (asinh, log1p, tanh, ...)":
        ([True, True, True, True, True, True, False, False, True], np.dtype(np.bool_), False),
    "einsum's sums are strong inside, its result weak again (a weak gradient through it)":
        ([True, True], np.dtype(np.bool_), False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_agrees_with_jax(name, jax_after_0_10_2):
  out = outcome(CASES[name])
  if name in AS_IN_0_10_2:
    assert jax_after_0_10_2 or out["jax"] == AS_IN_0_10_2[name], out  # the record is JAX's
    out["jax"] = AS_IN_0_10_2[name]
  assert out["stablejax"] == out["jax"], out


@pytest.mark.parametrize("types", ["int32 int32 float32", "int8 int8 float16",
                                   "float32 float32 int32", "bool bool float32",
                                   "int32 int32 complex64", "int32 int32 uint32",
                                   "float32 float32 float16", "int32 int32 int8",
                                   "int32 int32 bool"])
def test_dot_preferred_element_type_of_any_kind_widens_integers_only(types):
  lhs, rhs, preferred = types.split()
  out = outcome(lambda api, np_: api.jit(lambda x, y: api.lax.dot(
      x, y, preferred_element_type=preferred))(np.arange(3).astype(lhs), np.arange(3).astype(rhs)))
  assert out["stablejax"] == out["jax"], out


def _divisions_by_zero(lax, x):
  zero = x * 0
  return lax.div(zero, zero), lax.rem(zero, zero), lax.div(x, zero), lax.rem(x, zero)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32])
def test_integer_division_by_a_provable_zero_compiles_to_xlas_values(dtype):
  """XLA's CPU compiler dies (SIGFPE) constant-folding an integer 0 / 0, as `jax.jit` of this
  program does; stablejax's jit gives the values JAX computes op by op (INT_MIN / -1 too)."""
  x = np.array([0, 1, 7, np.iinfo(dtype).max, np.iinfo(dtype).min], dtype)
  got = sj.jit(lambda x: _divisions_by_zero(sj.lax, x) + (sj.lax.div(x, x * 0 - 1),))(x)
  want = _divisions_by_zero(jax.lax, x) + (jax.lax.div(x, x * 0 - 1),)
  for g, w in zip(got, want):
    np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert np.asarray(g).dtype == np.asarray(w).dtype


@pytest.mark.parametrize("name, fn", [
    ("complex into a real .at[]", lambda np_: np_.zeros(3).at[1].add(1 + 2j)),
    ("float into an int .at[]", lambda np_: np_.zeros(3, np.int32).at[1].set(1.5)),
    ("complex to real cast", lambda np_: np_.asarray([1 + 1j]).astype(np.float32)),
    ("safe .at[] update", lambda np_: np_.zeros(3).at[1].add(2)),
])
def test_warns_as_jax_does(name, fn):
  seen = {}
  for lib, (_, np_) in LIBS.items():
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter("always")
      fn(np_)
    seen[lib] = sorted({w.category.__name__ for w in caught})
  assert seen["stablejax"] == seen["jax"]


@pytest.mark.parametrize("value", [np.arange(6.0, dtype=np.float32).reshape(2, 3), 2.0,
                                   np.array([True, False])])
def test_pickle_and_deepcopy_round_trip(value):
  x = sj.device_put(value)
  for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x), copy.copy(x)):
    assert type(y) is type(x) and isinstance(y, sj.Array) and y.aval == x.aval
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
  assert copy.deepcopy(x)._buf is not x._buf


@pytest.mark.parametrize("returned,multiple", [
    (None, False), (np.float32, False), ("f32", True),
    (sj.core.ShapedArray((), np.float32), True), ([sj.core.ShapedArray((), np.float32)], False)])
def test_a_bad_abstract_eval_result_names_the_primitive(returned, multiple):
  prim = sj.core.Primitive("my_prim")
  prim.multiple_results = multiple
  prim.def_abstract_eval(lambda x: returned)
  with pytest.raises(TypeError, match="abstract evaluation rule of primitive 'my_prim' returned"):
    sj.make_jaxpr(lambda x: prim.bind(x))(1.0)


# ----------------------------------------------------------------------------------------------
# Caches, threads and data safety

@pytest.mark.slow
def test_dropped_jitted_closures_release_their_executables_and_jaxprs():
  """300 jitted closures over distinct shapes, dropped: none of their executables or jaxprs
  stay alive."""
  import gc
  import weakref
  exes, jaxprs = [], []
  for n in range(1, 301):
    scale = float(n)
    f = sj.jit(lambda x: x * scale)
    f(np.ones((n,), np.float32))
    traced = next(iter(f._cache.values()))
    exes.append(weakref.ref(next(iter(traced.executables.values()))))
    jaxprs.append(weakref.ref(traced.jaxpr))
    del f, traced
  gc.collect()
  assert sum(r() is not None for r in exes) == 0
  assert sum(r() is not None for r in jaxprs) == 0


def test_eager_control_flow_and_vmapped_jits_do_not_keep_their_programs():
  import gc
  import weakref
  refs = []
  for n in range(20):
    g = sj.jit(lambda x, n=n: x * n)
    sj.vmap(g)(np.ones((2, 3), np.float32))
    refs.append(weakref.ref(next(iter(g._cache.values())).jaxpr))
    del g
  sj.vmap(sj.jit(lambda x: x + 1))(np.ones((2, 3), np.float32))  # the last call is remembered
  gc.collect()
  assert sum(r() is not None for r in refs) == 0


def test_clear_caches_drops_traces_and_executables():
  """`sj.clear_caches()` (as `jax.clear_caches()`) lets every cached jaxpr and executable go:
  of jitted functions still alive, of their derivatives, of eager operations."""
  import gc
  import weakref
  from stablejax import pipeline
  f = sj.jit(lambda x: jnp.sin(x) * 2)
  x = np.linspace(0, 1, 3, dtype=np.float32)
  f(x)
  sj.jvp(f, (x,), (x,))
  sj.lax.cos(jnp.asarray(x))  # an eager primitive
  jnp.cos(jnp.asarray(x))  # a jax.numpy function: jitted on concrete values
  refs = []
  for jitted in (f, jnp.cos):
    traced = next(iter(jitted._cache.values()))
    refs += [weakref.ref(next(iter(traced.executables.values()))), weakref.ref(traced.jaxpr)]
  eager_caches = [pipeline._eager, *pipeline._eager_per_jaxpr.values()]  # (the jvp's: one)
  refs += [weakref.ref(exe) for cache in eager_caches for exe, _ in cache.values()]
  del traced, eager_caches
  sj.clear_caches()
  np.testing.assert_allclose(f(x), np.sin(x) * 2, rtol=1e-6)  # traced and compiled again
  gc.collect()
  assert len(refs) > 5 and [r for r in refs if r() is not None] == []


def _cos_plus(v, t):
  return jnp.cos(v) + t


@pytest.mark.slow
def test_threads_agree_with_serial_results():
  import threading
  shared = sj.jit(lambda x, y: jnp.sin(x) * y + 1)
  xs = [np.full((i % 5 + 1,), i, np.float32) for i in range(100)]
  want = [np.asarray(shared(x, 2.0)) for x in xs]  # serially
  want_fresh = {t: [np.asarray(_cos_plus(x, np.float32(t))) for x in xs] for t in range(8)}
  errors = []

  def work(t):
    try:
      for i, x in enumerate(xs):
        fresh = sj.jit(_cos_plus)  # a fresh wrapper of a shared function each iteration
        np.testing.assert_array_equal(np.asarray(shared(x, 2.0)), want[i])
        np.testing.assert_array_equal(np.asarray(fresh(x, np.float32(t))), want_fresh[t][i])
        if i % 25 == 0:
          shared._cache.clear()  # forced eviction while other threads call it
    except Exception as e:  # noqa: BLE001 -- reported below
      errors.append(e)

  threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert not errors, errors[:3]


def test_arrays_never_alias_user_numpy_buffers():
  host = np.arange(4.0, dtype=np.float32)
  x = sj.device_put(host)
  y = jnp.asarray(host)
  host[:] = -1  # the user mutates their buffer: the arrays keep their values
  np.testing.assert_array_equal(np.asarray(x), np.arange(4.0))
  np.testing.assert_array_equal(np.asarray(y), np.arange(4.0))
  view = np.asarray(x)
  assert not view.flags.writeable
  with pytest.raises(ValueError):
    view[0] = 5.0
  np.testing.assert_array_equal(np.asarray(sj.jit(lambda v: v * 1)(x)), np.arange(4.0))
