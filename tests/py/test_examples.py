"""The programs in examples/ run and print what they promise."""
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples")


def run_example(name: str) -> str:
  proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], capture_output=True,
                        text=True, timeout=300)
  assert proc.returncode == 0, proc.stderr
  return proc.stdout


def test_mlp_example_loss_falls():
  losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", run_example("mlp.py"))]
  assert len(losses) >= 3 and losses[-1] < losses[0]


def test_custom_primitive_example():
  out = run_example("custom_primitive.py")
  assert "eager: 14.0" in out and "jit: 14.0" in out and "grad w.r.t. a: 4.0" in out
  assert "vmap: [10. 11. 14.]" in out
  assert "c:f32[] = multiply_add a a b" in out
  cpu, cuda = out.split("lowered for cpu:")[1].split("lowered for cuda:")
  assert "stablehlo.multiply" in cpu and "stablehlo.divide" not in cpu
  assert "stablehlo.divide" in cuda  # the platform override, lowered without a GPU


def printed_losses(out: str, name: str) -> list:
  return [float(v) for v in re.search(name + r" losses: (.*)", out).group(1).split()]


def test_data_parallel_example_matches_single_device():
  out = run_example("data_parallel.py")
  single = printed_losses(out, "single-device")
  # A sharded batch sums in another order: equal to float32 rounding, not always to 6 digits.
  np.testing.assert_allclose(printed_losses(out, "data-parallel"), single, rtol=1e-5)
  assert len(single) == 10
  assert "tensor-parallel losses:" in out and "losses match the single-device run" in out
  assert "devices: 8" in out and "8 shards of shape (8, 8)" in out


# flax_lowering.py runs Flax through install_as_jax: flax, optax and the jax modules it imports
FLAX_NEEDS = ("flax", "optax", "stablejax.extend", "stablejax.experimental.layout")


def test_flax_lowering_example_prints_stablehlo_with_locations():
  missing = [name for name in FLAX_NEEDS if importlib.util.find_spec(name) is None]
  if missing:
    pytest.skip(f"flax_lowering.py needs {', '.join(missing)}")
  out = run_example("flax_lowering.py")
  assert "func.func public @main(" in out and "stablehlo.dot_general" in out
  assert 'loc("jit(train_step)/transpose(jvp(Block))/SelfAttention_0/' in out
  assert 'flax_lowering.py":34:20 to :26)' in out  # the loss's `y ** 2`
