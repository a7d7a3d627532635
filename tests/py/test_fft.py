"""The FFT: lax.fft (the `fft` primitive's rules, its `stablehlo.fft` lowering) and jnp.fft,
against numpy and JAX, eagerly and under jit, vmap and grad."""
import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
import stablejax.numpy.fft as jnp_fft
from stablejax import core, lax, test_util
from stablejax.lax import primitive_kit

FFT_TYPES = ["FFT", "IFFT", "RFFT", "IRFFT"]


def _input(rng, fft_type, shape, wide=False):
  """A random operand for `fft_type`: real for RFFT, complex otherwise."""
  real = np.float64 if wide else np.float32
  dtype = real if fft_type == "RFFT" else (np.complex128 if wide else np.complex64)
  return test_util.rand(rng, shape, dtype)


def _in_shape(fft_type, batch, lengths):
  if fft_type == "IRFFT":
    return (*batch, *lengths[:-1], lengths[-1] // 2 + 1)
  return (*batch, *lengths)


def _same(actual, expected, wide=None):
  """Same dtype, shape and weak type (when `expected` has one); values close, with an absolute
  tolerance scaled to the values' size (an FFT's outputs grow with its length)."""
  assert np.asarray(actual).dtype == np.asarray(expected).dtype, (
      np.asarray(actual).dtype, np.asarray(expected).dtype)
  assert np.shape(actual) == np.shape(expected)
  if hasattr(expected, "weak_type"):
    assert core.get_aval(actual).weak_type == expected.weak_type
  if wide is None:
    wide = np.asarray(actual).dtype in (np.float64, np.complex128)
  scale = max(1.0, float(np.max(np.abs(expected), initial=0)))
  test_util.check_close(actual, expected, rtol=1e-10 if wide else 1e-4,
                        atol=(1e-10 if wide else 2e-5) * scale)


@pytest.fixture
def jax_x64():
  """enable_x64 in both stablejax and JAX."""
  with test_util.x64(True), jax.enable_x64(True):
    yield


# ----------------------------------------------------------------------------------------------
# lax.fft

LAX_CASES = [((), (8,)), ((3,), (8,)), ((2,), (5,)), ((2, 3), (4, 6)), ((), (3, 4, 5)),
             ((2,), (2, 3, 4))]


@pytest.mark.parametrize("fft_type", FFT_TYPES)
@pytest.mark.parametrize("batch,lengths", LAX_CASES)
def test_lax_fft_matches_jax_and_reference(fft_type, batch, lengths, rng):
  x = _input(rng, fft_type, _in_shape(fft_type, batch, lengths))
  out = lax.fft(x, fft_type, lengths)
  expected = jax.lax.fft(x, fft_type, lengths)
  _same(out, expected)
  _same(out, primitive_kit.evaluate_reference(lax.fft_p, x, fft_type=lax.FftType[fft_type],
                                         fft_lengths=lengths))
  _same(sj.jit(lax.fft, static_argnums=(1, 2))(x, fft_type, lengths), expected)


def test_lax_fft_type_forms():
  """FftType members and their names in either case, as JAX accepts them."""
  assert [t.name for t in lax.FftType] == [t.name for t in jax.lax.FftType]
  assert [int(t) for t in lax.FftType] == [int(t) for t in jax.lax.FftType]
  x = np.arange(8, dtype=np.float32)
  for form in (lax.FftType.RFFT, "RFFT", "rfft"):
    _same(lax.fft(x, form, (8,)), jax.lax.fft(x, "rfft", (8,)))
  with pytest.raises(ValueError, match="Unknown FFT type 'Rfft'"):
    lax.fft(x, "Rfft", (8,))
  with pytest.raises(TypeError, match="Unknown FFT type value"):
    lax.fft(x, 2, (8,))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.bool_, np.float16, np.float32])
