"""The command line. `python -m stablejax` runs the demo;
`stablejax lower FILE::FUNC --arg f32[8,4] [--static N=3] [--x64] [--platform cpu ...]
[--passes P1,P2] [--stage jaxpr|stablehlo|hlo|optimized-hlo]` prints one stage of any function;
`stablejax explore FILE::FUNC --arg f32[8,4] ... -o page.html` writes the explorer's page of it;
`stablejax opt FILE.mlir --passes P1,P2` runs passes on a module file; `stablejax run
FILE.mlir --arg f32[3]=1,2,3` compiles and runs a module file and prints its results;
`stablejax run SCRIPT.py [args...]` runs a script written against JAX on stablejax
(`install_as_jax`). An error prints one short message with the user's line (`--traceback`: the
whole traceback)."""
from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib.util
import inspect
import os
import re
import runpy
import sys
import traceback
from typing import Any, Callable, Sequence

import numpy as np
from jaxlib.mlir import ir

import stablejax as sj
from stablejax import demo, explorer, jax_alias, lowering, platforms, runtime
from stablejax.lowering.module import verify_module
from stablejax.passes import mlir as mlir_passes, registry as pass_registry

_TYPE = re.compile(r"^([a-z]+[0-9]*)\[([0-9,\s]*)\](?:=(.*))?$", re.S)
_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
           "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16",
           "u32": "uint32", "u64": "uint64", "bool": "bool", "c64": "complex64",
           "c128": "complex128"}
_SHORT = {np.dtype(name): short for short, name in _DTYPES.items()}
_WIDE = {"f64", "i64", "u64", "c128"}  # what needs --x64 (as JAX computes in 32 bits without)


@dataclasses.dataclass(frozen=True)
class ArgSpec:
  """One `--arg`: `f32[8,4]`, or with values `f32[3]=1,2,3` (one value fills the shape)."""
  spec: str
  dtype: str
  shape: tuple[int, ...]
  values: tuple[Any, ...] | None

  def array(self) -> np.ndarray:
    dtype = np.dtype(_DTYPES[self.dtype])
    if self.values is None:
      return np.zeros(self.shape, dtype)
    if len(self.values) == 1:
      return np.full(self.shape, self.values[0], dtype)
    size = int(np.prod(self.shape))
    if len(self.values) != size:
      raise SystemExit(f"stablejax: --arg {self.spec}: {len(self.values)} values for a "
                       f"{self.dtype}{list(self.shape)} of {size} elements")
    return np.array(self.values, dtype).reshape(self.shape)


def parse_type(spec: str) -> ArgSpec:
  """`f32[8,4]` or `f32[3]=1,2,3` -> its ArgSpec."""
  m = _TYPE.match(spec.strip())
  if not m or m.group(1) not in _DTYPES:
    raise argparse.ArgumentTypeError(
        f"bad --arg type {spec!r}: expected e.g. f32[8,4], i32[], bool[3], f32[3]=1,2,3 "
        f"(dtypes: {', '.join(_DTYPES)})")
  shape = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
  values = None
  if m.group(3) is not None:
    try:
      values = tuple(ast.literal_eval(v.strip()) for v in m.group(3).split(","))
    except (ValueError, SyntaxError):
      raise argparse.ArgumentTypeError(
          f"bad --arg values in {spec!r}: expected numbers such as f32[3]=1,2.5,-3") from None
  return ArgSpec(spec, m.group(1), shape, values)


def type_str(x: Any) -> str:
  """`f32[3,2]`: the form `--arg` takes."""
  return f"{_SHORT.get(np.dtype(x.dtype), np.dtype(x.dtype).name)}[{','.join(map(str, x.shape))}]"


def parse_static(item: str) -> tuple[str, Any]:
  """`NAME=VALUE` -> (name, the Python literal VALUE, else the string)."""
  name, sep, value = item.partition("=")
  if not sep or not name.isidentifier():
    raise argparse.ArgumentTypeError(f"bad --static {item!r}: expected NAME=VALUE, e.g. n=3")
  try:
    return name, ast.literal_eval(value)
  except (ValueError, SyntaxError):
    return name, value


