"""Which tests share a pytest-xdist worker under `-n 2 --dist loadgroup`.

Each test file's tests run on one worker, so its module fixtures are built
once; all of tests/serving runs on one, since its files share exports built
once per session. The root conftest.py installs the hook.
"""

import pytest

SHARED_FOLDERS = ("tests/serving",)


def group_of(path):
  """The xdist group of the test file at `path` (a posix path)."""
  for folder in SHARED_FOLDERS:
    if f"/{folder}/" in path:
      return folder
  return path


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
  if not config.pluginmanager.hasplugin("xdist"):
    return
  for item in items:
    item.add_marker(pytest.mark.xdist_group(group_of(item.path.as_posix())))