def test_lax_fft_converts_operands_as_jax(dtype):
  x = (np.arange(8) % 3).astype(dtype)
  for fft_type in ("FFT", "IFFT", "IRFFT"):
    _same(lax.fft(x, fft_type, (8,) if fft_type != "IRFFT" else (14,)),
          jax.lax.fft(x, fft_type, (8,) if fft_type != "IRFFT" else (14,)))
  if dtype == np.float16:
    with pytest.raises(ValueError, match="RFFT input must be float32 or float64, got float16"):
      lax.fft(x, "RFFT", (8,))
  else:
    _same(lax.fft(x, "RFFT", (8,)), jax.lax.fft(x, "RFFT", (8,)))


def test_lax_fft_empty_lengths_only_converts():
  x = np.ones((2, 3), np.float32)
  _same(lax.fft(x, "FFT", ()), jax.lax.fft(x, "FFT", ()))


def test_lax_fft_errors():
  with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
    lax.fft(np.ones(4, np.complex64), "RFFT", (4,))
  with pytest.raises(ValueError, match="minor dimensions must be equal to fft_lengths"):
    lax.fft(np.ones(4, np.complex64), "FFT", (5,))
  with pytest.raises(ValueError, match="except the last fft_length"):
    lax.fft(np.ones((3, 4), np.complex64), "IRFFT", (2, 6))
  with pytest.raises(ValueError, match="at least as many input dimensions"):
    lax.fft(np.ones(4, np.complex64), "FFT", (1, 4))
  with pytest.raises(ValueError, match="one to three fft_lengths"):
    lax.fft(np.ones((1, 1, 1, 4), np.complex64), "FFT", (1, 1, 1, 4))


@pytest.mark.parametrize("fft_type", FFT_TYPES)
def test_lax_fft_wide_types(fft_type, jax_x64, rng):
  """complex128 and float64 through device_put, eager evaluation, jit and grad."""
  lengths = (4, 6)
  x = sj.device_put(_input(rng, fft_type, _in_shape(fft_type, (2,), lengths), wide=True))
  assert x.dtype in (np.float64, np.complex128)
  out = lax.fft(x, fft_type, lengths)
  expected = jax.lax.fft(np.asarray(x), fft_type, lengths)
  _same(out, expected)
  _same(sj.jit(lambda v: lax.fft(v, fft_type, lengths))(x), expected)
  loss = lambda lib: lambda v: lib.numpy.sum(lib.numpy.abs(lib.lax.fft(v, fft_type, lengths))
                                             ** 2)
  _same(sj.grad(loss(sj))(x), jax.grad(loss(jax))(np.asarray(x)))


def test_lax_fft_int64_is_complex128(x64):
  assert lax.fft(np.arange(4, dtype=np.int64), "FFT", (4,)).dtype == np.complex128
  assert lax.fft(np.arange(4, dtype=np.int32), "FFT", (4,)).dtype == np.complex64
  assert lax.fft(np.arange(4, dtype=np.int64), "RFFT", (4,)).dtype == np.complex128


@pytest.mark.parametrize("fft_type", FFT_TYPES)
@pytest.mark.parametrize("in_axis", [0, 1, 2, -1])
def test_lax_fft_vmap(fft_type, in_axis, rng):
  """The mapped axis, wherever it is, moves to the front; each example's trailing axes are
  transformed."""
  lengths = (4, 6)
  x = np.moveaxis(_input(rng, fft_type, _in_shape(fft_type, (5, 2), lengths)), 0, in_axis)
  f = lambda lib: lambda v: lib.lax.fft(v, fft_type, lengths)
  test_util.check_vmap(f(sj), [x], [in_axis])
  _same(sj.vmap(f(sj), in_axes=in_axis)(x), jax.vmap(f(jax), in_axes=in_axis)(x))


def _real_loss(lib, fft_type, lengths, weights):
  """A real-valued loss through one FFT: a weighted sum of the real and imaginary parts."""
  def loss(v):
    out = lib.lax.fft(v, fft_type, lengths)
    return (lib.numpy.sum(lib.numpy.real(out) * weights)
            + lib.numpy.sum(lib.numpy.imag(out) * weights[::-1]))
  return loss


