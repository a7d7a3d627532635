"""Pytrees: nested tuples, lists, dicts, None, namedtuples and registered node types."""
from __future__ import annotations

import dataclasses
import functools
import operator
from typing import Any, Callable, Hashable, Iterable, Iterator, NamedTuple, Sequence


class _NodeType(NamedTuple):
  flatten: Callable[[Any], tuple[Iterable, Hashable]]
  unflatten: Callable[[Hashable, list], Any]
  flatten_with_keys: Callable[[Any], tuple[Iterable, Hashable]] | None = None


_registry: dict[type, _NodeType] = {}


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable) -> None:
  """Register `nodetype` with `flatten(x) -> (children, aux)` and `unflatten(aux, children) -> x`."""
  if nodetype in _registry:
    raise ValueError(f"{nodetype.__name__} is already registered as a pytree node")
  _registry[nodetype] = _NodeType(flatten_func, unflatten_func)


def _sorted_keys(d: dict) -> list:
  try:
    return sorted(d)
  except TypeError:
    return list(d)


register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs))
register_pytree_node(list, lambda l: (l, None), lambda _, xs: list(xs))


def _flatten_dict(d: dict) -> tuple[list, tuple]:
  keys = _sorted_keys(d)
  return [d[k] for k in keys], tuple(keys)


register_pytree_node(dict, _flatten_dict, lambda keys, xs: dict(zip(keys, xs)))
register_pytree_node(type(None), lambda _: ((), None), lambda _, __: None)


def _is_namedtuple(x: Any) -> bool:
  return isinstance(x, tuple) and hasattr(type(x), "_fields")


class PyTreeDef:
  """The structure of a pytree: a node type, its auxiliary data and child structures."""
  __slots__ = ("node_type", "aux", "children", "num_leaves", "_hash")

  def __init__(self, node_type, aux, children: tuple):
    self.node_type = node_type
    self.aux = aux
    self.children = children
    if node_type is None:
      self.num_leaves = 1
    else:
      self.num_leaves = 0
      for c in children:
        self.num_leaves += c.num_leaves
    self._hash = None  # computed when first used as a key: aux data need not be hashable

  def __eq__(self, other) -> bool:
    return (self is other or isinstance(other, PyTreeDef) and
            self.node_type is other.node_type and self.num_leaves == other.num_leaves and
            (self._hash is None or other._hash is None or self._hash == other._hash) and
            self.aux == other.aux and self.children == other.children)

  def __hash__(self) -> int:
    if self._hash is None:
      children = hash(self.children)  # a child's error names that child
      try:
        self._hash = hash((self.node_type, self.aux, children))
      except TypeError:
        raise TypeError(f"the pytree node {self.node_type.__name__} has unhashable auxiliary "
                        f"data {self.aux!r}; a tree structure used as a key (as jit's cache "
                        "uses its arguments') needs the aux data its flatten function returns "
                        "to be hashable") from None
    return self._hash

  @property
  def num_nodes(self) -> int:
    return 1 + sum(c.num_nodes for c in self.children)

  def unflatten(self, leaves: Iterable) -> Any:
    return tree_unflatten(self, leaves)

  def unflattener(self) -> Callable[[Sequence], Any]:
    """`tree_unflatten(self, ·)` as a function built once: for rebuilding many trees of this
    structure (jit's results), without looking up node types per call. A leaf and a tuple of
    leaves (the common results) take their leaves as they are, so the caller passes exactly
    `num_leaves`."""
    if self.node_type is None:
      return operator.itemgetter(0)
    if self.node_type is tuple and all(c.node_type is None for c in self.children):
      return tuple
    build = _builder(self)
    n = self.num_leaves

    def unflatten(leaves: Sequence) -> Any:
      if len(leaves) != n:
        raise ValueError(f"tree structure {self} has {n} leaves, but {len(leaves)} were given")
      return build(iter(leaves))
    return unflatten

  def leaves_if_match(self, tree: Any) -> list | None:
    """The leaves of `tree` if it has exactly this structure, else None: a check that builds
    no structure (jit's dispatch fast path compares the arguments with its last call's)."""
    if self.node_type is None:
      return None if type(tree) in _registry or isinstance(tree, tuple) else [tree]
    leaves: list = []
    return leaves if _match(self, tree, leaves) else None

  def flatten_up_to(self, tree: Any) -> list:
    """The subtrees of `tree` at the leaves of this structure (a prefix of `tree`'s)."""
    return _flatten_up_to(self, tree)

  def compose(self, inner: PyTreeDef) -> PyTreeDef:
    """This structure with every leaf replaced by `inner`."""
    if self.node_type is None:
      return inner
    return PyTreeDef(self.node_type, self.aux, tuple(c.compose(inner) for c in self.children))

  def __repr__(self) -> str:
    return f"PyTreeDef({self._str()})"

  def _str(self) -> str:
    if self.node_type is None:
      return "*"
    kids = [c._str() for c in self.children]
    if self.node_type is tuple:
      return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if self.node_type is list:
      return "[" + ", ".join(kids) + "]"
    if self.node_type is dict:
      return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.aux, kids)) + "}"
    if self.node_type is type(None):
      return "None"
    return f"CustomNode({self.node_type.__name__}[{self.aux!r}], [{', '.join(kids)}])"