def split_passes(text: str) -> list[str]:
  """`P1,P2` split at the commas outside parentheses (`func.func(cse,canonicalize)` is one)."""
  items, depth, start = [], 0, 0
  for i, c in enumerate(text):
    depth += (c == "(") - (c == ")")
    if c == "," and depth == 0:
      items.append(text[start:i])
      start = i + 1
  items.append(text[start:])
  return [item.strip() for item in items if item.strip()]


def _platform(name: str) -> str:
  try:
    return platforms.canonical(name)
  except ValueError as e:
    raise argparse.ArgumentTypeError(str(e)) from None


def load_function(target: str, command: str = "lower") -> Callable:
  """`path/to/file.py::func` -> the function (errors name `stablejax COMMAND`)."""
  path, sep, name = target.partition("::")
  if not sep or not name:
    raise SystemExit(f"stablejax {command}: expected FILE::FUNC, got {target!r}")
  spec = importlib.util.spec_from_file_location("_stablejax_cli_target", path)
  if spec is None:
    raise SystemExit(f"stablejax {command}: cannot load {path!r}")
  module = importlib.util.module_from_spec(spec)
  try:
    spec.loader.exec_module(module)
  except FileNotFoundError as e:
    if e.filename != path:
      raise
    raise SystemExit(f"stablejax {command}: no such file {path!r}") from None
  fn = getattr(module, name, None)
  if not callable(fn):
    raise SystemExit(f"stablejax {command}: {path!r} has no function {name!r}")
  return fn


def bind_statics(fn: Callable, statics: dict[str, Any], command: str = "lower") -> Callable:
  """`fn` with the parameters in `statics` fixed: a function of its other parameters, in order
  (their names kept for the module's debug info; `__wrapped__` is `fn`, for its source)."""
  if not statics:
    return fn
  signature = inspect.signature(fn)
  unknown = sorted(set(statics) - set(signature.parameters))
  if unknown:
    raise SystemExit(f"stablejax {command}: --static {', '.join(unknown)}: {fn.__name__} has no "
                     f"such parameter (its parameters: {', '.join(signature.parameters)})")
  rest = [p for name, p in signature.parameters.items() if name not in statics]

  def bound(*args):
    return fn(**statics, **{p.name: x for p, x in zip(rest, args)})
  bound.__name__, bound.__qualname__ = fn.__name__, fn.__qualname__
  bound.__signature__ = signature.replace(parameters=rest)
  bound.__wrapped__ = fn
  return bound


def target_function(args: argparse.Namespace) -> tuple[Callable, list[np.ndarray]]:
  """The function of `args.target` with its `--static`s bound, and the `--arg` arrays."""
  fn = bind_statics(load_function(args.target, args.command), dict(args.static), args.command)
  return fn, [spec.array() for spec in args.arg]


def check_widths(parser: argparse.ArgumentParser, specs: Sequence[ArgSpec], x64: bool) -> None:
  """Refuse 64-bit `--arg`s without `--x64` (they would be computed in 32 bits)."""
  wide = [s.spec for s in specs if s.dtype in _WIDE]
  if wide and not x64:
    parser.error(f"--arg {', '.join(wide)}: 64-bit types need --x64 (without it stablejax, "
                 "as JAX, computes in 32 bits)")
  if x64:
    sj.config.update("enable_x64", True)


def lower_command(args: argparse.Namespace) -> None:
  fn, arrays = target_function(args)
  passes = None if args.passes is None else split_passes(args.passes)
  if args.stage == "jaxpr":
    print(sj.make_jaxpr(fn)(*arrays))
    return
  many = args.platform is not None and len(args.platform) > 1
  lowered = sj.jit(fn).lower(*arrays, passes=passes,
                             platform=None if many or not args.platform else args.platform[0],
                             platforms=args.platform if many else None)
  if args.stage in ("stablehlo", "hlo"):
    print(lowered.as_text(args.stage, debug_info=args.debug_info))
  else:
    print(lowered.compile().as_text())


def explore_command(args: argparse.Namespace) -> None:
  """Write the explorer's page of the function (rendered whole before the file is written)."""
  fn, arrays = target_function(args)
  passes = None if args.passes is None else split_passes(args.passes)
  explorer.explore(fn, *arrays, path=args.output, platform=args.platform, passes=passes)
  print(f"stablejax explore: wrote {args.output}")


