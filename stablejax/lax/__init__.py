"""stablejax.lax: the primitives, with JAX's names and params. Each family file's `__all__` lists
its primitives and public functions; this package re-exports them (no second list here)."""
from stablejax.lax.elementwise import *  # noqa: F401,F403
from stablejax.lax.special import *  # noqa: F401,F403
from stablejax.lax.structural import *  # noqa: F401,F403
from stablejax.lax.reductions import *  # noqa: F401,F403
from stablejax.lax.misc import *  # noqa: F401,F403
from stablejax.lax.dimensions import *  # noqa: F401,F403
from stablejax.lax.dot import *  # noqa: F401,F403
from stablejax.lax.ragged_dot import *  # noqa: F401,F403
from stablejax.lax.slicing import *  # noqa: F401,F403
from stablejax.lax.bitwise import *  # noqa: F401,F403
from stablejax.lax.windowed_reductions import *  # noqa: F401,F403
from stablejax.lax.sorting import *  # noqa: F401,F403
from stablejax.lax.convolution import *  # noqa: F401,F403
from stablejax.lax.utility import *  # noqa: F401,F403
from stablejax.lax.stacking import *  # noqa: F401,F403
from stablejax.lax.rng import *  # noqa: F401,F403
from stablejax.lax.accuracy import *  # noqa: F401,F403
from stablejax.lax.control_flow.loops import *  # noqa: F401,F403,A004 (lax.map)
from stablejax.lax.control_flow.scan import *  # noqa: F401,F403
from stablejax.lax.control_flow.cond import *  # noqa: F401,F403
from stablejax.lax.control_flow.while_loop import *  # noqa: F401,F403
from stablejax.lax.control_flow.platform_dependent import *  # noqa: F401,F403
from stablejax.lax.control_flow.solves import *  # noqa: F401,F403
from stablejax.lax.call import *  # noqa: F401,F403
from stablejax.lax.composite import *  # noqa: F401,F403
from stablejax.lax.custom_derivatives import *  # noqa: F401,F403
from stablejax.lax.callback import *  # noqa: F401,F403
from stablejax.lax.ffi import *  # noqa: F401,F403
from stablejax.lax.random import *  # noqa: F401,F403
from stablejax.lax.exported_call import *  # noqa: F401,F403
from stablejax.lax import linalg  # noqa: F401  (jax.lax.linalg)
from stablejax.lax.fft import *  # noqa: F401,F403
from stablejax.lax.parallel import *  # noqa: F401,F403
from stablejax.lax.sharding import *  # noqa: F401,F403
from stablejax.lax.shard_map import *  # noqa: F401,F403
from stablejax.lax.state import *  # noqa: F401,F403
