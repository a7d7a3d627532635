"""jax.experimental.pallas.ops.tpu.splash_attention: the attention masks and the splash
attention kernels' names, computed as their dense reference (see `splash_attention_kernel`)."""
from stablejax.experimental.pallas.ops.tpu.splash_attention.splash_attention_kernel import (  # noqa: F401,E501
    BlockSizes, QKVLayout, SegmentIds, make_masked_mha_reference, make_masked_mqa_reference,
    make_splash_mha, make_splash_mha_single_device, make_splash_mqa,
    make_splash_mqa_single_device)
from stablejax.experimental.pallas.ops.tpu.splash_attention.splash_attention_mask import (  # noqa: F401,E501
    CausalMask, FullMask, LocalMask, Mask, MultiHeadMask, NumpyMask, make_causal_mask,
    make_local_attention_mask, make_random_mask)
