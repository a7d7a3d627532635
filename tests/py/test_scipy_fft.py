"""jax.scipy.fft (dct, dctn, idct, idctn): values against JAX (bit for bit on these inputs) and
scipy, the n/s cropping and padding, complex and integer inputs, under jit, and JAX's errors."""
import jax
import jax.scipy.fft as jfft
import numpy as np
import pytest
import scipy.fft

import stablejax as sj
import stablejax.scipy.fft as sfft

NORMS = [None, "backward", "ortho"]


def _rand(shape, seed=0, dtype=np.float32):
  return np.random.RandomState(seed).randn(*shape).astype(dtype)


def _equal(got, want):
  got, want = np.asarray(got), np.asarray(want)
  assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape,
                                                                 got.dtype, want.dtype)
  np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("shape,axis,n", [((7,), -1, None), ((4, 6), 0, None), ((4, 6), -1, 3),
                                          ((3, 5, 2), 1, 8), ((3, 5, 2), -1, 1)])
def test_1d_matches_jax_and_scipy(name, norm, shape, axis, n):
  x = _rand(shape)
  got = getattr(sfft, name)(x, n=n, axis=axis, norm=norm)
  _equal(got, getattr(jfft, name)(x, n=n, axis=axis, norm=norm))
  want = getattr(scipy.fft, name)(x.astype(np.float64), n=n, axis=axis, norm=norm)
  np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("shape,s,axes", [((4, 6), None, None), ((3, 5, 7), None, None),
                                          ((2, 3, 4, 5), None, None), ((4, 6), [3], None),
                                          ((4, 6), None, (0,)), ((3, 5, 7), [2, 9], None),
                                          ((3, 5, 7), None, (-1, 0)), ((4, 6), 5, None)])
def test_nd_matches_jax_and_scipy(name, norm, shape, s, axes):
  x = _rand(shape, seed=1)
  got = getattr(sfft, name)(x, s=s, axes=axes, norm=norm)
  _equal(got, getattr(jfft, name)(x, s=s, axes=axes, norm=norm))
  want = getattr(scipy.fft, name)(x.astype(np.float64), s=s, axes=axes, norm=norm)
  np.testing.assert_allclose(got, want, rtol=5e-5, atol=5e-5)


def test_complex_and_integer_inputs():
  z = (_rand((6,)) + 1j * _rand((6,), seed=2)).astype(np.complex64)
  _equal(sfft.dct(z), jfft.dct(z))
  _equal(sfft.idctn(z.reshape(2, 3)), jfft.idctn(z.reshape(2, 3)))
  ints = np.arange(6, dtype=np.int32)
  _equal(sfft.dct(ints), jfft.dct(ints))
  _equal(sfft.idct(ints), jfft.idct(ints))


def test_round_trip_under_jit_and_grad():
  x = _rand((5, 4), seed=3)
  back = sj.jit(lambda v: sfft.idctn(sfft.dctn(v, norm="ortho"), norm="ortho"))(x)
  np.testing.assert_allclose(back, x, rtol=1e-5, atol=1e-5)
  _equal(sj.jit(sfft.dct)(x), jax.jit(jfft.dct)(x))
  g = sj.grad(lambda v: sfft.dct(v, norm="ortho").sum())(x)
  np.testing.assert_allclose(g, jax.grad(lambda v: jfft.dct(v, norm="ortho").sum())(x),
                             rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call,exc,match", [
    (lambda m, x: m.dct(x, type=1), NotImplementedError, "Only DCT type 2 is implemented."),
    (lambda m, x: m.idctn(x, type=3), NotImplementedError, "Only DCT type 2 is implemented."),
    (lambda m, x: m.dct(x, norm="forward"), ValueError,
     r"jax.scipy.fft.dct: norm='forward' is not implemented"),
    (lambda m, x: m.idctn(x, norm="xx"), ValueError,
     r"jax.scipy.fft.idctn: norm='xx' is not implemented"),
    (lambda m, x: m.dctn(x, s=[1, 2, 3]), ValueError,
     r"s must have at most x.ndim \(2\) elements, got 3"),
    (lambda m, x: m.dct(x, axis=5), ValueError, "out of bounds"),
    (lambda m, x: m.dctn(x, axes=(0, 0)), ValueError, "repeated axis"),
    (lambda m, x: m.dct(list(np.asarray(x)[0])), TypeError, "dct requires ndarray or scalar"),
])
def test_errors_as_jax(call, exc, match):
  x = _rand((3, 4))
  with pytest.raises(exc, match=match):
    call(jfft, x)
  with pytest.raises(exc, match=match):
    call(sfft, x)
