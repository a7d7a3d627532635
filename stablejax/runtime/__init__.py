"""The runtime: devices, `Array`, `device_put`, and compiled executables (through PJRT; IREE is a
second backend: `backend.py`, `iree.py`)."""
from stablejax.runtime.array import Array, device_put
from stablejax.runtime.backend import Backend, get_backend
from stablejax.runtime.executable import Executable, compile_module
from stablejax.runtime.pjrt import (
    CompileError, Device, available_platforms, default_device, devices, platform_of)
from stablejax.runtime.pjrt import (device_count, local_device_count, local_devices,
                                    process_count, process_index)
from stablejax.runtime import iree  # noqa: F401  (registers the IREE backend; iree imported lazily)

__all__ = ["Array", "Backend", "CompileError", "Device", "Executable", "available_platforms",
           "compile_module", "default_device", "device_put", "devices", "get_backend",
           "platform_of"]
