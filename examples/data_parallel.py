"""Data- and tensor-parallel training of an MLP on 8 CPU devices (XLA's SPMD partitioner):
the same step as on one device, with the batch sharded over a "data" mesh axis (parameters
replicated), then with the hidden layer's weights split over a "model" axis too. Each prints its
losses next to the single-device run's: they match."""
import os

os.environ.setdefault("STABLEJAX_NUM_CPU_DEVICES", "8")  # before stablejax makes its CPU client

import numpy as np  # noqa: E402

import stablejax as sj  # noqa: E402
import stablejax.numpy as jnp  # noqa: E402
from stablejax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402


def init(rng, sizes=(8, 32, 1)):
  return [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
          for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x):
  for w, b in params[:-1]:
    x = jnp.tanh(x @ w + b)
  w, b = params[-1]
  return x @ w + b


def loss(params, x, y):
  return jnp.mean((predict(params, x) - y) ** 2)


def sgd_step(params, x, y):
  value, grads = sj.value_and_grad(loss)(params, x, y)
  return sj.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), value


def train(step, params, x, y, steps=10):
  losses = []
  for _ in range(steps):
    params, value = step(params, x, y)
    losses.append(float(value))
  return params, losses


def main():
  rng = np.random.default_rng(0)
  x = rng.standard_normal((64, 8)).astype(np.float32)
  y = np.sin(x.sum(1, keepdims=True)).astype(np.float32)
  params = init(rng)
  _, single = train(sj.jit(sgd_step), params, x, y)

  # Data parallel: the batch split over 8 devices, the parameters replicated on each.
  mesh = sj.make_mesh((8,), ("data",))
  batch, replicated = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())
  step = sj.jit(sgd_step, in_shardings=(replicated, batch, batch),
                out_shardings=(replicated, replicated))
  xs, ys = sj.device_put(x, batch), sj.device_put(y, batch)
  trained, data_parallel = train(step, sj.device_put(params, replicated), xs, ys)
  print(f"devices: {sj.device_count()}, batch sharding: {xs.sharding.spec}, "
        f"{len(xs.addressable_shards)} shards of shape {xs.addressable_shards[0].data.shape}")
  print("single-device losses:", " ".join(f"{v:.6f}" for v in single))
  print("data-parallel losses:", " ".join(f"{v:.6f}" for v in data_parallel))
  print("data-parallel parameter sharding:", trained[0][0].sharding.spec)

  # Tensor parallel (with data parallel): a 4 x 2 mesh; the hidden layer's columns (and the
  # next layer's rows) split over "model", the batch over "data".
  mesh = sj.make_mesh((4, 2), ("data", "model"))
  named = lambda *spec: NamedSharding(mesh, P(*spec))  # noqa: E731
  param_shardings = [(named(None, "model"), named("model")), (named("model", None), named())]
  step = sj.jit(sgd_step, in_shardings=(param_shardings, named("data"), named("data")),
                out_shardings=(param_shardings, named()))
  _, tensor_parallel = train(step, params, x, y)
  print("tensor-parallel losses:", " ".join(f"{v:.6f}" for v in tensor_parallel))
  for name, losses in (("data", data_parallel), ("tensor", tensor_parallel)):
    np.testing.assert_allclose(losses, single, rtol=1e-4, atol=1e-6, err_msg=name)
  print("losses match the single-device run")


if __name__ == "__main__":
  main()