@pytest.mark.parametrize("fft_type", FFT_TYPES)
@pytest.mark.parametrize("lengths", [(8,), (7,), (4, 6), (2, 3, 5)])
def test_lax_fft_grad_matches_jax(fft_type, lengths, rng):
  x = _input(rng, fft_type, _in_shape(fft_type, (2,), lengths))
  out_shape = jax.eval_shape(lambda v: jax.lax.fft(v, fft_type, lengths), x).shape
  weights = rng.standard_normal(out_shape).astype(np.float32)
  g = sj.grad(_real_loss(sj, fft_type, lengths, weights))(x)
  _same(g, jax.grad(_real_loss(jax, fft_type, lengths, weights))(x))
  _same(sj.jit(sj.grad(_real_loss(sj, fft_type, lengths, weights)))(x), g)


@pytest.mark.parametrize("fft_type", FFT_TYPES)
@pytest.mark.parametrize("lengths", [(6,), (5,), (3, 4)])
def test_lax_fft_check_grads(fft_type, lengths, x64, rng):
  """Forward and reverse mode against finite differences (order 2: the rules of the rules)."""
  x = _input(rng, fft_type, _in_shape(fft_type, (2,), lengths), wide=True)
  test_util.check_grads(lambda v: lax.fft(v, fft_type, lengths), (x,), order=2,
                        modes=("fwd", "rev"))


def test_lax_fft_transpose_of_vmap(rng):
  """grad of a vmapped FFT (the batching rule, then the transpose of the batched primitive)."""
  x = _input(rng, "RFFT", (3, 8))
  loss = lambda lib: lambda v: lib.numpy.sum(lib.numpy.abs(lib.vmap(
      lambda r: lib.lax.fft(r, "RFFT", (8,)))(v)) ** 2)
  _same(sj.grad(loss(sj))(x), jax.grad(loss(jax))(x))


# ----------------------------------------------------------------------------------------------
# Lowering

@pytest.mark.parametrize("fft_type,shape,lengths", [
    ("FFT", (2, 8), (8,)), ("IFFT", (4, 6), (4, 6)), ("RFFT", (3, 4, 5), (3, 4, 5)),
    ("IRFFT", (3, 4), (3, 6))])
def test_lowering_is_stablehlo_fft_as_jax(fft_type, shape, lengths):
  x = np.zeros(shape, np.complex64 if fft_type != "RFFT" else np.float32)
  ours = sj.jit(lambda v: lax.fft(v, fft_type, lengths)).lower(x).as_text()
  theirs = jax.jit(lambda v: jax.lax.fft(v, fft_type, lengths)).lower(x).as_text()
  fft_ops = lambda text: [line.strip() for line in text.splitlines() if "stablehlo.fft" in line]
  assert fft_ops(ours) == fft_ops(theirs)
  assert f"type = {fft_type}, length = {list(lengths)}" in fft_ops(ours)[0]


def test_lowering_irfft_on_gpu_is_split_as_jax():
  """For cuda, a multi-dimensional IRFFT is an IFFT of the outer axes and a 1-D IRFFT."""
  x = np.zeros((2, 3, 4), np.complex64)
  text = sj.jit(lambda v: lax.fft(v, "IRFFT", (3, 6))).lower(x, platform="cuda").as_text()
  ops = [line.split("=", 1)[1].split()[0] for line in text.splitlines()
         if line.strip().startswith("%") and "stablehlo." in line]
  assert ops == ["stablehlo.transpose", "stablehlo.fft", "stablehlo.transpose", "stablehlo.fft"]
  assert "type = IFFT, length = [3]" in text and "type = IRFFT, length = [6]" in text
  cpu = sj.jit(lambda v: lax.fft(v, "IRFFT", (3, 6))).lower(x).as_text()
  assert cpu.count("stablehlo.fft") == 1


def test_jnp_fft_jaxpr_as_jax(jax_text):
  """jnp.fft.fft stages a call of the jitted lax.fft (convert, then fft), as JAX does."""
  x = np.ones((2, 8), np.float32)
  assert str(sj.make_jaxpr(jnp.fft.fft)(x)) == jax_text(jax.make_jaxpr(jjnp.fft.fft)(x))
  assert str(sj.make_jaxpr(jnp.fft.irfft)(x.astype(np.complex64))) == jax_text(
      jax.make_jaxpr(jjnp.fft.irfft)(x.astype(np.complex64)))


