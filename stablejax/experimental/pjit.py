"""jax.experimental.pjit: `pjit`, deprecated in JAX 0.10.2 in favour of `jax.jit` (reading it
warns, as there), is `jit` with the same sharding, static, donation and device arguments."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable, Sequence

from stablejax.jit import Jitted, jit


def _pjit(fun: Callable, in_shardings: Any = None, out_shardings: Any = None,
          static_argnums: int | Sequence[int] | None = None,
          static_argnames: str | Iterable[str] | None = None,
          donate_argnums: int | Sequence[int] | None = None,
          donate_argnames: str | Iterable[str] | None = None, keep_unused: bool = False,
          device: Any = None, backend: str | None = None, inline: bool = False,
          compiler_options: dict[str, Any] | None = None) -> Jitted:
  """`jit(fun, ...)` (JAX's `pjit` resolves PartitionSpecs against the context mesh, as
  stablejax's `jit` does)."""
  return jit(fun, in_shardings=in_shardings, out_shardings=out_shardings,
             static_argnums=static_argnums or (), static_argnames=static_argnames or (),
             donate_argnums=donate_argnums or (), donate_argnames=donate_argnames or (),
             keep_unused=keep_unused, device=device, backend=backend, inline=inline,
             compiler_options=compiler_options)


_pjit.__name__ = _pjit.__qualname__ = "pjit"


def __getattr__(name: str) -> Any:
  if name == "pjit":
    warnings.warn("jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` "
                  "instead.", DeprecationWarning, stacklevel=2)
    return _pjit
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
