"""Placeholder of the explorer's page (the explpage helper writes the real one): the model as
JSON in a minimal self-contained HTML page."""
from __future__ import annotations

import html
import json
from typing import Any


def render(model: dict[str, Any]) -> str:
  """A self-contained HTML page embedding `model`."""
  data = json.dumps(model).replace("</", "<\\/")
  return ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
          f'{html.escape(model["name"])}</title></head><body>'
          f'<script type="application/json" id="model">{data}</script></body></html>')
