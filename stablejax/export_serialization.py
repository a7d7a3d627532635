"""JAX's serialized `Exported`, read and written: the flatbuffer of JAX's
`jax/_src/export/serialization.fbs` (the tables `Exported`, `PyTreeDef`, `AbstractValue`,
`Sharding`, `Effect`, `DisabledSafetyCheck`), with the fields JAX 0.10.2 writes and JAX 0.10.2
to 0.12 read. `jax.export.deserialize` loads what `serialize` writes, and `deserialize` loads
what `jax.export.Exported.serialize` writes, as a `SerializedExported` record that
`stablejax.export` turns into its `Exported`.

Avals' shapes are strings, one per dimension, as JAX writes them (`"4"`, `"b"`, `"2*b"`): symbolic
dimensions are read with `shape_poly.symbolic_shape`, in one scope per artifact; PRNG keys have
dtypes of their own. Trees hold JAX's built-in nodes and the custom nodes registered for
serialization (`register_pytree_node_serialization`, as JAX's, under the same serialized names).
Shardings are written unspecified and read only where trivial (a module for one device)."""
from __future__ import annotations

import collections
import dataclasses
import json
import struct
from typing import Any, Callable, Sequence

import flatbuffers
import ml_dtypes
import numpy as np
from flatbuffers import number_types as fb_types
from flatbuffers.table import Table

from stablejax import core, dtypes
from stablejax.interpreters import ad
from stablejax.lax.random import THREEFRY, KeyTy
from stablejax.shape_poly import SymbolicScope, symbolic_shape
from stablejax.tree_util import (PyTreeDef, is_tree_node, tree_leaves, tree_structure,
                                 tree_unflatten)

__all__ = ["SerializedExported", "deserialize", "register_namedtuple_serialization",
           "register_pytree_node_serialization", "serialize"]

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
_LEAF, _NONE, _TUPLE, _LIST, _DICT, _CUSTOM = range(6)
_SHAPED_ARRAY = 0
_MEMORY_DEVICE = 1
_CHECK_PLATFORM, _CHECK_CUSTOM_CALL = 0, 1
_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128", "bfloat16", "int4",
           "uint4", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
           "float8_e5m2fnuz", "float0", "float8_e4m3", "float8_e3m4", "float8_e8m0fnu",
           "float4_e2m1fn"]
_DTYPE_KIND = {name: kind for kind, name in enumerate(_DTYPES)}
# PRNG key dtypes follow, one per implementation (an aval's shape is the keys', without the
# key data's trailing dimension); stablejax has threefry2x32's
_KEY_IMPLS = ["threefry2x32", "rbg", "unsafe_rbg"]
_KEY_KIND = {impl: len(_DTYPES) + i for i, impl in enumerate(_KEY_IMPLS)}
_KEY_DTYPES = {_KEY_KIND[THREEFRY.impl]: THREEFRY}


def _dtype_name(dtype: Any) -> str:
  return "float0" if dtype == dtypes.float0 else getattr(dtype, "name", str(dtype))


def _dtype_kind(dtype: Any) -> int:
  """The kind JAX serializes `dtype` as."""
  kind = (_KEY_KIND.get(dtype.impl) if isinstance(dtype, KeyTy)
          else _DTYPE_KIND.get(_dtype_name(dtype)))
  if kind is None:
    raise ValueError(f"cannot serialize an array of dtype {dtype}: stablejax serializes the "
                     f"dtypes of JAX's format ({', '.join(_DTYPES)}, and PRNG keys)")
  return kind


def _dtype_of(kind: int) -> Any:
  """The dtype stablejax gives a value JAX serialized with dtype `kind`: float0 (the cotangents
  of integers, in VJPs) is read as bool, the type its values have in the module."""
  if kind in _KEY_DTYPES:
    return _KEY_DTYPES[kind]
  if kind >= len(_DTYPES):
    impl = dict(enumerate(_KEY_IMPLS, len(_DTYPES))).get(kind)
    what = f"PRNG keys of the {impl} implementation" if impl else f"dtype kind {kind}"
    raise ValueError(f"deserialize: an argument or result holds {what}; stablejax reads the "
                     f"dtypes {_DTYPES} and {THREEFRY.impl} keys")
  name = _DTYPES[kind]
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
  if e.nr_devices != 1:
    raise ValueError(f"cannot serialize '{e.fun_name}': it was exported for {e.nr_devices} "
                     "devices, and stablejax keeps the shardings of modules for one device only")
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
  return tuple(map(str, aval.shape)), _dtype_kind(aval.dtype)


