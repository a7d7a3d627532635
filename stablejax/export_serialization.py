"""JAX's serialized `Exported`, read and written: the flatbuffer of JAX's
`jax/_src/export/serialization.fbs` (the tables `Exported`, `PyTreeDef`, `AbstractValue`,
`Sharding`, `Effect`, `DisabledSafetyCheck`), with the fields JAX 0.10.2 writes and JAX 0.10.2
to 0.12 read. `jax.export.deserialize` loads what `serialize` writes, and `deserialize` loads
what `jax.export.Exported.serialize` writes, as a `SerializedExported` record that
`stablejax.export` turns into its `Exported`.

Avals' shapes are strings, one per dimension, as JAX writes them (`"4"`, `"b"`, `"2*b"`): symbolic
dimensions are read with `shape_poly.symbolic_shape`, in one scope per artifact. Shardings are
written unspecified and read only where trivial (a module for one device)."""
from __future__ import annotations

import dataclasses
import struct
from typing import Any, Callable, Sequence

import flatbuffers
import ml_dtypes
import numpy as np
from flatbuffers import number_types as fb_types
from flatbuffers.table import Table

from stablejax import core, dtypes
from stablejax.interpreters import ad
from stablejax.shape_poly import SymbolicScope, symbolic_shape
from stablejax.tree_util import LEAF, PyTreeDef

__all__ = ["SerializedExported", "deserialize", "serialize"]

# The version of the schema written (JAX 0.10.2's, 11; 0.12's, 12, adds only the JAX version).
# JAX 0.10.2 to 0.12 read any version from 2 and do not check it.
SERIALIZATION_VERSION = 11

# ----------------------------------------------------------------------------------------------
# The schema: each table's fields, in slot order, with their kinds ("off": a string, table or
# vector of them; "bytes": [ubyte]; "[u16]", "[u32]": vectors of numbers; the rest scalars).

_SCALARS = {"bool": fb_types.BoolFlags, "i8": fb_types.Int8Flags, "i16": fb_types.Int16Flags,
            "u16": fb_types.Uint16Flags, "u32": fb_types.Uint32Flags}
_VECTORS = {"bytes": fb_types.Uint8Flags, "[u16]": fb_types.Uint16Flags,
            "[u32]": fb_types.Uint32Flags}


def _schema(spec: str) -> dict[str, tuple[int, str]]:
  """`"name:kind name:kind ..."` as {name: (slot, kind)}."""
  return {name: (slot, kind) for slot, (name, kind)
          in enumerate(field.split(":") for field in spec.split())}


_PYTREE = _schema("kind:i8 children:off children_names:off custom_name:off custom_auxdata:bytes")
_AVAL = _schema("kind:i8 shape:off dtype:i8 memory_space:i8")
_SHARDING = _schema("kind:i8 hlo_sharding_proto:bytes named_sharding:off")
_EFFECT = _schema("type_name:off")
_CHECK = _schema("kind:i8 custom_call_target:off")
_EXPORTED = _schema(
    "serialization_version:u16 function_name:off in_tree:off in_avals:off out_tree:off "
    "out_avals:off nr_devices_short:i16 in_shardings:off out_shardings:off platforms:off "
    "ordered_effects:off unordered_effects:off disabled_checks:off mlir_module_serialized:bytes "
    "calling_convention_version:u16 module_kept_var_idx:[u16] uses_global_constants:bool "
    "vjp:off nr_devices:u32 unique_avals:off unique_abstract_meshes:off "
    "unique_named_shardings:off in_avals_idxs:[u32] out_avals_idxs:[u32] "
    "in_shardings_idxs:[u32] out_shardings_idxs:[u32]")

# The enums
_LEAF, _NONE, _TUPLE, _LIST, _DICT = range(5)  # (5: a custom node, from JAX's registry)
_SHAPED_ARRAY = 0
_MEMORY_DEVICE = 1
_CHECK_PLATFORM, _CHECK_CUSTOM_CALL = 0, 1
_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128", "bfloat16", "int4",
           "uint4", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
           "float8_e5m2fnuz", "float0", "float8_e4m3", "float8_e3m4", "float8_e8m0fnu",
           "float4_e2m1fn"]
