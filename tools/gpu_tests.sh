#!/usr/bin/env bash
# The test suite on a machine without registry access, such as the lent GPU machines (Python
# 3.12 with jax, jaxlib and jax-cuda13-plugin preinstalled). The pure-Python test dependencies
# travel as wheels in $WHEELS (default .whl/), fetched beforehand on a machine that reaches PyPI:
#   python3 -m pip download --no-deps --only-binary=:all: -d .whl lit filecheck pytest-xdist \
#     execnet pytest-timeout hypothesis sortedcontainers attrs
# Runs the suite on the default platform (CUDA when the plugin is present), then again with
# STABLEJAX_PLATFORM=cpu (and the JAX oracle on the CPU too); extra arguments go to pytest.
set -uo pipefail
cd "$(dirname "$0")/.."
wheels="${WHEELS:-.whl}"
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . || exit 1
if compgen -G "$wheels/*.whl" > /dev/null; then
  python3 -m pip install -q --no-deps --no-index "$wheels"/*.whl || exit 1
fi
status=0
echo "== default platform"
python3 -m pytest -q "$@" || status=1
echo "== STABLEJAX_PLATFORM=cpu"
STABLEJAX_PLATFORM=cpu JAX_PLATFORMS=cpu python3 -m pytest -q "$@" || status=1
exit $status
