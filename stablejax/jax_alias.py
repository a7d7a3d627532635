"""`install_as_jax()`: an import hook under which `import jax` and every `import jax.<module>`
give stablejax's module of the same name (`jax.numpy` is `stablejax.numpy`), so libraries
written against JAX run on stablejax. Real JAX is then never loaded in the process. `jax` and
`jax.version` themselves are thin overlays of `stablejax` and `stablejax.version` that report
the JAX version whose API stablejax follows.

JAX's private modules (`jax._src.<module>`), which some libraries import, are answered from the
separate package `stablejax_compat` (folder `compat/`): nothing in stablejax imports it. A module
or a name stablejax lacks is an ImportError or AttributeError that names `jax.<name>`."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from stablejax import version

__all__ = ["install_as_jax", "is_installed", "uninstall"]

COMPAT_PACKAGE = "stablejax_compat"
# stablejax module -> the module holding the names of the JAX module of the same name that it
# cannot define itself, sitting below them in the pipeline (`jax.core.eval_jaxpr` needs the
# jaxpr IR, which is built on stablejax.core); a name missing from the first is looked up there.
FALLBACKS = {"stablejax.core": "stablejax.legacy_core"}


def target_name(fullname: str) -> str:
  """The stablejax module answering the JAX module `fullname` (`jax` or `jax.<...>`)."""
  if fullname == "jax._src" or fullname.startswith("jax._src."):
    return COMPAT_PACKAGE + fullname[len("jax._src"):]
  return "stablejax" + fullname[len("jax"):]


def jax_name(module_name: str) -> str:
  """The JAX name of stablejax's module `module_name` (the inverse of `target_name`)."""
  if module_name == COMPAT_PACKAGE or module_name.startswith(COMPAT_PACKAGE + "."):
    return "jax._src" + module_name[len(COMPAT_PACKAGE):]
  return "jax" + module_name[len("stablejax"):]


class _MissingName(AttributeError):
  """A name of a JAX module that stablejax's module of the same name does not have."""


def _refusing_getattr(module: types.ModuleType, jax_name: str):
  """A module `__getattr__` that names the JAX attribute asked for, keeping the module's own."""
  own = module.__dict__.get("__getattr__")
  fallback = FALLBACKS.get(module.__name__)

  def __getattr__(name: str):
    if own is not None:
      return own(name)
    if name.startswith("__") and name.endswith("__"):
      raise AttributeError(name)  # dunder probes (copy, pickle, doctest) expect a plain miss
    if fallback is not None:
      names = importlib.import_module(fallback)
      if name in names.__all__:
        return getattr(names, name)
    if hasattr(module, "__path__"):
      # `from jax.<pkg> import <sub>` asks here first; imported by its `jax` name, the submodule
      # goes through the hook (Python's fallback imports it by the stablejax name, undecorated).
      try:
        return importlib.import_module(f"{jax_name}.{name}")
      except ModuleNotFoundError as e:
        if e.name != f"{jax_name}.{name}" or _from_import(sys._getframe(1)):
          raise  # (in `from jax.<pkg> import <name>`, the import error naming `jax.<pkg>.<name>`)
    raise _MissingName(f"{jax_name}.{name}: stablejax does not have it (module "
                       f"{module.__name__!r} has no attribute {name!r})")
  return __getattr__


def _from_import(frame: types.FrameType | None) -> bool:
  """Whether `frame` is the import system asking a package for the names of a `from <package>
  import <names>`: Python turns a missing one into its own ImportError, naming the stablejax
  package, unless the package's `__getattr__` raises an ImportError itself."""
  return (frame is not None and frame.f_code.co_name == "_handle_fromlist"
          and frame.f_code.co_filename.startswith("<frozen importlib"))