def read_module(path: str) -> ir.Module:
  """The module in MLIR file `path` (text or bytecode), verified."""
  try:
    with open(path, "rb") as f:
      data = f.read()
  except FileNotFoundError:
    raise SystemExit(f"stablejax: no such file {path!r}") from None
  with lowering.make_ir_context():
    try:
      module = ir.Module.parse(data)
    except ir.MLIRError as e:
      raise SystemExit(f"stablejax: {path} does not parse as MLIR: {e}") from None
  verify_module(module)
  return module


def opt_command(args: argparse.Namespace) -> None:
  """Run the passes on the module file and print the result. Each pass is a registered MLIR
  pass of `stablejax.passes` (`mlir-canonicalize`) or an MLIR pass pipeline (`canonicalize`,
  `func.func(cse)`)."""
  module = read_module(args.module)
  registered = pass_registry.registered("mlir")
  for item in split_passes(args.passes):
    if item in registered:
      module = pass_registry.run_mlir(module, [item])
      continue
    try:
      mlir_passes.parse(item, module.context, registered)
    except ValueError:
      if item in pass_registry.registered("jaxpr"):
        raise SystemExit(f"stablejax opt: {item!r} is a jaxpr pass; opt runs MLIR passes (the "
                         f"registered ones: {', '.join(registered)}, or any MLIR pass "
                         "pipeline)") from None
      raise
    module = mlir_passes.run_pipeline(module, item, registered)
  print(lowering.module_text(module, debug_info=args.debug_info))


def run_module_command(path: str, argv: Sequence[str]) -> None:
  """Compile the module file `path` and run it on the `--arg`s in `argv`; print its results."""
  parser = argparse.ArgumentParser(prog=f"stablejax run {path}")
  parser.add_argument("--arg", type=parse_type, action="append", default=[],
                      help="an argument with its values, such as f32[3]=1,2,3 (one value fills "
                      "the shape; none: zeros); repeat per argument")
  parser.add_argument("--x64", action="store_true", help="allow 64-bit argument types")
  parser.add_argument("--platform", type=_platform, default=None,
                      help="the platform to run on (default: the default device's)")
  args = parser.parse_args(argv)
  check_widths(parser, args.arg, args.x64)
  module = read_module(path)
  device = runtime.devices(args.platform)[0] if args.platform else None
  exe = runtime.compile_module(lowering.module_text(module, debug_info=True), device)
  arrays = [spec.array() for spec in args.arg]
  got = [sj.ShapeDtypeStruct.like(x) for x in arrays]
  want = [sj.ShapeDtypeStruct(a.shape, a.dtype) for a in exe.in_avals]
  if [(g.shape, g.dtype) for g in got] != [(w.shape, w.dtype) for w in want]:
    show = lambda types: ", ".join(type_str(t) for t in types) or "none"
    raise SystemExit(f"stablejax run: {path}'s @main takes ({show(want)}); the --args give "
                     f"({show(got)})")
  for i, out in enumerate(exe(*arrays)):
    value = np.asarray(out)
    print(f"result[{i}]: {type_str(value)} = {np.array2string(value, separator=', ')}")


def run_command(args: argparse.Namespace) -> None:
  """Run SCRIPT as `__main__` with `import jax` giving stablejax; a `.mlir` file is a module
  to compile and run instead."""
  if args.script.endswith((".mlir", ".mlirbc")):
    run_module_command(args.script, args.script_args)
    return
  jax_alias.install_as_jax()
  sys.argv = [args.script, *args.script_args]
  try:
    runpy.run_path(args.script, run_name="__main__")
  except FileNotFoundError as e:
    if e.filename != args.script:
      raise
    raise SystemExit(f"stablejax run: no such file {args.script!r}") from None


# ----------------------------------------------------------------------------------------------
# Errors: the message and the user's line

# stablejax's packages and Python's standard library (runpy, importlib)
_LIBRARY = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                 for m in (sj, lowering, mlir_passes, os))


def user_frame(tb: Any) -> traceback.FrameSummary | None:
  """The innermost frame of the traceback in the user's code (not stablejax's, Python's or a
  library's)."""
  frames = [f for f in traceback.extract_tb(tb)
            if not os.path.abspath(f.filename).startswith(_LIBRARY)
            and "site-packages" not in f.filename and not f.filename.startswith("<frozen")]
  return frames[-1] if frames else None


