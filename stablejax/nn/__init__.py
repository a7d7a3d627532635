"""stablejax.nn: jax.nn's activation functions, normalizations, attention and initializers."""
from stablejax.nn import initializers
from stablejax.nn.functions import (
    celu, dot_product_attention, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh,
    identity, leaky_relu, log1mexp, log_sigmoid, log_softmax, logmeanexp, logsumexp, mish,
    one_hot, relu, relu6, selu, sigmoid, silu, soft_sign, softmax, softplus, sparse_plus,
    sparse_sigmoid, squareplus, standardize, swish, tanh)
from stablejax.nn.scaled_dot import (get_scaled_dot_general_config, scaled_dot_general,
                                     scaled_matmul)

__all__ = ["celu", "dot_product_attention", "elu", "gelu", "get_scaled_dot_general_config", "glu",
           "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity", "initializers",
           "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "logsumexp",
           "mish", "one_hot", "relu", "relu6", "scaled_dot_general", "scaled_matmul", "selu",
           "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid",
           "squareplus", "standardize", "swish", "tanh"]