_DTYPE_KIND = {name: kind for kind, name in enumerate(_DTYPES)}


def _dtype_name(dtype: Any) -> str:
  return "float0" if dtype == dtypes.float0 else getattr(dtype, "name", str(dtype))


def _dtype_of(name: str) -> Any:
  """The dtype stablejax gives a value JAX serialized with dtype `name`: float0 (the cotangents
  of integers, in VJPs) is read as bool, the type its values have in the module."""
  return np.dtype(bool) if name == "float0" else np.dtype(getattr(ml_dtypes, name, name))


@dataclasses.dataclass(frozen=True)
class SerializedExported:
  """The fields of a serialized Exported that stablejax uses; `disabled_checks` are strings as
  `DisabledSafetyCheck` prints them ("platform", "custom_call:<target>")."""
  fun_name: str
  in_tree: PyTreeDef
  in_avals: tuple[core.ShapedArray, ...]
  out_tree: PyTreeDef
  out_avals: tuple[core.ShapedArray, ...]
  platforms: tuple[str, ...]
  disabled_checks: tuple[str, ...]
  mlir_module_serialized: bytes
  calling_convention_version: int
  module_kept_var_idx: tuple[int, ...]
  nr_devices: int
  vjp: SerializedExported | None


# ----------------------------------------------------------------------------------------------
# Writing

class _Writer:
  """A flatbuffer built bottom-up: every nested value is written before the table holding it."""

  def __init__(self):
    self.builder = flatbuffers.Builder(1024)

  def string(self, s: str) -> int:
    return self.builder.CreateString(s)

  def offsets(self, offsets: Sequence[int]) -> int:
    """A vector of strings or tables already written."""
    self.builder.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
      self.builder.PrependUOffsetTRelative(off)
    return self.builder.EndVector()

  def numbers(self, values: Sequence[int], dtype: Any) -> int:
    return self.builder.CreateNumpyVector(np.asarray(values, dtype))

  def table(self, schema: dict[str, tuple[int, str]], **fields: Any) -> int:
    """A table of `schema` with `fields` (offsets of written values, or scalars)."""
    b = self.builder
    b.StartObject(len(schema))
    for name, value in fields.items():
      slot, kind = schema[name]
      if kind in _SCALARS:
        b.PrependSlot(_SCALARS[kind], slot, value, 0)
      else:
        b.PrependUOffsetTRelativeSlot(slot, value, 0)
    return b.EndObject()


def serialize(exported: Any, vjp_order: int = 0) -> bytes:
  """`exported` (an `Exported`) as JAX serializes it, with `vjp_order` orders of its VJP (bytes;
  JAX gives a bytearray of the same content)."""
  w = _Writer()
  w.builder.Finish(_write_exported(w, exported, vjp_order))
  return bytes(w.builder.Output())