# ----------------------------------------------------------------------------------------------
# jnp.fft: one-dimensional transforms

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
NORMS = [None, "backward", "ortho", "forward"]
# (shape, n, axis, norm): 1-, 2- and 3-D, padded and cropped, every axis, every norm.
ONE_D_CASES = [((8,), None, -1, None), ((8,), 5, -1, "ortho"), ((8,), 12, -1, "forward"),
               ((3, 7), None, 0, "backward"), ((3, 7), 4, -2, "forward"),
               ((2, 5, 6), 9, 1, "ortho"), ((2, 5, 6), None, -1, None)]


def _one_d_input(rng, name, shape):
  real = name in ("rfft", "ihfft")
  return test_util.rand(rng, shape, np.float32 if real else np.complex64)


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("shape,n,axis,norm", ONE_D_CASES)
def test_one_d_matches_numpy_and_jax(name, shape, n, axis, norm, rng):
  x = _one_d_input(rng, name, shape)
  out = getattr(jnp.fft, name)(x, n=n, axis=axis, norm=norm)
  _same(out, getattr(jjnp.fft, name)(x, n=n, axis=axis, norm=norm))
  expected = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
  _same(out, expected.astype(np.asarray(out).dtype), wide=False)


@pytest.mark.parametrize("name", ONE_D)
def test_one_d_under_jit_and_vmap(name, rng):
  x = _one_d_input(rng, name, (3, 4, 6))
  fn = lambda lib: lambda v: getattr(lib.numpy.fft, name)(v, n=5, axis=0, norm="ortho")
  expected = fn(jax)(x)
  _same(sj.jit(fn(sj))(x), expected)
  _same(sj.vmap(fn(sj), in_axes=2)(x), jax.vmap(fn(jax), in_axes=2)(x))
  _same(sj.vmap(sj.vmap(fn(sj)), in_axes=(1,))(x), jax.vmap(jax.vmap(fn(jax)), in_axes=(1,))(x))


@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft"])
@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float32])
def test_one_d_promotes_real_and_integer_input(name, dtype):
  x = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
  _same(getattr(jnp.fft, name)(x), getattr(jjnp.fft, name)(x))


def test_one_d_rejects_several_axes():
  with pytest.raises(ValueError, match="does not support multiple axes"):
    jnp.fft.fft(np.ones((2, 2), np.float32), axis=(0, 1))


# ----------------------------------------------------------------------------------------------
# jnp.fft: two- and n-dimensional transforms

N_D = ["fftn", "ifftn", "rfftn", "irfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2"]
# (shape, s, axes, norm): padded and cropped, permuted and negative axes; four and five axes
# (more than the three one `stablehlo.fft` takes).
N_D_CASES = [((4, 6), None, None, None), ((4, 6), (3, 8), None, "ortho"),
             ((2, 3, 4), None, (0, 2), "forward"), ((2, 3, 4), (5, 2), (-1, 0), "backward"),
             ((2, 3, 4), (3, 4), None, "forward"), ((3, 4, 5), None, (2, 0, 1), "ortho"),
             ((2, 3, 4, 5), None, None, "ortho"), ((2, 2, 3, 2, 4), (2, 3, 2, 2, 6), None, None)]
TWO_D_CASES = [((4, 6), None, (-2, -1), None), ((2, 4, 6), (3, 5), (-2, -1), "ortho"),
               ((3, 4, 5), None, (0, 2), "forward"), ((3, 4, 5), (6, 2), (2, 0), "backward")]


def _numpy_axes(s, axes):
  """`axes` as numpy 2 wants them given with `s`: the last len(s) when None."""
  return tuple(range(-len(s), 0)) if axes is None and s is not None else axes


