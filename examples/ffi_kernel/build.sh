#!/usr/bin/env bash
# Build kernel.cc into librms_norm.so against the XLA FFI headers that ship with jaxlib.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python}"
INCLUDE="$("$PYTHON" -c 'import stablejax.ffi; print(stablejax.ffi.include_dir())')"
g++ -std=c++17 -O2 -shared -fPIC -isystem "$INCLUDE" -o librms_norm.so kernel.cc
echo "built $(pwd)/librms_norm.so"
