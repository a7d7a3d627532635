"""Smoke test of an installed stablejax (run from outside the source tree by .ci/run): the
package and every subpackage import from site-packages, and jit, grad, cond, scan and the CLI
work. Exits non-zero on the first failure."""
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import lax

SOURCE_TREE = pathlib.Path(__file__).resolve().parents[1]
installed = pathlib.Path(sj.__file__).resolve()
assert SOURCE_TREE not in installed.parents, f"imported from the source tree: {installed}"
print(f"stablejax imported from {installed.parent}")

x = np.arange(4, dtype=np.float32)
np.testing.assert_allclose(sj.jit(lambda v: jnp.sin(v) * 2)(x), np.sin(x) * 2, rtol=1e-6)
np.testing.assert_allclose(sj.grad(lambda v: jnp.sum(v ** 2))(x), 2 * x)
assert float(lax.cond(True, lambda v: v + 1, lambda v: v - 1, 1.0)) == 2.0
carry, ys = lax.scan(lambda c, v: (c + v, c), 0.0, x)
assert float(carry) == 6.0 and np.asarray(ys).tolist() == [0, 0, 1, 3]
assert "stablehlo.sine" in sj.jit(jnp.sin).lower(x).as_text()

with tempfile.TemporaryDirectory() as tmp:
  src = pathlib.Path(tmp, "f.py")
  src.write_text("import stablejax.numpy as jnp\ndef f(x):\n  return jnp.tanh(x).sum()\n")
  cli = pathlib.Path(sys.executable).with_name("stablejax")
  out = subprocess.run([str(cli), "lower", f"{src}::f", "--arg", "f32[3]"], check=True,
                       capture_output=True, text=True, cwd=tmp).stdout
  assert "stablehlo.tanh" in out, out
# The separate package of JAX's private modules, reached through the `jax` hook.
hooked = subprocess.run([sys.executable, "-c", "import stablejax; stablejax.install_as_jax(); "
                         "from jax._src.state.types import AbstractRef; import stablejax_compat; "
                         "print(AbstractRef.__module__, stablejax_compat.__file__)"],
                        check=True, capture_output=True, text=True).stdout
assert hooked.startswith("stablejax.lax.state ") and str(SOURCE_TREE) not in hooked, hooked
print("wheel smoke test passed: jit, grad, cond, scan, lower, CLI, install_as_jax")
