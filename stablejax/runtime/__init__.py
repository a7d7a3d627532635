"""The runtime: devices, `Array`, `device_put`, and compiled executables (through PJRT)."""
from stablejax.runtime.array import Array, device_put
from stablejax.runtime.executable import Executable, compile_module
from stablejax.runtime.pjrt import (
    CompileError, Device, available_platforms, default_device, devices, platform_of)

__all__ = ["Array", "CompileError", "Device", "Executable", "available_platforms",
           "compile_module", "default_device", "device_put", "devices", "platform_of"]
