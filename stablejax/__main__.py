"""The command line: `python -m stablejax` runs the demo; `stablejax lower FILE::FUNC --arg
f32[8,4] --stage jaxpr|stablehlo|compiled` prints one stage of any function; `stablejax run
SCRIPT [args...]` runs a script written against JAX on stablejax (`install_as_jax`)."""
from __future__ import annotations

import argparse
import importlib.util
import re
import runpy
import sys
from typing import Callable, Sequence

import numpy as np

import stablejax as sj
from stablejax import demo, jax_alias, platforms

_TYPE = re.compile(r"^([a-z]+[0-9]*)\[([0-9,\s]*)\]$")
_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
           "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u32": "uint32",
           "bool": "bool", "c64": "complex64"}


def parse_type(spec: str):
  """`f32[8,4]` -> a ShapeDtypeStruct-like zero array of that type."""
  m = _TYPE.match(spec.strip())
  if not m or m.group(1) not in _DTYPES:
    raise argparse.ArgumentTypeError(
        f"bad --arg type {spec!r}: expected e.g. f32[8,4], i32[], bool[3] "
        f"(dtypes: {', '.join(_DTYPES)})")
  shape = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
  return np.zeros(shape, _DTYPES[m.group(1)])


def load_function(target: str) -> Callable:
  """`path/to/file.py::func` -> the function."""
  path, sep, name = target.partition("::")
  if not sep or not name:
    raise SystemExit(f"stablejax lower: expected FILE::FUNC, got {target!r}")
  spec = importlib.util.spec_from_file_location("_stablejax_cli_target", path)
  if spec is None:
    raise SystemExit(f"stablejax lower: cannot load {path!r}")
  module = importlib.util.module_from_spec(spec)
  try:
    spec.loader.exec_module(module)
  except FileNotFoundError:
    raise SystemExit(f"stablejax lower: no such file {path!r}") from None
  fn = getattr(module, name, None)
  if not callable(fn):
    raise SystemExit(f"stablejax lower: {path!r} has no function {name!r}")
  return fn


def _platform(name: str) -> str:
  try:
    return platforms.canonical(name)
  except ValueError as e:
    raise argparse.ArgumentTypeError(str(e)) from None


def lower_command(args: argparse.Namespace) -> None:
  fn = load_function(args.target)
  if args.stage == "jaxpr":
    print(sj.make_jaxpr(fn)(*args.arg))
    return
  lowered = sj.jit(fn).lower(*args.arg, platform=args.platform)
  if args.stage == "stablehlo":
    print(lowered.as_text(debug_info=args.debug_info))
  else:
    print(lowered.compile().as_text())


def run_command(args: argparse.Namespace) -> None:
  """Run SCRIPT as `__main__` with `import jax` giving stablejax."""
  jax_alias.install_as_jax()
  sys.argv = [args.script, *args.script_args]
  try:
    runpy.run_path(args.script, run_name="__main__")
  except FileNotFoundError as e:
    if e.filename != args.script:
      raise
    raise SystemExit(f"stablejax run: no such file {args.script!r}") from None


def main(argv: Sequence[str] | None = None) -> None:
  parser = argparse.ArgumentParser(prog="stablejax", description=__doc__)
  sub = parser.add_subparsers(dest="command")
  lower = sub.add_parser("lower", help="print the jaxpr, StableHLO or compiled HLO of FILE::FUNC")
  lower.add_argument("target", help="path/to/file.py::function")
  lower.add_argument("--arg", type=parse_type, action="append", default=[],
                     help="an argument type such as f32[8,4] (repeat per argument)")
  lower.add_argument("--stage", choices=["jaxpr", "stablehlo", "compiled"], default="stablehlo")
  lower.add_argument("--platform", default=None, type=_platform,
                     help=f"{', '.join(platforms.PLATFORMS)} or gpu (default: the default "
                     "device's platform)")
  lower.add_argument("--debug-info", action="store_true", help="source locations in the MLIR")
  run = sub.add_parser("run", help="run SCRIPT with `import jax` giving stablejax")
  run.add_argument("script", help="path/to/script.py")
  run.add_argument("script_args", nargs=argparse.REMAINDER, help="the script's arguments")
  args = parser.parse_args(argv)
  if args.command == "lower":
    lower_command(args)
  elif args.command == "run":
    run_command(args)
  else:
    demo.main()


if __name__ == "__main__":
  main(sys.argv[1:])