LEAF = PyTreeDef(None, None, ())


def _flatten_up_to(treedef: PyTreeDef, tree: Any) -> list:
  if treedef.node_type is None:
    return [tree]
  node_type, node = _node_of(tree)
  if node_type is not treedef.node_type:
    raise ValueError(f"expected a tree of structure {treedef}, got a {type(tree).__name__}")
  children, aux = node.flatten(tree)
  children = list(children)
  if aux != treedef.aux or len(children) != len(treedef.children):
    raise ValueError(f"expected a tree of structure {treedef}, got {tree_structure(tree)}")
  return [x for c, t in zip(treedef.children, children) for x in _flatten_up_to(c, t)]


def _match(treedef: PyTreeDef, tree: Any, leaves: list) -> bool:
  """Whether `tree` has the structure `treedef` (a node), collecting its leaves."""
  node_type = treedef.node_type
  if type(tree) is not node_type:
    return False
  if node_type is tuple or node_type is list:
    children = tree
  elif node_type is dict:  # (jit's kwargs, usually empty: no sorting of keys)
    keys = treedef.aux
    if len(tree) != len(keys) or any(k not in tree for k in keys):
      return False
    children = [tree[k] for k in keys]
  else:
    children, aux = _node_of(tree)[1].flatten(tree)
    if aux != treedef.aux:
      return False
    children = list(children)
  if len(children) != len(treedef.children):
    return False
  for child_def, child in zip(treedef.children, children):
    if child_def.node_type is None:
      if type(child) in _registry or isinstance(child, tuple):  # a node where a leaf was
        return False
      leaves.append(child)
    elif not _match(child_def, child, leaves):
      return False
  return True


def _builder(treedef: PyTreeDef) -> Callable[[Iterator], Any]:
  """A function building a tree of structure `treedef` from an iterator of its leaves."""
  node_type = treedef.node_type
  if node_type is None:
    return next
  kids = [_builder(c) for c in treedef.children]
  if node_type is tuple:
    return lambda it: tuple([k(it) for k in kids])
  if node_type is list:
    return lambda it: [k(it) for k in kids]
  node = _registry.get(node_type)
  if node is None:  # a namedtuple
    return lambda it: node_type(*[k(it) for k in kids])
  aux = treedef.aux
  return lambda it: node.unflatten(aux, [k(it) for k in kids])


def _node_of(x: Any):
  node = _registry.get(type(x))
  if node is None and _is_namedtuple(x):
    return type(x), _NodeType(lambda t: (tuple(t), None), lambda _, xs, T=type(x): T(*xs))
  return type(x), node


def _flatten(x: Any, leaves: list, is_leaf) -> PyTreeDef:
  if is_leaf is not None and is_leaf(x):
    leaves.append(x)
    return LEAF
  node_type = type(x)
  if node_type is tuple or node_type is list:  # the common containers, without the registry
    return PyTreeDef(node_type, None, tuple([_flatten(c, leaves, is_leaf) for c in x]))
  node = _registry.get(node_type)
  if node is None and isinstance(x, tuple):
    node_type, node = _node_of(x)  # a namedtuple
  if node is None:
    leaves.append(x)
    return LEAF
  children, aux = node.flatten(x)
  return PyTreeDef(node_type, aux, tuple([_flatten(c, leaves, is_leaf) for c in children]))


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
  """Flatten a pytree into its leaves (in a fixed order) and its structure."""
  leaves: list = []
  return leaves, _flatten(tree, leaves, is_leaf)