def _write_exported(w: _Writer, e: Any, vjp_order: int,
                    avals: tuple[Sequence[core.ShapedArray], ...] | None = None) -> int:
  """`e` with `vjp_order` orders of VJP; `avals`, its in and out avals as written if not its own
  (a VJP's, with float0 for the booleans stablejax's exported VJPs take and give)."""
  if vjp_order > 0 and not e.has_vjp():
    raise ValueError(f"cannot serialize '{e.fun_name}' with vjp_order={vjp_order}: it has no "
                     "VJP of that order (it was deserialized with fewer)")
  in_avals, out_avals = avals or (e.in_avals, e.out_avals)
  vjp = (_write_exported(w, e.vjp(), vjp_order - 1, _vjp_avals(in_avals, out_avals))
         if vjp_order > 0 else 0)
  unique = {_aval_key(a): a for a in (*in_avals, *out_avals)}
  index = {key: i for i, key in enumerate(unique)}
  fields = dict(
      function_name=w.string(e.fun_name),
      in_tree=_write_tree(w, e.in_tree, "in_tree", e.fun_name),
      in_avals=w.offsets([_write_aval(w, a) for a in in_avals]),
      out_tree=_write_tree(w, e.out_tree, "out_tree", e.fun_name),
      out_avals=w.offsets([_write_aval(w, a) for a in out_avals]),
      in_shardings=w.offsets([w.table(_SHARDING) for _ in in_avals]),
      out_shardings=w.offsets([w.table(_SHARDING) for _ in out_avals]),
      platforms=w.offsets([w.string(p) for p in e.platforms]),
      ordered_effects=w.offsets([]), unordered_effects=w.offsets([]),
      disabled_checks=w.offsets([_write_check(w, c) for c in e.disabled_safety_checks]),
      mlir_module_serialized=w.builder.CreateByteVector(e.mlir_module_serialized),
      module_kept_var_idx=w.numbers(e.module_kept_var_idx, np.uint16),
      unique_avals=w.offsets([_write_aval(w, a) for a in unique.values()]),
      unique_abstract_meshes=w.offsets([]), unique_named_shardings=w.offsets([]),
      in_avals_idxs=w.numbers([index[_aval_key(a)] for a in in_avals], np.uint32),
      out_avals_idxs=w.numbers([index[_aval_key(a)] for a in out_avals], np.uint32),
      # 0: no sharding given
      in_shardings_idxs=w.numbers([0] * len(in_avals), np.uint32),
      out_shardings_idxs=w.numbers([0] * len(out_avals), np.uint32))
  if vjp:
    fields["vjp"] = vjp
  return w.table(_EXPORTED, serialization_version=SERIALIZATION_VERSION,
                 nr_devices=e.nr_devices, calling_convention_version=e.calling_convention_version,
                 uses_global_constants=any(not _is_static(a) for a in in_avals), **fields)


def _vjp_avals(in_avals: Sequence[core.ShapedArray], out_avals: Sequence[core.ShapedArray]
               ) -> tuple[list[core.ShapedArray], list[core.ShapedArray]]:
  """The avals, as JAX has them, of the VJP of a function of `in_avals` to `out_avals`: the
  primal arguments, then the cotangents of the results; it returns the cotangents of the
  arguments (float0 where a value is an integer: the module takes and gives booleans)."""
  return ([*in_avals, *map(ad.tangent_aval, out_avals)], list(map(ad.tangent_aval, in_avals)))


def _aval_key(aval: core.ShapedArray) -> tuple:
  """What JAX serializes of an aval (not its weak type)."""
  return tuple(map(str, aval.shape)), _dtype_name(aval.dtype)


def _is_static(aval: core.ShapedArray) -> bool:
  return all(isinstance(d, (int, np.integer)) for d in aval.shape)


def _write_aval(w: _Writer, aval: core.ShapedArray) -> int:
  name = _dtype_name(aval.dtype)
  if name not in _DTYPE_KIND:
    raise ValueError(f"cannot serialize an array of dtype {aval.dtype}: stablejax serializes "
                     f"the numeric dtypes of JAX's format ({', '.join(_DTYPES)})")
  shape = w.offsets([w.string(str(d)) for d in aval.shape])
  return w.table(_AVAL, kind=_SHAPED_ARRAY, shape=shape, dtype=_DTYPE_KIND[name],
                 memory_space=_MEMORY_DEVICE)


def _write_check(w: _Writer, check: Any) -> int:
  target = check.is_custom_call()
  if target is not None:
    return w.table(_CHECK, kind=_CHECK_CUSTOM_CALL, custom_call_target=w.string(target))
  if str(check) == "platform":
    return w.table(_CHECK, kind=_CHECK_PLATFORM)
  raise ValueError(f"cannot serialize the disabled safety check {check}")


_SEQUENCE_KINDS = {tuple: _TUPLE, list: _LIST, type(None): _NONE}


