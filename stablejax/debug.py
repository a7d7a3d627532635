"""`sj.debug`: `callback` and `print`, which run on the host when the program reaches them,
under jit too (the effectful `debug_callback` primitive, stablejax/lax/callback.py)."""
from __future__ import annotations

import sys
from typing import Any, Callable

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