def _n_d_input(rng, name, shape):
  real = name.startswith("rfft")
  return test_util.rand(rng, shape, np.float32 if real else np.complex64)


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("shape,s,axes,norm", N_D_CASES)
def test_n_d_matches_numpy_and_jax(name, shape, s, axes, norm, rng):
  x = _n_d_input(rng, name, shape)
  out = getattr(jnp.fft, name)(x, s=s, axes=axes, norm=norm)
  _same(out, getattr(jjnp.fft, name)(x, s=s, axes=axes, norm=norm))
  expected = getattr(np.fft, name)(x, s=s, axes=_numpy_axes(s, axes), norm=norm)
  _same(out, expected.astype(np.asarray(out).dtype), wide=False)


@pytest.mark.parametrize("name", TWO_D)
@pytest.mark.parametrize("shape,s,axes,norm", TWO_D_CASES)
def test_two_d_matches_numpy_and_jax(name, shape, s, axes, norm, rng):
  x = _n_d_input(rng, name, shape)
  out = getattr(jnp.fft, name)(x, s=s, axes=axes, norm=norm)
  _same(out, getattr(jjnp.fft, name)(x, s=s, axes=axes, norm=norm))
  _same(out, getattr(np.fft, name)(x, s=s, axes=axes, norm=norm).astype(np.asarray(out).dtype),
        wide=False)


@pytest.mark.parametrize("name", ONE_D + N_D + TWO_D)
def test_every_norm(name, rng):
  x = (_one_d_input if name in ONE_D else _n_d_input)(rng, name, (3, 4))
  for norm in NORMS:
    _same(getattr(jnp.fft, name)(x, norm=norm), getattr(jjnp.fft, name)(x, norm=norm))


@pytest.mark.parametrize("name", N_D + TWO_D)
def test_n_d_under_jit_and_vmap(name, rng):
  x = _n_d_input(rng, name, (3, 4, 6))
  fn = lambda lib: lambda v: getattr(lib.numpy.fft, name)(v, s=(3, 4), axes=(-1, 0),
                                                          norm="forward")
  _same(sj.jit(fn(sj))(x), fn(jax)(x))
  _same(sj.vmap(fn(sj), in_axes=1)(x), jax.vmap(fn(jax), in_axes=1)(x))


@pytest.mark.parametrize("name", ["fftn", "rfftn", "irfftn"])
def test_n_d_wide(name, jax_x64, rng):
  x = test_util.rand(rng, (3, 4, 5), np.float64 if name == "rfftn" else np.complex128)
  out = getattr(jnp.fft, name)(x, norm="ortho")
  assert out.dtype == getattr(jjnp.fft, name)(x).dtype
  _same(out, getattr(np.fft, name)(x, norm="ortho"))


def test_n_d_errors():
  x = np.ones((2, 3), np.complex64)
  with pytest.raises(ValueError, match="Invalid norm value"):
    jnp.fft.fftn(x, norm="bogus")
  with pytest.raises(ValueError, match="repeated axis"):
    jnp.fft.fftn(x, axes=(0, 0))
  with pytest.raises(ValueError, match="repeated axis"):
    jnp.fft.fftn(x, axes=(1, -1))
  with pytest.raises(ValueError, match="different lengths"):
    jnp.fft.fftn(x, s=(2,), axes=(0, 1))
  with pytest.raises(ValueError, match="should be positive"):
    jnp.fft.fftn(x, s=(0, 2))
  with pytest.raises(ValueError, match="only supports 2 axes"):
    jnp.fft.fft2(x, axes=(0,))
  with pytest.raises(TypeError, match="requires ndarray or scalar"):
    jnp.fft.fftn([1.0, 2.0])


# ----------------------------------------------------------------------------------------------
# jnp.fft: derivatives

GRAD_CASES = [("fft", dict(n=6)), ("ifft", dict(norm="ortho")), ("rfft", dict(n=7)),
              ("irfft", dict(n=10)), ("hfft", dict()), ("ihfft", dict(norm="forward")),
              ("fft2", dict(s=(3, 5))), ("rfft2", dict()), ("irfft2", dict(s=(4, 7))),
              ("fftn", dict(axes=(0, 2))), ("rfftn", dict(s=(2, 3, 4))),
              ("irfftn", dict(axes=(-1, 0))), ("ifftn", dict(norm="forward"))]


