"""`stablejax.distributed`: two processes on loopback, 2 CPU devices each, one psum over all 4.

Run as a script, this file is one worker: `python test_distributed.py PROCESS_ID PORT` prints
one `RESULT {json}` line.
"""
from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import distributed, lax
from stablejax.sharding import PartitionSpec as P

NUM_PROCESSES = 2
LOCAL_DEVICES = 2
TIMEOUT_S = 120  # the whole run, both processes; a hung one is killed


def _psum_over_global_devices() -> sj.Array:
  """psum over a mesh of the devices of all processes: each device contributes its index on the
  mesh axis, so each gets 0+1+2+3."""
  mesh = sj.make_mesh((sj.device_count(),), ("i",))
  per_device = lambda: lax.psum(lax.axis_index("i").astype(jnp.float32)[None], "i")
  return sj.jit(sj.shard_map(per_device, mesh=mesh, in_specs=(), out_specs=P("i")))()


def _gather_error(x: sj.Array) -> str | None:
  """The error of reading a whole Array that spans other processes' devices (None if none)."""
  try:
    np.asarray(x)
  except RuntimeError as e:
    return str(e)
  return None


def _worker(process_id: int, port: int) -> None:
  address = f"127.0.0.1:{port}"
  distributed.initialize(address, NUM_PROCESSES, process_id, initialization_timeout=30,
                         coordinator_bind_address=address)
  x = jnp.arange(3.0) * 2  # eager work runs on this process's first device
  total = _psum_over_global_devices()
  result = {
      "initialized": distributed.is_initialized(),
      "device_count": sj.device_count(), "local_device_count": sj.local_device_count(),
      "process_index": sj.process_index(), "process_count": sj.process_count(),
      "local_process_indices": [d.process_index for d in sj.local_devices()],
      "eager": np.asarray(x).tolist(),
      "psum": [np.asarray(s.data).tolist() for s in total.addressable_shards],
      "psum_devices": [s.device.process_index for s in total.addressable_shards],
      "gather_error": _gather_error(total)}
  print("RESULT " + json.dumps(result), flush=True)
  distributed.shutdown()


def _env(**extra: str) -> dict:
  """The environment of a child process that imports this checkout's stablejax."""
  path = os.pathsep.join([str(pathlib.Path(__file__).resolve().parents[2]),
                          os.environ.get("PYTHONPATH", "")])
  return dict(os.environ, PYTHONPATH=path, **extra)


def _free_port() -> int:
  with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def _run_workers(logs: pathlib.Path) -> list[dict]:
  """Launch the workers (output to files under `logs`), wait for them within TIMEOUT_S, kill
  them on any failure; their results."""
  port = _free_port()
  env = _env(STABLEJAX_NUM_CPU_DEVICES=str(LOCAL_DEVICES), STABLEJAX_PLATFORM="cpu")
  outs = [logs / f"worker{i}.out" for i in range(NUM_PROCESSES)]
  procs = []
  deadline = time.monotonic() + TIMEOUT_S
  try:
    for i, out in enumerate(outs):
      with open(out, "w") as f:
        procs.append(subprocess.Popen([sys.executable, __file__, str(i), str(port)], env=env,
                                      stdout=f, stderr=subprocess.STDOUT))
    for p, out in zip(procs, outs):
      code = p.wait(timeout=max(1.0, deadline - time.monotonic()))
      assert code == 0, f"worker failed ({code}):\n{out.read_text()[-4000:]}"
  finally:
    for p in procs:
      if p.poll() is None:
        p.kill()
        p.wait()
  return [json.loads(next(line[len("RESULT "):] for line in out.read_text().splitlines()
                          if line.startswith("RESULT "))) for out in outs]


@pytest.mark.slow
def test_two_processes_psum_over_four_devices(tmp_path):
  results = _run_workers(tmp_path)
  for process_id, r in enumerate(results):
    assert r["initialized"]
    assert r["device_count"] == NUM_PROCESSES * LOCAL_DEVICES
    assert r["local_device_count"] == LOCAL_DEVICES
    assert r["process_index"] == process_id
    assert r["process_count"] == NUM_PROCESSES
    assert r["local_process_indices"] == [process_id] * LOCAL_DEVICES
    assert r["eager"] == [0.0, 2.0, 4.0]
    assert r["psum"] == [[6.0]] * LOCAL_DEVICES
    assert r["psum_devices"] == [process_id] * LOCAL_DEVICES
    assert "other processes" in r["gather_error"]


@pytest.mark.slow
def test_no_coordinator_fails_within_the_timeout():
  """A process whose coordinator never comes ends (jaxlib aborts it, as in JAX) instead of
  hanging."""
  code = ("import stablejax as sj; "
          f"sj.distributed.initialize('127.0.0.1:{_free_port()}', 2, 1, initialization_timeout=1)")
  run = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True,
                       timeout=60)
  assert run.returncode != 0
  assert "DEADLINE_EXCEEDED" in run.stderr, run.stderr[-4000:]


def test_single_process_state():
  assert not distributed.is_initialized()
  assert sj.process_index() == 0
  assert sj.process_count() == 1
  assert sj.local_device_count() == sj.device_count()


@pytest.mark.parametrize("args, error", [
    (("127.0.0.1:1234", 2, 2), ValueError),
    (("127.0.0.1:1234", 2, -1), ValueError),
    (("127.0.0.1:1234", 2, 1.0), TypeError),
    (("127.0.0.1:1234", "2", 0), TypeError),
    (("127.0.0.1", 2, 0), ValueError),
    ((None, 2, 0), ValueError),
])
def test_initialize_bad_arguments(args, error):
  with pytest.raises(error, match="distributed.initialize"):
    distributed.initialize(*args)
  assert not distributed.is_initialized()


def test_initialize_unsupported_options():
  with pytest.raises(NotImplementedError, match="local_device_ids"):
    distributed.initialize("127.0.0.1:1234", 2, 0, local_device_ids=[0])
  with pytest.raises(NotImplementedError, match="cluster"):
    distributed.initialize(cluster_detection_method="mpi4py")


def test_initialize_after_the_cpu_client_exists():
  sj.devices("cpu")  # makes the CPU client
  with pytest.raises(RuntimeError, match="must be called before"):
    distributed.initialize("127.0.0.1:1234", 1, 0)
  assert not distributed.is_initialized()


if __name__ == "__main__":
  _worker(int(sys.argv[1]), int(sys.argv[2]))
