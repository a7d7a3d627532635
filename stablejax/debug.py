"""`sj.debug`: `callback`, `print` and `breakpoint`, which run on the host when the program
reaches them, under jit too (the effectful `debug_callback` primitive,
stablejax/lax/callback.py)."""
from __future__ import annotations

import inspect
import sys
from typing import Any, Callable

from stablejax import debugger, lax
from stablejax.callback import pure_callback, to_device
from stablejax.lax.callback import (
    HostCallback, debug_callback_p, debug_effect, ordered_debug_effect)
from stablejax.tree_util import tree_flatten, tree_unflatten


def callback(callback: Callable[..., Any], *args: Any, ordered: bool = False,
             partitioned: bool = False, **kwargs: Any) -> None:
  """Call `callback(*args, **kwargs)` on the host with the values as numpy arrays, eagerly or
  when the compiled program reaches it; its result is ignored. `ordered` callbacks run in
  program order among themselves (other ones may be reordered)."""
  flat, in_tree = tree_flatten((args, kwargs))

  def flat_callback(*xs):
    a, kw = tree_unflatten(in_tree, xs)
    callback(*a, **kw)
    return ()

  name = getattr(callback, "__name__", None) or type(callback).__name__
  debug_callback_p.bind(*flat, callback=HostCallback(flat_callback, (), name),
                        effect=ordered_debug_effect if ordered else debug_effect,
                        partitioned=partitioned)


def print(fmt: str, *args: Any, ordered: bool = False,  # noqa: A001  (JAX's name)
          partitioned: bool = False, **kwargs: Any) -> None:
  """Print `fmt.format(*args, **kwargs)` with the values, eagerly or when the compiled program
  reaches it; `ordered` prints run in program order. Each print is one write, so the lines
  of devices printing at once do not interleave (as JAX's)."""
  callback(lambda *a, **kw: sys.stdout.write(fmt.format(*a, **kw) + "\n"), *args,
           ordered=ordered, partitioned=partitioned, **kwargs)


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token: Any = None,
               **kwargs: Any) -> Any:
  """Enter a pdb-like debugger (`jdb`) when the program reaches this point, eagerly or under
  `jit`, over the calling frames with the values of their variables (`p x`, `pp`, `u`, `d`,
  `l`, `w`, `c`, `q`; `stdin=`/`stdout=` given to it). `backend` picks a debugger: the only
  one is the command line's. With `token` (a pytree of arrays), it runs once they are
  computed and returns them."""
  del backend  # (one debugger, the command line's, as JAX's fallback)
  if token is not None and ordered:
    raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
  frames = debugger.user_frames(inspect.stack()[1:], filter_frames, num_frames)
  traced, rebuild = debugger.split_traced(frames)

  def enter(*values: Any) -> None:
    debugger.run_debugger(rebuild(to_device(list(values))), **kwargs)

  if token is None:
    callback(enter, *traced, ordered=ordered)
    return None

  def enter_after(tok: Any, *values: Any) -> Any:
    enter(*values)
    return tok

  token, traced = lax.stop_gradient((token, traced))
  return pure_callback(enter_after, token, token, *traced)
