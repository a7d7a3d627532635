"""Host arguments (numpy arrays, Python and numpy scalars) through the dispatch fast paths
(`runtime/arguments.py`): jit's repeated calls and eager operations give JAX's values, dtypes
and weak types, and the errors of the first call, on every call."""
import concurrent.futures

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax.runtime import Array, arguments


def _same(ours, theirs):
  assert type(ours) is Array
  assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
  assert ours.weak_type == theirs.weak_type
  np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)


ARGS = [
    (np.arange(8, dtype=np.float32),),
    (np.arange(8, dtype=np.float64),),  # canonicalized to float32 (x64 off)
    (np.arange(6, dtype=np.int32).reshape(2, 3),),
    (np.float32(1.5),),
    (np.array(2.5, np.float32),),
    (0.25,), (3,), (True,), (1 + 2j,),
]


@pytest.mark.parametrize("args", ARGS, ids=lambda a: f"{type(a[0]).__name__}")
def test_jit_host_argument_repeated_as_jax(args):
  f, g = sj.jit(lambda x: x * 2), jax.jit(lambda x: x * 2)
  for _ in range(3):  # the first call, then the fast path
    _same(f(*args), g(*args))


def test_jit_python_scalar_values_change():
  f, g = sj.jit(lambda x, lr: x * lr), jax.jit(lambda x, lr: x * lr)
  x = np.arange(4, dtype=np.float32)
  xs, xj = sj.device_put(x), jax.device_put(x)
  for lr in [0.5, 0.5, 0.0, -0.0, 2.0, float("nan"), float("inf"), *map(float, range(40))]:
    _same(f(xs, lr), g(xj, lr))
    assert np.signbit(np.asarray(f(xs, lr))[1]) == np.signbit(np.asarray(g(xj, lr))[1])


def test_jit_weak_scalar_keeps_array_dtype():
  x = np.ones(3, jnp.bfloat16)
  f, g = sj.jit(lambda x, s: x * s), jax.jit(lambda x, s: x * s)
  for _ in range(2):
    _same(f(x, 3.0), g(x, 3.0))
    _same(f(x, 3), g(x, 3))


def test_jit_python_int_overflow_on_every_call():
  f = sj.jit(lambda x: x + 1)
  f(5)
  f(7)  # the fast path
  with pytest.raises(OverflowError):
    f(2**40)


def test_jit_mutated_numpy_argument_is_copied():
  x = np.zeros(1024, np.float32)
  f = sj.jit(lambda a: a + 0)
  f(x)
  y = f(x)
  x[:] = 7
  assert float(np.asarray(y).max()) == 0.0


def test_jit_host_signature_changes():
  f, g = sj.jit(lambda x, y: x + y), jax.jit(lambda x, y: x + y)
  a32, a64 = np.ones(3, np.float32), np.ones(3, np.int32)
  calls = [(a32, 1.0), (a32, 1), (a64, 1), (sj.device_put(a32), 2.0), (a32, np.float32(2)),
           (a32.reshape(3, 1), 1.0), (a32, 1.0)]
  for x, y in calls:
    _same(f(x, y), g(np.asarray(x), y))


def test_jit_unused_host_argument_pruned():
  f = sj.jit(lambda x, unused: x * 2.0)
  for _ in range(2):
    out = f(np.ones(2, np.float32), np.ones(5, np.float32))
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])


def test_jit_host_argument_transfer_guard():
  f = sj.jit(lambda x, lr: x * lr)
  x = sj.device_put(np.ones(3, np.float32))
  f(x, 0.5)
  f(x, 0.5)  # the scalar's buffer is kept
  with sj.transfer_guard("disallow"):
    with pytest.raises(Exception, match="Disallowed host-to-device transfer"):
      f(x, 0.5)
    with pytest.raises(Exception, match="Disallowed host-to-device transfer"):
      f(np.ones(3, np.float32), 0.5)


def test_jit_donated_host_scalar_not_reused():
  f = sj.jit(lambda x, s: x + s, donate_argnums=1)
  x = sj.device_put(np.ones((), np.float32))
  for _ in range(3):
    np.testing.assert_array_equal(np.asarray(f(x, 2.0)), 3.0)


def test_jit_x64_switch_with_host_arguments():
  f = sj.jit(lambda x, s: x * s)
  x = np.arange(3, dtype=np.float64)
  assert f(x, 2.0).dtype == np.float32
  with sj.enable_x64(True):
    assert f(x, 2.0).dtype == np.float64
    assert f(x, 2.0).dtype == np.float64
  assert f(x, 2.0).dtype == np.float32