class _Overlay(types.ModuleType):
  """A JAX module that is a stablejax module but for a few attributes of its own: `jax` and
  `jax.version` report JAX's version (`version.jax_api_version`), which libraries gate on."""

  def __init__(self, name: str, base: types.ModuleType, **own: object):
    super().__init__(name, base.__doc__)
    self.__dict__.update(own)
    for attr in ("__path__", "__file__"):
      if hasattr(base, attr):
        setattr(self, attr, getattr(base, attr))
    self._base = base

  def __getattr__(self, name: str) -> object:
    if f"{self.__name__}.{name}" in OVERLAYS:  # (`jax.version` without importing it)
      return importlib.import_module(f"{self.__name__}.{name}")
    return getattr(self.__dict__["_base"], name)

  def __dir__(self) -> list[str]:
    return sorted(set(dir(self.__dict__["_base"])) | set(self.__dict__))


def _jax_version_attrs() -> dict[str, object]:
  return {"__version__": version.jax_api_version,
          "__version_info__": version.jax_api_version_info}


# the JAX modules answered by an overlay, with its own attributes
OVERLAYS = {"jax": _jax_version_attrs, "jax.version": _jax_version_attrs}


class _AliasLoader(importlib.abc.Loader):
  """Loads the JAX module name as the stablejax module already imported."""

  def __init__(self, module: types.ModuleType):
    self.module = module

  def create_module(self, spec):
    return self.module

  def exec_module(self, module):
    pass


class _JaxAliasFinder(importlib.abc.MetaPathFinder):
  """The meta-path finder for `jax` and `jax.*`."""

  def find_spec(self, fullname: str, path, target=None):
    if fullname != "jax" and not fullname.startswith("jax."):
      return None
    name = target_name(fullname)
    try:
      module = importlib.import_module(name)
    except ModuleNotFoundError as e:
      if e.name is not None and name.startswith(e.name):
        raise ModuleNotFoundError(f"No module named {fullname!r}: stablejax does not have it "
                                  f"(no module {name!r})", name=fullname) from None
      raise
    _decorate_loaded(name)
    if fullname in OVERLAYS:
      module = _Overlay(fullname, module, **OVERLAYS[fullname]())
    return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module),
                                          is_package=hasattr(module, "__path__"))


def _decorate_loaded(name: str) -> None:
  """Give the module `name` and its loaded submodules the refusing `__getattr__`: a submodule
  reached as an attribute (`from jax import scipy`) never passes through the finder."""
  for sub, module in list(sys.modules.items()):
    if (sub == name or sub.startswith(name + ".")) and module is not None \
        and module not in _decorated:
      _decorated[module] = module.__dict__.get("__getattr__")
      module.__getattr__ = _refusing_getattr(module, jax_name(sub))


_finder = _JaxAliasFinder()
_decorated: dict[types.ModuleType, object] = {}  # module -> its own __getattr__ (or None)


def install_as_jax() -> None:
  """From now on, `import jax` (and `jax.<module>`) gives stablejax (and its module).

  Raises ImportError if real JAX is already imported in this process: its modules and arrays
  cannot be swapped out."""
  if is_installed():
    return
  loaded = sorted(n for n, m in sys.modules.items()
                  if (n == "jax" or n.startswith("jax.")) and m is not None
                  and not getattr(m, "__name__", "").startswith(("stablejax", COMPAT_PACKAGE)))
  if loaded:
    raise ImportError(f"install_as_jax: real JAX is already imported ({', '.join(loaded[:3])}"
                      f"{', ...' if len(loaded) > 3 else ''}); call it before anything imports "
                      "jax")
  sys.meta_path.insert(0, _finder)
  for name in FALLBACKS:  # also reached as attributes (`from jax import core`), not imported
    importlib.import_module(name)
    _decorate_loaded(name)


def is_installed() -> bool:
  """Whether `install_as_jax()` is in effect."""
  return _finder in sys.meta_path


def uninstall() -> None:
  """Remove the hook and forget the `jax` modules it gave (the stablejax modules stay, as they
  were)."""
  if _finder in sys.meta_path:
    sys.meta_path.remove(_finder)
  for module, own in _decorated.items():
    if own is None:
      del module.__getattr__
    else:
      module.__getattr__ = own
  _decorated.clear()
  for name in [n for n in sys.modules if n == "jax" or n.startswith("jax.")]:
    del sys.modules[name]
