"""The explorer's page (issue 36): one self-contained HTML file showing a function's source beside
its IR views (jaxpr, StableHLO before and after passes, XLA's optimized HLO), linked by source
line as Compiler Explorer's are, with per-line numbers, a pass timeline and the errors.

The page is the template `page.html` with `page.css`, `page.js` and the model (the dict
`stablejax/explorer/model.py` builds) inlined: the script builds the DOM from the embedded JSON
at load, so nothing is loaded from the network."""
from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

REQUIRED_KEYS = ("name", "sources", "views")
_PLACEHOLDER = re.compile(r"@@(TITLE|STYLE|SCRIPT|MODEL)@@")


def _asset(name: str) -> str:
  return (resources.files(__package__) / name).read_text(encoding="utf-8")


def embed_json(model: dict[str, Any]) -> str:
  """`model` as JSON that cannot end its `<script>` element early: `<`, `>` and `&` escaped."""
  try:
    text = json.dumps(model, ensure_ascii=False, allow_nan=False)
  except (TypeError, ValueError) as e:
    raise ValueError(f"render: the explorer model is not JSON-serialisable: {e}") from None
  return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(model: dict[str, Any]) -> str:
  """The explorer page for `model` (the dict of `build_model`), as one HTML string."""
  if not isinstance(model, dict):
    raise TypeError(f"render: expected the explorer model (a dict), got {type(model).__name__}")
  missing = [key for key in REQUIRED_KEYS if key not in model]
  if missing:
    raise ValueError(f"render: the explorer model lacks {', '.join(map(repr, missing))}")
  parts = {"TITLE": html.escape(str(model["name"])), "STYLE": _asset("page.css"),
           "SCRIPT": _asset("page.js"), "MODEL": embed_json(model)}
  # One pass, so that text inserted for one placeholder is never read as another.
  return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], _asset("page.html"))