@pytest.mark.parametrize("op", [lambda x, y: x + y, lambda x, y: x * y, lambda x, y: y - x],
                         ids=["add", "mul", "rsub"])
@pytest.mark.parametrize("other", [np.arange(8, dtype=np.float32) + 1, 2.0, 3, np.float32(4),
                                   np.arange(8, dtype=np.float64), np.arange(8, dtype=np.int32),
                                   np.ones((2, 8), np.float32)],
                         ids=["f32", "float", "int", "npf32", "f64", "i32", "2d"])
def test_eager_with_host_operand_as_jax(op, other):
  xs = sj.device_put(np.arange(8, dtype=np.float32))
  xj = jax.device_put(np.arange(8, dtype=np.float32))
  for _ in range(3):
    _same(op(xs, other), op(xj, other))


def test_eager_bfloat16_array_times_scalar():
  xs = sj.device_put(np.ones(4, jnp.bfloat16))
  xj = jax.device_put(np.ones(4, jjnp.bfloat16))
  for s in (2.0, 2.0, 0.5, -0.0):
    _same(xs * s, xj * s)


def test_eager_primitive_on_host_values_alone():
  for _ in range(2):
    _same(jnp.sin(np.arange(4, dtype=np.float32)), jjnp.sin(np.arange(4, dtype=np.float32)))
    _same(sj.lax.add(np.float32(1), np.float32(2)), jax.lax.add(np.float32(1), np.float32(2)))


def _packed_case(api, np_):
  def f(a, b, c, d, s, e, g, h, unused, i):
    return [a * 2, np_.where(b, c, 0), d.astype(np_.float32) + s, e * 1, g + 1, h.sum(), i]
  return api.jit(f)


@pytest.fixture
def unstaged(monkeypatch):
  """No numpy argument staged (as on a device whose memory is not the host's): packed."""
  monkeypatch.setattr(arguments, "_STAGED_BYTES", -1)


def test_jit_numpy_arguments_packed_into_one_transfer(unstaged):
  """Called again, a signature with several numpy arrays packs them (bools, ints of each
  width, float16, float64 canonicalized, 0-d, empty, non-contiguous; beside a device array,
  a scalar and an unused argument)."""
  rng = np.random.default_rng(0)
  host = [rng.standard_normal((3, 4)).astype(np.float32), rng.random(5) > 0.5,
          np.arange(5, dtype=np.int8), np.arange(6, dtype=np.int16).reshape(2, 3), 0.5,
          rng.standard_normal(3).astype(np.float16), np.arange(4, dtype=np.float64),
          np.arange(12, dtype=np.int32).reshape(3, 4).T, np.ones(3, np.float32),
          np.array(7, np.uint32)]
  empty = np.zeros((0, 2), np.float32)
  f, g = _packed_case(sj, jnp), _packed_case(jax, jjnp)
  for call in range(4):
    args = list(host)
    if call == 3:
      args[0] = args[0] + 1  # new values, the same signature
    for ours, theirs in zip(f(*args), g(*args)):
      _same(ours, theirs)
  assert f._hit is not None and f._hit.signature.packed is not None
  f2 = sj.jit(lambda a, b: (a, b))
  for _ in range(3):
    a, b = f2(empty, np.ones(2, np.float32))
    assert a.shape == (0, 2) and np.asarray(b).tolist() == [1.0, 1.0]


def test_jit_packed_signature_falls_back_on_change(unstaged):
  f = sj.jit(lambda a, b: a + b)
  x, y = np.ones(3, np.float32), np.full(3, 2.0, np.float32)
  for _ in range(3):
    np.testing.assert_array_equal(np.asarray(f(x, y)), [3.0] * 3)
  assert f._hit.signature.packed is not None
  np.testing.assert_array_equal(np.asarray(f(x, sj.device_put(y))), [3.0] * 3)
  np.testing.assert_array_equal(np.asarray(f(x.astype(np.int32), y.astype(np.int32))), [3] * 3)


def _staged_case(np_, api):
  def f(a, b, c, d, e, s):
    return a * 2, b | True, c.astype(np_.float32) + s, d + 1, e.sum()
  return api.jit(f)


