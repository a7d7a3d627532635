"""Call a C++ kernel from stablejax through XLA's typed FFI: build it (build.sh), load it with
ctypes, register its handler symbol, and call it with `sj.ffi.ffi_call` eagerly, under `jit` and
under `vmap`.

Run it: `bash examples/ffi_kernel/build.sh && python examples/ffi_kernel/main.py`."""
import ctypes
import pathlib

import numpy as np

import stablejax as sj
import stablejax.numpy as jnp

LIBRARY = pathlib.Path(__file__).with_name("librms_norm.so")

# 1. Load the library and register its handler under a target name (on the CPU).
if not LIBRARY.exists():
  raise SystemExit(f"{LIBRARY.name} is not built yet: run `bash {LIBRARY.parent}/build.sh` first")
lib = ctypes.cdll.LoadLibrary(str(LIBRARY))
sj.ffi.register_ffi_target("rms_norm", sj.ffi.pycapsule(lib.RmsNorm), platform="cpu")


# 2. A function calling it: the result has x's shape and dtype; `eps` is passed as an attribute
#    (a numpy float32, since the handler decodes a float; a Python float would be an f64).
#    The kernel treats leading dimensions as a batch, so vmap can hand it the whole batch at once.
def rms_norm(x, eps=1e-5):
  call = sj.ffi.ffi_call("rms_norm", sj.ShapeDtypeStruct(x.shape, x.dtype),
                         vmap_method="broadcast_all")
  return call(x, eps=np.float32(eps))


def rms_norm_reference(x, eps=1e-5):
  return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


if __name__ == "__main__":
  x = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
  print("eager:\n", rms_norm(x))
  print("jit:\n", sj.jit(rms_norm)(x))
  print("vmap over rows:\n", sj.vmap(rms_norm)(x))
  print("reference:\n", rms_norm_reference(x))
  print("lowered:\n" + sj.jit(rms_norm).lower(x).as_text())
