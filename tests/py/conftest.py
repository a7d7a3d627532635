import numpy as np
import pytest

from stablejax import test_util


@pytest.fixture
def x64():
  """Run the test with enable_x64 on."""
  with test_util.x64(True):
    yield


@pytest.fixture
def rng():
  return np.random.default_rng(0)
