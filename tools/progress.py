"""Progress of long work (the fuzz campaign, `bench/run.py`): done of total, the rate and an
estimate of the time left, on one line."""
from __future__ import annotations

import sys
import time
from typing import TextIO


def _duration(seconds: float) -> str:
  seconds = int(round(seconds))
  if seconds < 60:
    return f"{seconds} s"
  minutes, seconds = divmod(seconds, 60)
  return f"{minutes} min {seconds:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


class Progress:
  """`total` items of work (`unit`: what they are) started now; `update(done)` writes
  `done/total (pct), rate/s, elapsed, ETA` to `out` (stderr: a table on stdout stays clean),
  rewriting one line on a terminal."""

  def __init__(self, total: int, unit: str, out: TextIO | None = None):
    self.total, self.unit = total, unit
    self.out = out or sys.stderr
    self.start = time.perf_counter()
    self.tty = self.out.isatty()

  def line(self, done: int, note: str = "") -> str:
    elapsed = time.perf_counter() - self.start
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = (self.total - done) / rate if rate > 0 else float("nan")
    pct = 100.0 * done / self.total if self.total else 100.0
    eta_text = _duration(eta) if eta == eta else "?"
    return (f"{done}/{self.total} {self.unit} ({pct:.0f}%), {rate:.2f} {self.unit}/s, "
            f"{_duration(elapsed)} elapsed, ETA {eta_text}{', ' + note if note else ''}")

  def update(self, done: int, note: str = "") -> None:
    text = self.line(done, note)
    if self.tty:
      end = "\n" if done >= self.total else ""
      self.out.write(f"\r\033[K{text}{end}")
    else:
      self.out.write(text + "\n")
    self.out.flush()