def _unflatten(treedef: PyTreeDef, it) -> Any:
  if treedef.node_type is None:
    return next(it)
  children = [_unflatten(c, it) for c in treedef.children]
  node = _registry.get(treedef.node_type)
  if node is None:  # a namedtuple
    return treedef.node_type(*children)
  return node.unflatten(treedef.aux, children)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
  """Rebuild a pytree of structure `treedef` from its leaves."""
  leaves = list(leaves)
  if len(leaves) != treedef.num_leaves:
    raise ValueError(f"tree structure {treedef} has {treedef.num_leaves} leaves, "
                     f"but {len(leaves)} were given")
  return _unflatten(treedef, iter(leaves))


def tree_leaves(tree: Any, is_leaf=None) -> list:
  """The leaves of `tree`, in `tree_flatten`'s order (without building its structure)."""
  if is_leaf is not None:
    return tree_flatten(tree, is_leaf)[0]
  leaves: list = []
  _collect_leaves(tree, leaves)
  return leaves


def _collect_leaves(x: Any, leaves: list) -> None:
  node_type = type(x)
  if node_type is tuple or node_type is list:
    for c in x:
      _collect_leaves(c, leaves)
    return
  node = _registry.get(node_type)
  if node is None and isinstance(x, tuple):
    node = _node_of(x)[1]  # a namedtuple
  if node is None:
    leaves.append(x)
    return
  for c in node.flatten(x)[0]:
    _collect_leaves(c, leaves)


def tree_structure(tree: Any, is_leaf=None) -> PyTreeDef:
  return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf=None) -> Any:
  """Apply `f` leafwise to `tree` and the trees in `rest`, which must share its structure."""
  leaves, treedef = tree_flatten(tree, is_leaf)
  all_leaves = [leaves]
  for other in rest:
    other_leaves, other_def = tree_flatten(other, is_leaf)
    if other_def != treedef:
      raise ValueError(f"tree_map: structures differ: {treedef} vs {other_def}")
    all_leaves.append(other_leaves)
  return tree_unflatten(treedef, [f(*xs) for xs in zip(*all_leaves)])


def broadcast_prefix(prefix: Any, tree: Any, is_leaf=None) -> list:
  """The leaves of `prefix` repeated for every leaf of `tree` below them (vmap's `in_axes`)."""
  out: list = []

  def walk(p, t):
    if p is None or is_leaf is not None and is_leaf(p) or _node_of(p)[1] is None:
      out.extend([p] * len(tree_leaves(t)))
      return
    p_type, p_node = _node_of(p)
    t_type, t_node = _node_of(t)
    if p_type is not t_type:
      raise ValueError(f"prefix node {type(p).__name__} does not match {type(t).__name__}")
    p_kids, p_aux = p_node.flatten(p)
    t_kids, t_aux = t_node.flatten(t)
    p_kids, t_kids = list(p_kids), list(t_kids)
    if p_aux != t_aux or len(p_kids) != len(t_kids):
      raise ValueError(f"prefix structure {tree_structure(p)} does not match "
                       f"{tree_structure(t)}")
    for pc, tc in zip(p_kids, t_kids):
      walk(pc, tc)

  walk(prefix, tree)
  return out


def flatten_fun(f: Callable, in_tree: PyTreeDef) -> tuple[Callable, Callable[[], PyTreeDef]]:
  """Wrap `f` to take flat leaves and return flat leaves; the second result gives the out tree."""
  store: list = []

  def flat_f(*leaves):
    args, kwargs = tree_unflatten(in_tree, leaves)
    out_leaves, out_tree = tree_flatten(f(*args, **kwargs))
    store.append(out_tree)
    return out_leaves

  def out_tree() -> PyTreeDef:
    return store[-1]

  return flat_f, out_tree


_NO_INITIAL = object()


def tree_reduce(function: Callable, tree: Any, initializer: Any = _NO_INITIAL,
                is_leaf=None) -> Any:
  """`functools.reduce` of `function` over the leaves of `tree`."""
  leaves = tree_leaves(tree, is_leaf)
  if initializer is _NO_INITIAL:
    return functools.reduce(function, leaves)
  return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf=None) -> bool:
  """Whether every leaf of `tree` is truthy."""
  return all(tree_leaves(tree, is_leaf))


def all_leaves(iterable: Iterable, is_leaf=None) -> bool:
  """Whether every element of `iterable` is a leaf."""
  return all(tree_structure(x, is_leaf) == LEAF for x in iterable)


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
  """Turn a tree of structure `outer` of trees of structure `inner` into an `inner` tree of
  `outer` trees."""
  flat, treedef = tree_flatten(pytree_to_transpose)
  if inner_treedef is None:
    inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
  inner, outer = inner_treedef.num_leaves, outer_treedef.num_leaves
  expected = outer_treedef.compose(inner_treedef)
  if treedef != expected:
    raise TypeError(f"tree_transpose: the tree {treedef} does not have the structure "
                    f"{expected} of outer {outer_treedef} composed with inner {inner_treedef}")
  rows = [flat[i * inner:(i + 1) * inner] for i in range(outer)]
  subtrees = [tree_unflatten(outer_treedef, [row[j] for row in rows]) for j in range(inner)]
  return tree_unflatten(inner_treedef, subtrees)


