"""Test-session setup shared by the doctests in electra_tf/ and tests/.

Splits the host CPU into logical devices before TensorFlow starts, so the
distributed tests can run MirroredStrategy over several "devices" in one
process (everything else runs on the first one), and turns graph
optimisation off.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # pylint: disable=g-import-not-at-top
import tensorflow as tf  # pylint: disable=g-import-not-at-top

NUM_LOGICAL_CPUS = 4

_cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    _cpu, [tf.config.LogicalDeviceConfiguration()] * NUM_LOGICAL_CPUS)

# Graph optimisation (grappler) takes more time than the tiny test graphs
# save; tests run the plain graphs. Grappler's rewrites are checked against
# them in tests/training/test_loop.py, and the tests that run commands in
# subprocesses run with it.
tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
  """Under pytest-xdist (`-n 2 --dist loadgroup`), keeps each file's tests
  on one worker, and all of tests/serving on one (they share exports built
  once per session)."""
  if not config.pluginmanager.hasplugin("xdist"):
    return
  for item in items:
    path = item.path.as_posix()
    group = "tests/serving" if "/tests/serving/" in path else path
    item.add_marker(pytest.mark.xdist_group(group))
