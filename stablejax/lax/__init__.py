"""stablejax.lax: the primitives, with JAX's names and params."""
from stablejax.lax.elementwise import *  # noqa: F401,F403
from stablejax.lax.elementwise import add_p, cos_p, mul_p, neg_p, sin_p  # noqa: F401
from stablejax.lax.structural import *  # noqa: F401,F403
from stablejax.lax.structural import broadcast_in_dim_p, transpose_p  # noqa: F401
