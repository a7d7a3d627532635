"""Splash attention: softmax attention under a (per-head) mask and segment ids, for multi-head,
grouped and multi-query attention. JAX runs it as a blockwise Pallas TPU kernel; stablejax
computes what that kernel computes with its dense reference (`attention_reference`, float32
logits, the kernel's mask value, soft cap and sinks), so values agree to float32 rounding and
gradients come from differentiating it. Block sizes only tune JAX's kernel: they are kept
and unused."""
from __future__ import annotations

import dataclasses
import enum
import functools
from typing import Any, Callable, NamedTuple

import numpy as np

from stablejax import numpy as jnp
from stablejax.ad_checkpoint import checkpoint_name
from stablejax.api import vmap
from stablejax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as mask_lib
from stablejax.jit import jit
from stablejax.tree_util import register_pytree_node_class

__all__ = ["BlockSizes", "DEFAULT_MASK_VALUE", "QKVLayout", "SegmentIds", "SplashAttentionKernel",
           "attention_reference", "make_attention_reference", "make_masked_mha_reference",
           "make_masked_mqa_reference", "make_splash_mha", "make_splash_mha_single_device",
           "make_splash_mqa", "make_splash_mqa_single_device"]

DEFAULT_MASK_VALUE = -0.7 * float(np.finfo(np.dtype("float32")).max)


class SegmentIds(NamedTuple):
  """Segment ids of the queries and keys: only equal ids attend to each other."""
  q: Any
  kv: Any


class QKVLayout(enum.IntEnum):
  HEAD_DIM_MINOR = enum.auto()
  SEQ_MINOR = enum.auto()


@dataclasses.dataclass(frozen=True)
class BlockSizes:
  """The tile sizes of JAX's kernel (no effect on values)."""
  block_q: int
  block_kv: int
  block_kv_compute: int | None = None
  block_q_dkv: int | None = None
  block_kv_dkv: int | None = None
  block_kv_dkv_compute: int | None = None
  block_q_dq: int | None = None
  block_kv_dq: int | None = None
  use_fused_bwd_kernel: bool = False
  q_layout: QKVLayout = QKVLayout.HEAD_DIM_MINOR
  k_layout: QKVLayout = QKVLayout.HEAD_DIM_MINOR
  v_layout: QKVLayout = QKVLayout.HEAD_DIM_MINOR

  def __post_init__(self):
    if self.block_kv_compute is None:
      object.__setattr__(self, "block_kv_compute", self.block_kv)
    if self.block_kv_dkv_compute is None:
      object.__setattr__(self, "block_kv_dkv_compute", self.block_kv_dkv)
    if self.use_fused_bwd_kernel and (self.block_q_dq is not None
                                      or self.block_kv_dq is not None):
      raise ValueError("Block sizes for dq kernel are not needed with a fused kernel.")

  @property
  def has_backward_blocks(self) -> bool:
    blocks = (self.block_q_dkv, self.block_kv_dkv, self.block_kv_dkv_compute)
    if not self.use_fused_bwd_kernel:
      blocks += (self.block_q_dq, self.block_kv_dq)
    return all(b is not None for b in blocks)

  @classmethod
  def get_default(cls) -> BlockSizes:
    return BlockSizes(block_q=128, block_kv_compute=128, block_kv=128, block_q_dkv=128,
                      block_kv_dkv=128, block_kv_dkv_compute=128, block_q_dq=128,
                      block_kv_dq=128)


def attention_reference(mask: Any, q: Any, k: Any, v: Any, segment_ids: SegmentIds | None,
                        sinks: Any = None, *, mask_value: float = DEFAULT_MASK_VALUE,
                        save_residuals: bool = False, custom_type: str = "flash",
                        attn_logits_soft_cap: float | None = None) -> Any:
  """One head: softmax of the masked float32 logits q k^T (with the optional soft cap and
  sink), times v; with `save_residuals`, also the log-sum-exp of each query's logits."""
  logits = jnp.einsum("sd,td->st", q.astype(jnp.float32), k.astype(jnp.float32))
  if segment_ids is not None:
    mask = jnp.logical_and(mask, segment_ids.q[:, None] == segment_ids.kv[None, :])
  if attn_logits_soft_cap is not None:
    logits = jnp.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
  logits = jnp.where(mask, logits, mask_value)
  m = logits.max(axis=-1)
  if sinks is not None:
    sinks = sinks.astype(logits.dtype)
    m = jnp.maximum(m, sinks)
  s = jnp.exp(logits - m[..., None])
  total = s.sum(axis=-1) + (0 if sinks is None else jnp.exp(sinks - m))
  out = jnp.einsum("st,td->sd", s / total[..., None], v.astype(jnp.float32))
  return (out, (m + jnp.log(total),)) if save_residuals else out