def _write_tree(w: _Writer, tree: PyTreeDef, what: str, fun_name: str) -> int:
  """A leaf, None, tuple, list or dict with string keys (JAX's own kinds; custom nodes JAX
  serializes through its registry, which stablejax does not have)."""
  kind = tree.node_type
  children = [_write_tree(w, c, what, fun_name) for c in tree.children]
  fields: dict[str, Any] = {"children": w.offsets(children)} if children else {}
  if kind is None:
    return w.table(_PYTREE, kind=_LEAF)
  if kind in _SEQUENCE_KINDS:
    return w.table(_PYTREE, kind=_SEQUENCE_KINDS[kind], **fields)
  if kind is dict and all(type(k) is str for k in tree.aux):
    names = w.offsets([w.string(k) for k in tree.aux])
    return w.table(_PYTREE, kind=_DICT, children_names=names, **fields)
  node = "dict with keys other than str" if kind is dict else kind.__name__
  raise ValueError(f"cannot serialize the {what} {tree} of the exported function '{fun_name}': "
                   f"a {node} node; only tuples, lists, dicts with str keys and None can be "
                   "serialized")


# ----------------------------------------------------------------------------------------------
# Reading

class _Reader:
  """One table of a flatbuffer, its fields read by name."""

  def __init__(self, buf: bytes, pos: int, schema: dict[str, tuple[int, str]]):
    self.tab = Table(buf, pos)
    self.schema = schema

  def _offset(self, name: str) -> int:
    return self.tab.Offset(4 + 2 * self.schema[name][0])

  def scalar(self, name: str) -> int:
    o = self._offset(name)
    return self.tab.Get(_SCALARS[self.schema[name][1]], o + self.tab.Pos) if o else 0

  def _span(self, start: int, size: int) -> int:
    """`start`, once the `size` bytes from it are checked to be in the buffer (slices of a
    truncated buffer would be silently short)."""
    if start + size > len(self.tab.Bytes):
      raise ValueError(f"deserialize: the blob is truncated ({len(self.tab.Bytes)} bytes; a "
                       f"value ends at byte {start + size})")
    return start

  def _string_at(self, pos: int) -> str:
    start = pos + flatbuffers.encode.Get(fb_types.UOffsetTFlags.packer_type, self.tab.Bytes, pos)
    length = flatbuffers.encode.Get(fb_types.UOffsetTFlags.packer_type, self.tab.Bytes, start)
    self._span(start, 4 + length + 1)  # (and its NUL terminator)
    return self.tab.String(pos).decode("utf-8")

  def string(self, name: str) -> str | None:
    o = self._offset(name)
    return self._string_at(o + self.tab.Pos) if o else None

  def numbers(self, name: str) -> np.ndarray:
    """A vector of numbers (bytes for `[ubyte]`)."""
    o = self._offset(name)
    flags = _VECTORS[self.schema[name][1]]
    if not o:
      return np.zeros(0, flags.numpy_type)
    self._span(self.tab.Vector(o), self.tab.VectorLen(o) * flags.bytewidth)
    return self.tab.GetVectorAsNumpy(flags, o)

  def _elements(self, name: str) -> list[int]:
    o = self._offset(name)
    if not o:
      return []
    start, n = self.tab.Vector(o), self.tab.VectorLen(o)
    self._span(start, 4 * n)
    return [start + 4 * i for i in range(n)]

  def table(self, name: str, schema: dict[str, tuple[int, str]]) -> _Reader | None:
    o = self._offset(name)
    return _Reader(self.tab.Bytes, self.tab.Indirect(o + self.tab.Pos), schema) if o else None

  def tables(self, name: str, schema: dict[str, tuple[int, str]]) -> list[_Reader]:
    return [_Reader(self.tab.Bytes, self.tab.Indirect(p), schema) for p in self._elements(name)]

  def strings(self, name: str) -> list[str]:
    return [self._string_at(p) for p in self._elements(name)]


def deserialize(blob: bytes) -> SerializedExported:
  """The Exported that `serialize`, or JAX's `Exported.serialize`, wrote into `blob`."""
  try:
    root = flatbuffers.encode.Get(fb_types.UOffsetTFlags.packer_type, blob, 0)
    return _read_exported(_Reader(blob, root, _EXPORTED))
  except (struct.error, IndexError, UnicodeDecodeError, OverflowError) as e:
    raise ValueError(f"deserialize: the blob is not a serialized Exported, or it is corrupt or "
                     f"truncated ({type(e).__name__}: {e})") from None


