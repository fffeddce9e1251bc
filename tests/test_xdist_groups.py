"""README's test command keeps each file on one worker: checked by running
it on a small tree of tests that log where their fixtures are built."""

import os
import subprocess
import sys

import pytest

from tests import xdist_groups

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFTEST = "from tests.xdist_groups import pytest_collection_modifyitems\n"
LOG = """
import os

def log(what):
  with open(os.environ["FIXTURE_LOG"], "a") as f:
    f.write(f"{what} {os.getpid()}\\n")
"""
SHARED = """
import pytest
from log import log

@pytest.fixture(scope="session")
def session_fixture():
  log("session")
"""
TESTS = """
import time, pytest
from log import log

@pytest.fixture(scope="module")
def module_fixture():
  log("module {name}")

@pytest.mark.parametrize("k", range(6))
def test_{name}(module_fixture, {extra}k):
  log("test {name}")
  time.sleep(0.05)
"""


def test_groups_are_files_and_the_shared_folders():
  assert xdist_groups.group_of("/r/tests/test_a.py") == "/r/tests/test_a.py"
  assert xdist_groups.group_of("/r/tests/serving/test_b.py") == (
      "tests/serving")


def test_workers_share_the_cores():
  def shared(environ, num_cpus):
    xdist_groups.share_the_cores(environ, num_cpus)
    return environ.get("TF_NUM_INTRAOP_THREADS")

  assert shared({"PYTEST_XDIST_WORKER_COUNT": "2"}, 2) == "1"
  assert shared({"PYTEST_XDIST_WORKER_COUNT": "2"}, 8) == "4"
  assert shared({"PYTEST_XDIST_WORKER_COUNT": "4"}, 2) == "1"
  assert shared({"PYTEST_XDIST_WORKER_COUNT": "1"}, 2) is None
  assert shared({}, 2) is None
  assert shared({"PYTEST_XDIST_WORKER_COUNT": "2",
                 "TF_NUM_INTRAOP_THREADS": "3"}, 2) == "3"
  # This session: set before TensorFlow started (the user's own value
  # kept), and inherited by the processes tests start.
  if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    assert os.environ["TF_NUM_INTRAOP_THREADS"] == (
        xdist_groups.user_intraop_threads or str(max(
            1, xdist_groups.num_cpus()
            // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))


def test_each_file_runs_on_one_worker_and_builds_its_fixtures_once(tmp_path):
  pytest.importorskip("xdist")
  tests = tmp_path / "tests"
  (tests / "serving").mkdir(parents=True)
  (tmp_path / "conftest.py").write_text(CONFTEST)
  (tmp_path / "log.py").write_text(LOG)
  (tests / "serving" / "conftest.py").write_text(SHARED)
  files = {"test_a": tests, "test_b": tests, "test_c": tests,
           "test_d": tests / "serving", "test_e": tests / "serving"}
  for name, folder in files.items():
    extra = "session_fixture, " if folder.name == "serving" else ""
    (folder / f"{name}.py").write_text(TESTS.format(name=name, extra=extra))
  log = tmp_path / "fixtures.log"
  done = subprocess.run(
      [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist",
       "loadgroup", "-p", "no:cacheprovider",
       str(tests)], cwd=tmp_path, capture_output=True, text=True,
      env={**os.environ, "FIXTURE_LOG": str(log),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), ROOT])})
  assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
  entries = [line.rsplit(" ", 1) for line in log.read_text().splitlines()]
  setups = [what for what, _ in entries if not what.startswith("test ")]
  # Every module fixture, and the folder's session fixture, built once.
  assert sorted(setups) == sorted(
      [f"module {name}" for name in files] + ["session"]), setups
  workers = {}
  for what, pid in entries:
    if what.startswith("test "):
      folder = files[what.split()[1]].name
      workers.setdefault(folder if folder == "serving" else what,
                         set()).add(pid)
  assert all(len(pids) == 1 for pids in workers.values()), workers