def _multi_head(func: Callable, is_mqa: bool, mask: Any, q: Any, k: Any, v: Any,
                segment_ids: Any, sinks: Any) -> Any:
  """`func` per head: keys shared (MQA), one per head, or grouped (each key head serves
  consecutive query heads)."""
  if is_mqa:
    return vmap(func, in_axes=(0, 0, None, None, None, 0))(mask, q, k, v, segment_ids, sinks)
  heads, kv_heads = q.shape[0], k.shape[0]
  if kv_heads == heads:
    return vmap(func, in_axes=(0, 0, 0, 0, None, 0))(mask, q, k, v, segment_ids, sinks)
  if heads % kv_heads:
    raise ValueError(f"{heads} query heads are not a multiple of {kv_heads} key heads")
  group = heads // kv_heads
  grouped = vmap(vmap(func, in_axes=(0, 0, None, None, None, 0)),
                 in_axes=(0, 0, 0, 0, None, 0))
  out = grouped(mask.reshape((kv_heads, group) + mask.shape[1:]),
                q.reshape((kv_heads, group) + q.shape[1:]), k, v, segment_ids,
                None if sinks is None else sinks.reshape(kv_heads, group))
  merge = lambda x: x.reshape((heads,) + x.shape[2:])
  return (merge(out[0]), (merge(out[1][0]),)) if isinstance(out, tuple) else merge(out)


def make_attention_reference(mask: mask_lib.Mask | np.ndarray, is_mqa: bool,
                             backward_impl: str = "vanilla", **params: Any) -> Callable:
  """The dense reference of a splash kernel over `mask` (heads, q_len, kv_len):
  `f(q, k, v, segment_ids=None, sinks=None, *, mask_value, save_residuals,
  attn_logits_soft_cap)`."""
  @functools.partial(jit, static_argnames=["mask_value", "save_residuals",
                                           "attn_logits_soft_cap"])
  def wrapped(mask: Any, q: Any, k: Any, v: Any, segment_ids: SegmentIds | None = None,
              sinks: Any = None, *, mask_value: float = DEFAULT_MASK_VALUE,
              save_residuals: bool = False, attn_logits_soft_cap: float | None = None) -> Any:
    func = functools.partial(attention_reference, mask_value=mask_value,
                             save_residuals=save_residuals,
                             attn_logits_soft_cap=attn_logits_soft_cap, **params)
    return _multi_head(func, is_mqa, mask, q, k, v, segment_ids, sinks)
  return functools.partial(wrapped, jnp.array(mask[:, :, :]))


make_masked_mha_reference = functools.partial(make_attention_reference, is_mqa=False)
make_masked_mqa_reference = functools.partial(make_attention_reference, is_mqa=True)


@register_pytree_node_class
class SplashAttentionKernel:
  """A made splash kernel: `kernel(q, k, v, segment_ids=None, sinks=None)` with q of shape
  (heads, q_len, head_dim), k and v (kv_heads, kv_len, head_dim) or, for MQA, (kv_len,
  head_dim); the result in q's dtype. A pytree (its mask is the leaf), as JAX's."""

  def __init__(self, mask: np.ndarray, **kwargs: Any):
    self.mask, self.kwargs = mask, kwargs

  def __call__(self, q: Any, k: Any, v: Any, segment_ids: SegmentIds | None = None,
               sinks: Any = None) -> Any:
    kw = self.kwargs
    func = functools.partial(attention_reference, mask_value=kw["mask_value"],
                             save_residuals=kw["save_residuals"],
                             attn_logits_soft_cap=kw["attn_logits_soft_cap"])
    out = _multi_head(func, kw["is_mqa"], jnp.asarray(self.mask), q, k, v, segment_ids, sinks)
    if kw["save_residuals"]:
      out, residuals = out
      return out.astype(q.dtype), residuals
    out = out.astype(q.dtype)
    name = kw["residual_checkpoint_name"]
    return out if name is None else checkpoint_name(out, name)

  def tree_flatten(self):
    return (self.mask,), self.kwargs

  @classmethod
  def tree_unflatten(cls, kwargs: dict, leaves: Any) -> SplashAttentionKernel:
    return cls(leaves[0], **kwargs)


def _make_splash_attention(mask: Any, *, block_sizes: BlockSizes | None = None, is_mqa: bool,
                           save_residuals: bool = False, mask_value: float = DEFAULT_MASK_VALUE,
                           attn_logits_soft_cap: float | None = None,
                           downcast_smem_data: bool = True, head_shards: int,
                           q_seq_shards: int, residual_checkpoint_name: str | None = None,
                           interpret: bool = False) -> SplashAttentionKernel:
  if len(mask.shape) != 3:
    raise ValueError(f"Unexpected mask shape: {mask.shape}")
  if isinstance(mask, np.ndarray):
    mask = mask_lib.MultiHeadMask([mask_lib.NumpyMask(m) for m in mask])
  dense = np.asarray(mask[:, :, :], np.bool_)
  return SplashAttentionKernel(dense, block_sizes=block_sizes or BlockSizes.get_default(),
                               is_mqa=is_mqa, save_residuals=save_residuals,
                               mask_value=mask_value, attn_logits_soft_cap=attn_logits_soft_cap,
                               residual_checkpoint_name=residual_checkpoint_name)


make_splash_mha = functools.partial(_make_splash_attention, is_mqa=False)
make_splash_mqa = functools.partial(_make_splash_attention, is_mqa=True)
make_splash_mha_single_device = functools.partial(make_splash_mha, is_mqa=False, head_shards=1,
                                                  q_seq_shards=1)
make_splash_mqa_single_device = functools.partial(make_splash_mha, is_mqa=True, head_shards=1,
                                                  q_seq_shards=1)
