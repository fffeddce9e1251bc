"""How tests share pytest-xdist workers under `-n 2 --dist loadgroup`.

Each test file's tests run on one worker, so its module fixtures are built
once; all of tests/serving runs on one, since its files share exports built
once per session. The workers share the cores: each TensorFlow gets its
share of intra-op threads. The root conftest.py installs both.
"""

import os

import pytest

SHARED_FOLDERS = ("tests/serving",)


def group_of(path):
  """The xdist group of the test file at `path` (a posix path)."""
  for folder in SHARED_FOLDERS:
    if f"/{folder}/" in path:
      return folder
  return path


# TF_NUM_INTRAOP_THREADS as the user set it before the session (None if
# unset); recorded by the root conftest.
user_intraop_threads = None


def share_the_cores(environ, num_cpus):
  """Sets TF_NUM_INTRAOP_THREADS in `environ` to this worker's share of
  `num_cpus` when several xdist workers run (a value already set is kept).

  Without it each worker's TensorFlow, and each process a test starts, runs
  a thread pool as wide as the machine: N workers oversubscribe it N times.
  """
  workers = int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
  if workers > 1:
    environ.setdefault("TF_NUM_INTRAOP_THREADS",
                       str(max(1, num_cpus // workers)))


def num_cpus():
  """The cores this process may run on."""
  return len(os.sched_getaffinity(0))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
  if not config.pluginmanager.hasplugin("xdist"):
    return
  for item in items:
    item.add_marker(pytest.mark.xdist_group(group_of(item.path.as_posix())))
