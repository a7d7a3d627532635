"""Pytrees: nested tuples, lists, dicts, None, namedtuples and registered node types."""
from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable, NamedTuple


class _NodeType(NamedTuple):
  flatten: Callable[[Any], tuple[Iterable, Hashable]]
  unflatten: Callable[[Hashable, list], Any]


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
    self._hash = hash((node_type, aux, children))

  def __eq__(self, other) -> bool:
    return (self is other or isinstance(other, PyTreeDef) and self._hash == other._hash and
            self.node_type is other.node_type and self.aux == other.aux and
            self.children == other.children)

  def __hash__(self) -> int:
    return self._hash

  @property
  def num_nodes(self) -> int:
    return 1 + sum(c.num_nodes for c in self.children)

  def unflatten(self, leaves: Iterable) -> Any:
    return tree_unflatten(self, leaves)

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
  return tree_flatten(tree, is_leaf)[0]


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
