"""`install_as_jax()` and `python -m stablejax run`: under the hook `import jax` and
`import jax.<module>` give stablejax's modules, real JAX is never loaded, and what stablejax
lacks is an ImportError or AttributeError naming `jax.<name>`. Each case runs in a fresh
interpreter (the hook changes what `import jax` means for the whole process)."""
import subprocess
import sys
import textwrap

import pytest


def _run(code: str, *args: str, via_cli: bool = False, tmp_path=None) -> str:
  code = textwrap.dedent(code)
  if via_cli:
    script = tmp_path / "script.py"
    script.write_text(code)
    cmd = [sys.executable, "-m", "stablejax", "run", str(script), *args]
  else:
    cmd = [sys.executable, "-c", "import stablejax; stablejax.install_as_jax()\n" + code, *args]
  out = subprocess.run(cmd, capture_output=True, text=True)
  assert out.returncode == 0, out.stderr
  return out.stdout


def test_jax_modules_are_stablejax_modules_and_real_jax_never_loads():
  out = _run("""
      import sys
      import jax, jax.numpy as jnp, jax.scipy.special
      from jax import lax, random
      import stablejax
      assert jnp is stablejax.numpy and lax is stablejax.lax and jax.jit is stablejax.jit
      import jax.version
      # jax and jax.version report the JAX release whose API stablejax follows
      assert jax.__version__ == jax.version.__version__ == stablejax.version.jax_api_version
      assert jax.__version_info__ == tuple(map(int, jax.__version__.split(".")))
      assert jax.scipy.special is stablejax.scipy.special and random is stablejax.random
      print(jax.jit(lambda x: jnp.sin(x) * 2)(1.0))
      real = [n for n, m in sys.modules.items()
              if "site-packages/jax/" in (getattr(m, "__file__", None) or "")]
      print("real jax modules:", real)
  """)
  assert "1.6829419" in out and "real jax modules: []" in out


def test_what_stablejax_lacks_is_an_error_naming_the_jax_name():
  out = _run("""
      import jax, jax.numpy
      try:
        jax.numpy.not_a_function
      except AttributeError as e:
        print("attr:", e)
      try:
        import jax.not_a_module
      except ImportError as e:
        print("module:", type(e).__name__, e)
      print("hasattr:", hasattr(jax, "not_a_name"), hasattr(jax, "jit"))
      from jax import scipy
      try:
        scipy.not_a_name
      except AttributeError as e:
        print("from-imported:", e)
  """)
  assert "attr: jax.numpy.not_a_function: stablejax does not have it" in out
  assert "module: ModuleNotFoundError No module named 'jax.not_a_module': stablejax does not" in out
  assert "hasattr: False True" in out
  assert "from-imported: jax.scipy.not_a_name: stablejax does not have it" in out


def test_from_importing_a_missing_submodule_names_it():
  out = _run("""
      import jax
      try:
        from jax.experimental import not_a_module
      except ImportError as e:
        print("from:", type(e).__name__, e)
      print("probe:", hasattr(jax.experimental, "not_a_module"))
      from jax.experimental import hijax
      print("found:", hijax.Zero is __import__("stablejax").interpreters.ad.Zero)
  """)
  assert ("from: ModuleNotFoundError No module named 'jax.experimental.not_a_module': stablejax "
          "does not have it") in out
  assert "probe: False" in out and "found: True" in out


def test_install_refuses_once_real_jax_is_imported():
  pytest.importorskip("jax")
  code = ("import jax, stablejax\n"
          "try:\n  stablejax.install_as_jax()\n"
          "except ImportError as e:\n  print('refused:', e)\n")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
  assert "refused: install_as_jax: real JAX is already imported (jax" in out.stdout, out.stderr


def test_uninstall_restores_the_modules():
  out = _run("""
      import jax, stablejax
      from stablejax import jax_alias
      print("versions:", jax.__version__, jax.version.__version_info__)
      jax_alias.uninstall()
      print("own:", stablejax.__version__ == stablejax.version.__version__ != "0.10.2")
      try:
        stablejax.not_a_name
      except AttributeError as e:
        print("after:", e)
      print("installed:", jax_alias.is_installed())
  """)
  assert "after: module 'stablejax' has no attribute 'not_a_name'" in out
  assert "installed: False" in out
  # libraries choose their code paths by JAX's version: the hook gives the one stablejax follows
  assert "versions: 0.10.2 (0, 10, 2)" in out and "own: True" in out


def test_run_command_runs_a_jax_script_with_its_arguments(tmp_path):
  out = _run("""
      import sys
      import jax
      import jax.numpy as jnp
      print(sys.argv[1:], jax.grad(lambda x: jnp.sum(x ** 2))(jnp.arange(3.)))
  """, "--lr", "0.1", via_cli=True, tmp_path=tmp_path)
  assert "['--lr', '0.1'] [0. 2. 4.]" in out


def test_run_command_names_a_missing_script(tmp_path):
  out = subprocess.run([sys.executable, "-m", "stablejax", "run", str(tmp_path / "nope.py")],
                       capture_output=True, text=True)
  assert out.returncode != 0 and "stablejax run: no such file" in out.stderr
