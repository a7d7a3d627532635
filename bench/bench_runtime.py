"""Per-call time of a cached execute: stablejax's runtime vs `jax.jit(lambda x: x + 1)`."""
import timeit

import numpy as np

from stablejax import runtime
from stablejax.runtime import pjrt

MODULE = """module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
    %c = stablehlo.constant dense<1.0> : tensor<3xf32>
    %0 = stablehlo.add %arg0, %c : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}"""


def per_call_us(fn, *args, number: int = 100_000, repeat: int = 7) -> float:
  """Best-of-`repeat` microseconds per call of `fn(*args)`."""
  fn(*args)
  return min(timeit.repeat(lambda: fn(*args), number=number, repeat=repeat)) / number * 1e6


def main() -> None:
  x = np.arange(3, dtype=np.float32)
  exe = runtime.compile_module(MODULE)
  xs = runtime.device_put(x)
  ours = per_call_us(exe, xs)
  print(f"stablejax Executable(*arrays): {ours:6.2f} us/call")
  raw = pjrt.compile(MODULE, exe.device).exe.execute_sharded  # jaxlib's own call, for scale
  print(f"  (raw execute_sharded:        {per_call_us(raw, [xs._buf]):6.2f} us/call)")
  try:
    import jax
  except ImportError:
    print("jax not installed: no comparison")
    return
  f = jax.jit(lambda v: v + 1)
  xj = jax.device_put(x)
  theirs = per_call_us(f, xj)
  print(f"jax.jit(lambda x: x + 1)(x):   {theirs:6.2f} us/call")
  print(f"ratio stablejax / jax:         {ours / theirs:6.2f}x")


if __name__ == "__main__":
  main()
