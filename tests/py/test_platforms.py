"""One platform table for the runtime, the lowering registry, `lower(platform=)` and the CLI."""
import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, lowering, platforms, runtime
from stablejax.lowering import hlo


def test_names_are_case_insensitive_and_gpu_means_cuda():
  assert [platforms.canonical(p) for p in ("CPU", "Cuda", "gpu", "ROCm", "tpu")] == [
      "cpu", "cuda", "cuda", "rocm", "tpu"]
  assert platforms.covered("GPU") == ("cuda", "rocm")
  with pytest.raises(ValueError, match="unknown platform 'metal'; known platforms: cpu, cuda, "
                                       "rocm, tpu"):
    platforms.canonical("metal")


@pytest.mark.parametrize("platform", ["cpu", "CUDA", "gpu", "rocm", "tpu"])
def test_every_platform_can_be_lowered_for_without_its_device(platform):
  text = sj.jit(jnp.sin).lower(np.ones(3, np.float32), platform=platform).as_text()
  assert "stablehlo.sine" in text


def test_a_rule_for_each_platform_is_reached_by_lower():
  p = core.Primitive("platform_probe")
  p.def_abstract_eval(lambda x: x)
  lowering.register_lowering(p, lambda ctx, x: [hlo.negate(x)])
  lowering.register_lowering(p, lambda ctx, x: [hlo.exponential(x)], platform="gpu")
  lowering.register_lowering(p, lambda ctx, x: [hlo.sine(x)], platform="tpu")
  x = np.ones(2, np.float32)
  ops = {plat: sj.jit(p.bind).lower(x, platform=plat).as_text()
         for plat in ("cpu", "cuda", "rocm", "tpu")}
  assert "stablehlo.negate" in ops["cpu"]
  assert "stablehlo.exponential" in ops["cuda"] and "stablehlo.exponential" in ops["rocm"]
  assert "stablehlo.sine" in ops["tpu"]


def test_compiling_for_an_absent_platform_names_the_present_ones():
  if "tpu" in runtime.available_platforms():
    pytest.skip("a TPU is present")
  lowered = sj.jit(jnp.sin).lower(np.ones(3, np.float32), platform="tpu")
  with pytest.raises(RuntimeError, match=r"platform 'tpu' is not available here.*available "
                                         r"platforms: \[.*'cpu'"):
    lowered.compile()


def test_the_cli_takes_the_same_names(capsys, tmp_path):
  from stablejax.__main__ import main
  src = tmp_path / "f.py"
  src.write_text("import stablejax.numpy as jnp\ndef f(x):\n  return jnp.cos(x)\n")
  main(["lower", f"{src}::f", "--arg", "f32[2]", "--platform", "ROCM"])
  assert "stablehlo.cosine" in capsys.readouterr().out
  with pytest.raises(SystemExit):
    main(["lower", f"{src}::f", "--arg", "f32[2]", "--platform", "metal"])
  assert "unknown platform 'metal'" in capsys.readouterr().err