def _is_static(aval: core.ShapedArray) -> bool:
  return all(isinstance(d, (int, np.integer)) for d in aval.shape)


def _write_aval(w: _Writer, aval: core.ShapedArray) -> int:
  kind = _dtype_kind(aval.dtype)
  shape = w.offsets([w.string(str(d)) for d in aval.shape])
  return w.table(_AVAL, kind=_SHAPED_ARRAY, shape=shape, dtype=kind,
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
  """A leaf, None, tuple, list, dict with string keys, or a node type registered for
  serialization (`register_pytree_node_serialization`), as JAX writes them."""
  kind = tree.node_type
  children = [_write_tree(w, c, what, fun_name) for c in tree.children]
  fields: dict[str, Any] = {"children": w.offsets(children)} if children else {}
  if kind is None:
    return w.table(_PYTREE, kind=_LEAF)
  if kind in _SEQUENCE_KINDS:
    return w.table(_PYTREE, kind=_SEQUENCE_KINDS[kind], **fields)
  if kind is dict:
    for key in tree.aux:
      if type(key) is not str:
        raise TypeError(f"Serialization is supported only for dictionaries with string keys. "
                        f"Found key {key!r} of type {type(key)} in the {what} of the exported "
                        f"function '{fun_name}'.")
    names = w.offsets([w.string(k) for k in tree.aux])
    return w.table(_PYTREE, kind=_DICT, children_names=names, **fields)
  if kind not in _SERIALIZERS:
    raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type `{kind}` "
                     f"(in the {what} of the exported function '{fun_name}'). Use "
                     "`export.register_pytree_node_serialization` or "
                     "`export.register_namedtuple_serialization`.")
  name, serialize_auxdata = _SERIALIZERS[kind]
  auxdata = serialize_auxdata(tree.aux)
  if not isinstance(auxdata, (bytes, bytearray)):
    raise ValueError(f"The custom serialization function for `{kind}` must return a `bytes` "
                     f"object. It returned a {type(auxdata)}.")
  return w.table(_PYTREE, kind=_CUSTOM, custom_name=w.string(name),
                 custom_auxdata=w.builder.CreateByteVector(bytes(auxdata)), **fields)


# ----------------------------------------------------------------------------------------------
# The registry of custom pytree nodes that can be serialized (JAX's: the same functions and
# serialized names, so a node registered on both sides crosses over)

_SERIALIZERS: dict[type, tuple[str, Callable[[Any], bytes]]] = {}
_DESERIALIZERS: dict[str, tuple[type, Callable[[bytes], Any], Callable[[Any, list], Any]]] = {}


def register_pytree_node_serialization(
    nodetype: type, *, serialized_name: str, serialize_auxdata: Callable[[Any], bytes],
    deserialize_auxdata: Callable[[bytes], Any],
    from_children: Callable[[Any, list], Any] | None = None) -> type:
  """Let the pytree nodes of `nodetype` be serialized in an Exported's trees: its auxdata
  as the bytes `serialize_auxdata` gives, read back by `deserialize_auxdata`, under the name
  `serialized_name`; `from_children(auxdata, children)` builds a node (default: the node
  type's registered unflatten). Returns `nodetype`, so it can decorate a class."""
  if nodetype in _SERIALIZERS:
    raise ValueError(f"Duplicate serialization registration for type `{nodetype}`. Previous "
                     f"registration was with serialized_name `{_SERIALIZERS[nodetype][0]}`.")
  if serialized_name in _DESERIALIZERS:
    raise ValueError(f"Duplicate serialization registration for serialized_name "
                     f"`{serialized_name}`. Previous registration was for type "
                     f"`{_DESERIALIZERS[serialized_name][0]}`.")
  if from_children is None:
    if not is_tree_node(nodetype):
      raise ValueError(f"If `from_children` is not present, you must call first "
                       f"`tree_util.register_pytree_node` for `{nodetype}`")
    from_children = lambda aux, kids: _unflatten_node(nodetype, aux, kids)  # noqa: E731
  _SERIALIZERS[nodetype] = (serialized_name, serialize_auxdata)
  _DESERIALIZERS[serialized_name] = (nodetype, deserialize_auxdata, from_children)
  return nodetype