def _grad_loss(lib, name, kwargs):
  def loss(v):
    out = getattr(lib.numpy.fft, name)(v, **kwargs)
    weights = lib.numpy.cos(lib.numpy.arange(out.size, dtype=lib.numpy.float32)).reshape(
        out.shape)
    return lib.numpy.sum(lib.numpy.real(out * weights)) + lib.numpy.sum(
        lib.numpy.imag(out) ** 2)
  return loss


REAL_ONLY = ("rfft", "rfft2", "rfftn", "ihfft")


@pytest.mark.slow
@pytest.mark.parametrize("name,kwargs,real_input", [
    (name, kwargs, real) for name, kwargs in GRAD_CASES
    for real in ((True,) if name in REAL_ONLY else (True, False))], ids=str)
def test_grad_matches_jax(name, kwargs, real_input, rng):
  """grad of a real loss, with real (promoted) and complex inputs."""
  x = test_util.rand(rng, (3, 4, 6), np.float32 if real_input else np.complex64)
  _same(sj.grad(_grad_loss(sj, name, kwargs))(x), jax.grad(_grad_loss(jax, name, kwargs))(x))


@pytest.mark.parametrize("name,kwargs", GRAD_CASES, ids=lambda c: str(c))
def test_grad_finite_differences(name, kwargs, x64, rng):
  real_input = name in REAL_ONLY
  x = test_util.rand(rng, (3, 4, 6), np.float64 if real_input else np.complex128)
  test_util.check_grads(lambda v: getattr(jnp.fft, name)(v, **kwargs), (x,), order=1)


# ----------------------------------------------------------------------------------------------
# Frequencies and shifts

@pytest.mark.parametrize("n", [1, 6, 7])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
def test_fftfreq_rfftfreq(n, d):
  for name in ("fftfreq", "rfftfreq"):
    out = getattr(jnp.fft, name)(n, d)
    _same(out, getattr(jjnp.fft, name)(n, d))
    _same(out, getattr(np.fft, name)(n, d).astype(np.float32), wide=False)
    _same(sj.jit(lambda: getattr(jnp.fft, name)(n, d))(), out)


@pytest.mark.slow
def test_fftfreq_dtypes(jax_x64):
  for dtype in (None, np.float32, np.float64):
    for name in ("fftfreq", "rfftfreq"):
      _same(getattr(jnp.fft, name)(5, 0.5, dtype=dtype),
            getattr(jjnp.fft, name)(5, 0.5, dtype=dtype))
  with pytest.raises(ValueError, match="only takes an int"):
    jnp.fft.fftfreq([4])
  with pytest.raises(ValueError, match="only takes a single value"):
    jnp.fft.rfftfreq(4, d=[1.0])


@pytest.mark.parametrize("shape,axes", [((7,), None), ((4, 5), None), ((4, 5), 0),
                                        ((3, 4, 5), (0, 2)), ((3, 4, 5), -1), ((3, 4, 5), (-1,))])
def test_fftshift_ifftshift(shape, axes, rng):
  x = test_util.rand(rng, shape, np.float32)
  for name in ("fftshift", "ifftshift"):
    out = getattr(jnp.fft, name)(x, axes=axes)
    _same(out, getattr(np.fft, name)(x, axes=axes))
    _same(out, getattr(jjnp.fft, name)(x, axes=axes))
    _same(sj.jit(lambda v: getattr(jnp.fft, name)(v, axes=axes))(x), out)
  np.testing.assert_array_equal(jnp.fft.ifftshift(jnp.fft.fftshift(x, axes), axes), x)


def test_round_trips(rng):
  x = test_util.rand(rng, (3, 8, 5), np.float32)
  _same(jnp.fft.irfftn(jnp.fft.rfftn(x), s=x.shape), x)
  _same(jnp.real(jnp.fft.ifft2(jnp.fft.fft2(x))), x)
  _same(jnp.fft.hfft(jnp.fft.ihfft(x), n=5), x)


def test_fft_is_the_submodule():
  assert jnp.fft is jnp_fft
  assert sorted(jnp_fft.__all__) == sorted(
      n for n in dir(jjnp.fft) if not n.startswith("_") and callable(getattr(jjnp.fft, n)))
