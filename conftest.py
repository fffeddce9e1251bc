"""Test-session setup shared by the doctests in electra_tf/ and tests/.

Splits the host CPU into logical devices before TensorFlow starts, so the
distributed tests can run MirroredStrategy over several "devices" in one
process (everything else runs on the first one), and turns graph
optimisation off. Under pytest-xdist, each test file (and all of
tests/serving) runs on one worker, and the workers share the cores.
"""

import os

from tests import xdist_groups
from tests.xdist_groups import pytest_collection_modifyitems  # pylint: disable=unused-import

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# A thread count the user set is kept (and remembered for the test of it).
xdist_groups.user_intraop_threads = os.environ.get("TF_NUM_INTRAOP_THREADS")
xdist_groups.share_the_cores(os.environ, xdist_groups.num_cpus())

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
