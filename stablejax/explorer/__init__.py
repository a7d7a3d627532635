"""The explorer (`sj.explore`, `stablejax explore`): one self-contained HTML page showing a
function's source beside its jaxpr, StableHLO (before and after passes) and XLA's optimized
HLO, linked line by line, with per-line stats, the pass timeline and any stage's error. The
model of the page is built by `model.build_model`; the page is rendered by `page.render`."""
from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from stablejax.explorer import page
from stablejax.explorer.model import build_model

__all__ = ["build_model", "explore"]


def explore(f: Callable, *args: Any, path: str | os.PathLike | None = None,
            platform: str | None = None, passes: Sequence[str] | None = None,
            **kwargs: Any) -> str:
  """The explorer's HTML page of `f(*args, **kwargs)` (written to `path` if given); `kwargs`
  also take `build_model`'s `x64` and `static_argnums`."""
  html = page.render(build_model(f, *args, platform=platform, passes=passes, **kwargs))
  if path is not None:  # (opened only once the page is whole: no half-written page)
    with open(path, "w", encoding="utf-8") as file:
      file.write(html)
  return html
