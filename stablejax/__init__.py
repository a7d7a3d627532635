"""stablejax: trace Python into jaxprs, transform them, lower them to StableHLO and run them."""
import importlib.util as _importlib_util
import os as _os

# Keep XLA's C++ INFO logs (the PJRT client's device counts) off stderr unless asked for, as JAX
# does: the level is read when jaxlib loads, so it is set before anything imports jaxlib.
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")


def _refuse_mixed_checkouts() -> None:
  """Raise ImportError if `stablejax.lowering` or `stablejax.passes` would come from another tree.

  They are the top-level folders `lowering/` and `passes/` of a checkout (an editable install
  maps them there) or subpackages of an installed `stablejax/` (a wheel). A `stablejax` put on
  `sys.path` by hand from one checkout would otherwise run with another checkout's installed
  lowering and passes, silently. Only paths are looked at: nothing is imported.
  """
  package_dir = _os.path.dirname(_os.path.realpath(__file__))
  for sub in ("lowering", "passes"):
    spec = _importlib_util.find_spec(f"{__name__}.{sub}")
    if spec is None or spec.origin is None:
      raise ImportError(f"{__name__}.{sub} not found for the stablejax package in {package_dir}: "
                        f"install that checkout (pip install -e .)")
    found = _os.path.dirname(_os.path.realpath(spec.origin))
    expected = (_os.path.join(package_dir, sub),                   # a wheel
                _os.path.join(_os.path.dirname(package_dir), sub))  # a checkout
    if found not in expected:
      raise ImportError(f"mixed stablejax trees: the package is imported from {package_dir} but "
                        f"{__name__}.{sub} from {found} (another checkout's install); run this "
                        f"checkout's own environment, or pip install -e . in it")


_refuse_mixed_checkouts()  # before anything below imports them

from stablejax.config import config
from stablejax import core, lax, tree_util
from stablejax import tree  # noqa: F401
from stablejax import numpy  # noqa: F401  (installs the operators of traced values and arrays)
from stablejax import pipeline  # noqa: F401  (eager primitives compile and run on a device)
from stablejax.api import (grad, hessian, jacfwd, jacrev, jvp, linearize, make_jaxpr,
                           value_and_grad, vjp, vmap)
from stablejax.api import block_until_ready, device_get, eval_shape, jacobian
from stablejax.stages import ShapeDtypeStruct
from stablejax.jit import jit
from stablejax.jax_alias import install_as_jax
from stablejax.util import clear_caches
from stablejax.flops import flops
from stablejax.explorer import explore  # the explorer page (stablejax only: no JAX name)
from stablejax.custom_derivatives import custom_jvp, custom_vjp
from stablejax.ad_checkpoint import checkpoint, checkpoint_policies, remat
from stablejax.callback import pure_callback
from stablejax import debug  # noqa: F401
from stablejax import ffi  # noqa: F401
from stablejax.basearray import Array  # (the public type; runtime.Array is the concrete one)
from stablejax.runtime import devices
from stablejax.runtime import (device_count, local_device_count, local_devices, process_count,
                               process_index)
from stablejax import sharding  # noqa: F401
from stablejax.sharding import make_mesh
from stablejax.api import device_put  # (traced values too: the device_put primitive)
from stablejax.shard_map import shard_map  # noqa: F811  (the function shadows its module)
from stablejax import random  # noqa: F401
from stablejax import nn  # noqa: F401
from stablejax import scipy  # noqa: F401
from stablejax import export  # noqa: F401
from stablejax import distributed  # noqa: F401

from stablejax.pmap import pmap  # noqa: F811  (the function shadows its module)
from stablejax.lax.sharding import reshard
from stablejax import dtypes  # noqa: F401
from stablejax.dtypes import float0  # noqa: F401
from stablejax import errors  # noqa: F401
from stablejax import dispatch  # noqa: F401
from stablejax.sharding import set_mesh
from stablejax import mesh_axes as _mesh_axes
# jax.sharding has them, but they lay values out with lax (above stablejax.sharding)
sharding.auto_axes, sharding.explicit_axes = _mesh_axes.auto_axes, _mesh_axes.explicit_axes

# JAX's other top-level names: config options as context managers, scopes, environment
from stablejax import version  # noqa: F401
from stablejax.version import __version__, __version_info__  # noqa: F401
from stablejax.config import (  # noqa: F401
    debug_infs, debug_nans, default_device, default_matmul_precision, disable_jit, enable_x64,
    explain_cache_misses, log_compiles, numpy_dtype_promotion, numpy_rank_promotion,
    check_tracer_leaks, checking_leaks, enable_checks, no_execution, no_tracing, transfer_guard,
    transfer_guard_device_to_device, transfer_guard_device_to_host,
    transfer_guard_host_to_device)
from stablejax.api import fwd_and_bwd, linear_transpose, typeof  # noqa: F401
from stablejax.compile_time_eval import ensure_compile_time_eval  # noqa: F401
from stablejax.scopes import named_call, named_scope  # noqa: F401
from stablejax.custom_derivatives import closure_convert, custom_gradient  # noqa: F401
from stablejax.environment import (  # noqa: F401
    copy_to_host_async, default_backend, effects_barrier, host_count, host_id, host_ids,
    live_arrays, print_environment_info, process_indices)
from stablejax.make_array import (  # noqa: F401
    make_array_from_callback, make_array_from_process_local_data,
    make_array_from_single_device_arrays)
from stablejax.runtime import Device  # noqa: F401
from stablejax.runtime.array import Shard  # noqa: F401
from stablejax.sharding import NamedSharding, P  # noqa: F401
from stablejax.interpreters import ad  # noqa: F401
from stablejax import experimental  # noqa: F401
from stablejax import custom_batching  # noqa: F401
from stablejax import debugger  # noqa: F401
from stablejax import dlpack, lib, monitoring, ops, profiler  # noqa: F401
from stablejax import typing  # noqa: F401

# q-top2: JAX's PRNG and numerics config options, user contexts, memory spaces, api_util, image
from stablejax.config import (  # noqa: F401
    allow_f16_reductions, array_garbage_collection_guard, auto_pcast, debug_key_reuse,
    default_prng_impl, enable_custom_prng, jax2tf_associative_scan_reductions, legacy_prng_key,
    make_user_context, remove_size_one_mesh_axis_from_type, softmax_custom_jvp,
    threefry_partitionable, thread_guard)
from stablejax import image, memory  # noqa: F401
from stablejax.indexing import ds  # noqa: F401
from stablejax.shard_map import smap  # noqa: F401
from stablejax import api_util  # noqa: F401

# mutable refs
from stablejax import ref  # noqa: F401
from stablejax.ref import Ref, empty_ref, free_ref, freeze, new_ref

__all__ = ["Array", "config", "core", "device_put", "devices", "lax", "tree_util", "grad",
           "hessian", "install_as_jax", "jacfwd", "jacrev", "jit", "jvp", "linearize",
           "make_jaxpr", "value_and_grad", "vjp", "vmap", "Ref", "empty_ref", "free_ref",
           "freeze", "new_ref", "ref"]

from stablejax.interpreters import rule_checks as _rule_checks

_rule_checks.seal_builtin_rules()  # the transformation rules registered by now are stablejax's