def _unflatten_node(nodetype: type, aux: Any, children: list) -> Any:
  """A node of the registered `nodetype` with auxdata `aux` and subtrees `children`."""
  tree = PyTreeDef(nodetype, aux, [tree_structure(c) for c in children])
  return tree_unflatten(tree, tree_leaves(children))


def register_namedtuple_serialization(nodetype: type, *, serialized_name: str) -> type:
  """Let the namedtuple type `nodetype` be serialized in an Exported's trees, under the name
  `serialized_name` (its field names are written, and must match when read)."""
  if not (isinstance(nodetype, type) and issubclass(nodetype, tuple)
          and hasattr(nodetype, "_fields")):
    raise ValueError("Use `export.register_pytree_node_serialization` for types other than "
                     "`collections.namedtuple`.")

  def from_children(fields: Any, children: list) -> Any:
    if list(fields) != list(nodetype._fields):
      raise ValueError(f"deserialize: the namedtuple `{serialized_name}` was serialized with "
                       f"the fields {list(fields)}; {nodetype} has {list(nodetype._fields)}")
    return nodetype(*children)

  return register_pytree_node_serialization(
      nodetype, serialized_name=serialized_name,
      serialize_auxdata=lambda _: json.dumps(nodetype._fields).encode("utf-8"),
      deserialize_auxdata=lambda data: json.loads(data.decode("utf-8")),
      from_children=from_children)


def _json_keys(keys: Sequence[Any]) -> bytes:
  if not all(isinstance(k, str) for k in keys):
    raise NotImplementedError(f"Serialization of collections.OrderedDict is supported only when "
                              f"the keys are strings. Found keys: {keys}.")
  return json.dumps(list(keys)).encode("utf-8")


register_pytree_node_serialization(
    collections.OrderedDict, serialized_name="collections.OrderedDict",
    serialize_auxdata=_json_keys, deserialize_auxdata=lambda b: json.loads(b.decode("utf-8")))


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
      return np.zeros(0, fb_types.to_numpy_type(flags))
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
  # (an Exported for several devices is read, its shardings not: it can be inspected, not
  # called nor written back)
  nr_devices = int(r.scalar("nr_devices") or r.scalar("nr_devices_short"))
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
  kind = t.scalar("kind")
  if kind != _SHAPED_ARRAY:
    raise ValueError(f"deserialize: an argument or result of kind {kind}; stablejax reads "
                     "arrays")
  if t.scalar("memory_space") not in (0, _MEMORY_DEVICE):
    raise ValueError("deserialize: an argument or result lives in host memory; stablejax "
                     "reads device arrays only")
  shape = symbolic_shape(",".join(t.strings("shape")), scope=scope)
  return core.ShapedArray(shape, _dtype_of(t.scalar("dtype")))


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
  return tree_structure(_read_pytree(t))


_PLACEHOLDER = 0.0  # (a leaf of the trees built to take their structure, as JAX's)


def _read_pytree(t: _Reader) -> Any:
  """A tree of the serialized structure, with placeholder leaves (custom nodes are built by
  their registered `from_children`, whose structure is what counts)."""
  kind = t.scalar("kind")
  children = [_read_pytree(c) for c in t.tables("children", _PYTREE)]
  if kind == _LEAF:
    return _PLACEHOLDER
  if kind == _DICT:
    return dict(zip(t.strings("children_names"), children))
  if kind == _CUSTOM:
    name = t.string("custom_name")
    if name not in _DESERIALIZERS:
      raise ValueError(f"Cannot deserialize a PyTreeDef containing an unregistered type "
                       f"`{name}`. Use `export.register_pytree_node_serialization` or "
                       "`export.register_namedtuple_serialization`.")
    _, deserialize_auxdata, from_children = _DESERIALIZERS[name]
    return from_children(deserialize_auxdata(t.numbers("custom_auxdata").tobytes()), children)
  for node_type, k in _SEQUENCE_KINDS.items():
    if k == kind:
      return None if node_type is type(None) else node_type(children)
  raise ValueError(f"deserialize: a tree node of unknown kind {kind}")