def test_jit_staged_numpy_arguments_as_jax():
  """On the CPU, small numpy arguments are copied into host memory a device buffer aliases:
  each call's values (float64 canonicalized, bools, ints, non-contiguous, 0-d; large ones put
  as before), and earlier results are not changed by later calls."""
  rng = np.random.default_rng(1)
  f, g = _staged_case(jnp, sj), _staged_case(jjnp, jax)
  results = []
  for call in range(5):
    args = (rng.standard_normal((3, 4)), rng.random(5) > 0.5,
            np.arange(12, dtype=np.int32).reshape(3, 4).T * call, np.array(call, np.uint8),
            rng.standard_normal(300_000).astype(np.float32), 0.5 * call)
    results.append((f(*args), g(*args)))
  assert f._hit.signature.staged and len(f._hit.signature.staging[0].arrays) == 4
  for ours, theirs in results:
    for a, b in zip(ours, theirs):
      _same(a, b)


def test_jit_staged_identity_results_independent():
  f = sj.jit(lambda x: x)
  x = np.zeros(4, np.float32)
  outs = []
  for k in range(4):
    x[:] = k
    outs.append(f(x))
  assert [float(np.asarray(o)[0]) for o in outs] == [0.0, 1.0, 2.0, 3.0]


def test_jit_staged_after_result_deleted():
  f = sj.jit(lambda x: x * 2)
  for k in range(4):
    out = f(np.full(3, k, np.float32))
    np.testing.assert_array_equal(np.asarray(out), [2 * k] * 3)
    out.delete()


def test_jit_staged_calls_from_threads():
  f = sj.jit(lambda x: x * 3)
  f(np.ones(16, np.float32))

  def work(k):
    return [np.asarray(f(np.full(16, k + i, np.float32)))[0] == 3 * (k + i) for i in range(200)]
  with concurrent.futures.ThreadPoolExecutor(4) as pool:
    assert all(all(ok) for ok in pool.map(work, range(4)))


def test_jit_donated_numpy_argument_not_staged():
  f = sj.jit(lambda x: x + 1, donate_argnums=0)
  for k in range(3):
    np.testing.assert_array_equal(np.asarray(f(np.full(3, k, np.float32))), [k + 1] * 3)
  assert not f._hit.signature.staged


def test_eager_staged_operand_as_jax():
  x, xj = sj.device_put(np.ones(8, np.float32)), jax.device_put(np.ones(8, np.float32))
  outs = [(x + np.full(8, k, np.float32), xj + np.full(8, k, np.float32)) for k in range(4)]
  for ours, theirs in outs:
    _same(ours, theirs)


def test_jit_staged_calls_in_flight_use_sets_in_turn():
  """Calls dispatched before the last ones finished get their own staging arrays (up to a few),
  then plain transfers; every result is its own call's."""
  f = sj.jit(lambda x: jnp.tanh(x @ x.T).sum(0))
  xs = [np.full((64, 64), k / 100, np.float32) for k in range(12)]
  outs = [f(x) for x in xs]  # no waiting between calls
  for x, out in zip(xs, outs):
    np.testing.assert_allclose(np.asarray(out), np.tanh(x @ x.T).sum(0), rtol=1e-5)
  assert 1 <= len(f._hit.signature.staging) <= arguments._STAGING_SETS


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float8_e4m3fn, jnp.int4, jnp.uint2,
                                   np.bool_, np.complex64])
def test_jit_staged_narrow_dtypes_as_jax(dtype):
  """bfloat16 and float8 are staged; int4 and narrower, which their buffers pack, are put."""
  f, g = sj.jit(lambda x: x), jax.jit(lambda x: x)
  for k in range(3):
    x = (np.arange(10) % (k + 2)).astype(dtype)
    np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(g(x)))
  staging = f._hit.signature.staging
  assert bool(staging) == (np.dtype(dtype).itemsize * 8 == sj.dtypes.itemsize_bits(dtype))


def test_jit_staged_memory_is_the_buffers():
  """The staging arrays view memory jaxlib owns, not numpy: a buffer over numpy's memory is
  freed through numpy, which Python 3.13 aborts on when jaxlib does it on a worker thread
  during shutdown."""
  f = sj.jit(lambda x: x + 1)
  f(np.ones(4, np.float32))
  ((_, host, buf),) = f._hit.signature.staging[0].arrays
  assert host.ctypes.data == buf.unsafe_buffer_pointer()
  owner = host
  while isinstance(owner, np.ndarray):  # (views of views)
    owner = owner.base
  assert owner is not None  # (None: the memory is a numpy array's own)