def _read_exported(r: _Reader) -> SerializedExported:
  name = r.string("function_name")
  if name is None:
    raise ValueError("deserialize: the blob is not a serialized Exported (it has no function "
                     "name)")
  effects = [t.string("type_name") for t in (
      *r.tables("ordered_effects", _EFFECT), *r.tables("unordered_effects", _EFFECT))]
  if effects:
    raise ValueError(f"deserialize: the exported function '{name}' has effects {effects}; "
                     "stablejax calls exported modules without effects only")
  nr_devices = int(r.scalar("nr_devices") or r.scalar("nr_devices_short"))
  if nr_devices != 1:
    raise ValueError(f"deserialize: the exported function '{name}' was exported for "
                     f"{nr_devices} devices; stablejax calls exported modules on one device")
  in_avals, out_avals = _read_avals(r)
  vjp = r.table("vjp", _EXPORTED)
  return SerializedExported(
      fun_name=name, in_tree=_read_tree(r.table("in_tree", _PYTREE)), in_avals=in_avals,
      out_tree=_read_tree(r.table("out_tree", _PYTREE)), out_avals=out_avals,
      platforms=tuple(r.strings("platforms")),
      disabled_checks=tuple(map(_read_check, r.tables("disabled_checks", _CHECK))),
      mlir_module_serialized=r.numbers("mlir_module_serialized").tobytes(),
      calling_convention_version=int(r.scalar("calling_convention_version")),
      module_kept_var_idx=tuple(int(i) for i in r.numbers("module_kept_var_idx")),
      nr_devices=nr_devices, vjp=vjp and _read_exported(vjp))


def _read_avals(r: _Reader) -> tuple[tuple[core.ShapedArray, ...], ...]:
  """The in and out avals: indices into the unique avals (JAX since April 2026), or the avals
  themselves (before); their symbolic dimensions in one scope."""
  scope = SymbolicScope(())
  read: Callable[[_Reader], core.ShapedArray] = lambda t: _read_aval(t, scope)
  unique = list(map(read, r.tables("unique_avals", _AVAL)))
  result = []
  for what in ("in_avals", "out_avals"):
    idxs = r.numbers(f"{what}_idxs")
    result.append(tuple(unique[int(i)] for i in idxs) if len(idxs)
                  else tuple(map(read, r.tables(what, _AVAL))))
  return tuple(result)


def _read_aval(t: _Reader, scope: SymbolicScope) -> core.ShapedArray:
  kind, dtype = t.scalar("kind"), t.scalar("dtype")
  if kind != _SHAPED_ARRAY or dtype >= len(_DTYPES):
    raise ValueError(f"deserialize: an argument or result of kind {kind} and dtype kind "
                     f"{dtype}; stablejax reads arrays of the dtypes {_DTYPES}")
  if t.scalar("memory_space") not in (0, _MEMORY_DEVICE):
    raise ValueError("deserialize: an argument or result lives in host memory; stablejax "
                     "reads device arrays only")
  shape = symbolic_shape(",".join(t.strings("shape")), scope=scope)
  return core.ShapedArray(shape, _dtype_of(_DTYPES[dtype]))


def _read_check(t: _Reader) -> str:
  kind = t.scalar("kind")
  if kind == _CHECK_CUSTOM_CALL:
    return f"custom_call:{t.string('custom_call_target')}"
  if kind == _CHECK_PLATFORM:
    return "platform"
  # (kind 2, shape_assertions, was retired by JAX: its checks always run)
  raise ValueError(f"deserialize: a disabled safety check of unknown kind {kind}")


def _read_tree(t: _Reader | None) -> PyTreeDef:
  if t is None:
    raise ValueError("deserialize: the blob has no tree structure")
  kind = t.scalar("kind")
  children = tuple(map(_read_tree, t.tables("children", _PYTREE)))
  if kind == _LEAF:
    return LEAF
  if kind == _DICT:
    return PyTreeDef(dict, tuple(t.strings("children_names")), children)
  for node_type, k in _SEQUENCE_KINDS.items():
    if k == kind:
      return PyTreeDef(node_type, None, children)
  raise ValueError(f"deserialize: a tree node of kind {kind} "
                   f"({t.string('custom_name') or 'unknown'}); stablejax reads tuples, lists, "
                   "dicts and None (JAX's custom pytree nodes need JAX's registry)")