def register_pytree_node_class(cls: type) -> type:
  """Class decorator: register `cls` with its `tree_flatten` method and `tree_unflatten`
  classmethod."""
  register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
  return cls


class Partial(functools.partial):
  """A `functools.partial` that is a pytree: its bound arguments are the leaves, so it can be
  passed to and returned from transformed functions."""

  def __new__(cls, func: Callable, *args: Any, **kw: Any) -> Partial:
    if isinstance(func, functools.partial):  # flatten nested partials, as JAX does
      args, kw = func.args + args, {**func.keywords, **kw}
      func = func.func
    return super().__new__(cls, func, *args, **kw)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, xs: Partial(func, *xs[0], **xs[1]))


# ----------------------------------------------------------------------------------------------
# Key paths: where a leaf sits in a tree


@dataclasses.dataclass(frozen=True)
class SequenceKey:
  """The index of a child of a tuple or list, printed `[0]`."""
  idx: int

  def __str__(self) -> str:
    return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
  """The key of a child of a dict, printed `['a']`."""
  key: Hashable

  def __str__(self) -> str:
    return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
  """The attribute of a child (a namedtuple's field), printed `.x`."""
  name: str

  def __str__(self) -> str:
    return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
  """The position of a child of a node registered without keys."""
  key: int

  def __str__(self) -> str:
    return f"[<flat index {self.key}>]"


def _key_name(key: Any) -> str:
  for field in ("idx", "key", "name"):
    if hasattr(key, field):
      return str(getattr(key, field))
  return str(key)


def keystr(keys: tuple, *, simple: bool = False, separator: str = "") -> str:
  """A key path as text: `['a'][0].x`, or with `simple` only the keys joined by `separator`."""
  if simple:
    return separator.join(_key_name(k) for k in keys)
  return separator.join(map(str, keys))


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable, flatten_func: Callable | None = None
                              ) -> None:
  """Register `nodetype` with `flatten_with_keys(x) -> ([(key, child), ...], aux)`."""
  if flatten_func is None:
    def flatten_func(x):
      key_children, aux = flatten_with_keys(x)
      return [c for _, c in key_children], aux
  register_pytree_node(nodetype, flatten_func, unflatten_func)
  _registry[nodetype] = _registry[nodetype]._replace(flatten_with_keys=flatten_with_keys)


def _keyed_children(x: Any) -> list[tuple[Any, Any]] | None:
  """The (key, child) pairs of a pytree node, None for a leaf."""
  node_type, node = _node_of(x)
  if node is None:
    return None
  if node_type is tuple or node_type is list:
    return [(SequenceKey(i), c) for i, c in enumerate(x)]
  if node_type is dict:
    return [(DictKey(k), x[k]) for k in _sorted_keys(x)]
  if node_type not in _registry:  # a namedtuple
    return [(GetAttrKey(f), c) for f, c in zip(node_type._fields, x)]
  if node.flatten_with_keys is not None:
    return list(node.flatten_with_keys(x)[0])
  return [(FlattenedIndexKey(i), c) for i, c in enumerate(node.flatten(x)[0])]


def tree_flatten_with_path(tree: Any, is_leaf=None) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
  """The leaves of `tree` with their key paths, and its structure."""
  out: list = []

  def walk(path: tuple, x: Any) -> None:
    kids = None if is_leaf is not None and is_leaf(x) else _keyed_children(x)
    if kids is None:
      out.append((path, x))
    for key, child in kids or ():
      walk(path + (key,), child)

  walk((), tree)
  return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree: Any, is_leaf=None) -> list[tuple[tuple, Any]]:
  """The (key path, leaf) pairs of `tree`."""
  return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable, tree: Any, *rest: Any, is_leaf=None) -> Any:
  """Apply `f(path, leaf, *other_leaves)` leafwise."""
  path_leaves, treedef = tree_flatten_with_path(tree, is_leaf)
  others = [treedef.flatten_up_to(r) for r in rest]
  return tree_unflatten(treedef, [f(path, leaf, *xs) for (path, leaf), *xs
                                  in zip(path_leaves, *others)])