def short_error(command: str, e: BaseException) -> str:
  """`stablejax COMMAND: Type: message`, the exception's notes, and where in the user's code."""
  lines = [f"stablejax {command}: {type(e).__name__}: {e}"]
  lines += [f"  {note}" for note in getattr(e, "__notes__", ())]
  frame = user_frame(e.__traceback__)
  if frame is not None:
    lines.append(f"  at {frame.filename}:{frame.lineno} in {frame.name}")
    if frame.line:
      lines.append(f"      {frame.line}")
  lines.append("(--traceback prints the whole traceback)")
  return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
  common = argparse.ArgumentParser(add_help=False)
  common.add_argument("--traceback", action="store_true",
                      help="on an error, print the whole traceback")
  parser = argparse.ArgumentParser(prog="stablejax", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = parser.add_subparsers(dest="command")
  function = argparse.ArgumentParser(add_help=False)  # (what names a function and its arguments)
  function.add_argument("target", help="path/to/file.py::function")
  function.add_argument("--arg", type=parse_type, action="append", default=[],
                        help="an argument type such as f32[8,4] (repeat per argument)")
  function.add_argument("--static", type=parse_static, action="append", default=[],
                        help="a static argument NAME=VALUE (a Python literal; repeat per "
                        "argument)")
  function.add_argument("--x64", action="store_true", help="64-bit types (f64, i64 ...)")
  function.add_argument("--passes", help="comma-separated pass names (stablejax.passes; "
                        "default: the config's)")
  lower = sub.add_parser("lower", parents=[common, function],
                         help="print the jaxpr, StableHLO or HLO of FILE::FUNC")
  lower.add_argument("--stage", default="stablehlo", choices=[
      "jaxpr", "stablehlo", "hlo", "optimized-hlo", "compiled"],
                     help="hlo: XLA's HLO before optimization; optimized-hlo (or compiled): after")
  lower.add_argument("--platform", action="append", type=_platform,
                     help=f"{', '.join(platforms.PLATFORMS)} or gpu (default: the default "
                     "device's); several give one multi-platform module")
  lower.add_argument("--debug-info", nargs="?", const=True, default=False, choices=["inline"],
                     help="source locations in the MLIR; =inline: each on its op's line")
  explore = sub.add_parser("explore", parents=[common, function],
                           help="write the explorer's HTML page of FILE::FUNC: its source "
                           "linked to its jaxpr, StableHLO and XLA's optimized HLO")
  explore.add_argument("--platform", type=_platform,
                       help="the platform to lower and compile for (default: the default "
                       "device's)")
  explore.add_argument("-o", "--output", required=True, help="the page's path, e.g. page.html")
  opt = sub.add_parser("opt", parents=[common], help="run MLIR passes on a module file")
  opt.add_argument("module", help="path/to/module.mlir")
  opt.add_argument("--passes", required=True, help="comma-separated registered MLIR passes or "
                   "MLIR pass pipelines, e.g. mlir-cse,canonicalize")
  opt.add_argument("--debug-info", nargs="?", const=True, default=False, choices=["inline"],
                   help="print the locations too")
  run = sub.add_parser("run", parents=[common], help="run SCRIPT with `import jax` giving "
                       "stablejax, or compile and run a FILE.mlir (--arg f32[3]=1,2,3)")
  run.add_argument("script", help="path/to/script.py or path/to/module.mlir (--traceback goes "
                   "before it)")
  run.add_argument("script_args", nargs=argparse.REMAINDER,
                   help="the script's arguments; for a module, its --arg values")
  return parser


def main(argv: Sequence[str] | None = None) -> None:
  parser = _parser()
  args = parser.parse_args(argv)
  commands = {"lower": lower_command, "explore": explore_command, "opt": opt_command,
              "run": run_command}
  if args.command is None:
    demo.main()
    return
  if args.command in ("lower", "explore"):
    check_widths(parser, args.arg, args.x64)
  try:
    commands[args.command](args)
  except BrokenPipeError:  # (`stablejax lower ... | head`): stop quietly, as a filter does
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(1) from None
  except Exception as e:  # noqa: BLE001  (any error of the user's code: one short message)
    if args.traceback:
      raise
    print(short_error(args.command, e), file=sys.stderr)
    raise SystemExit(1) from None


if __name__ == "__main__":
  main(sys.argv[1:])
