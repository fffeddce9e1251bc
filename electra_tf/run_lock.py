"""One run per directory: a lock file naming the run that holds it.

`RunLock(directory)` is a context manager. Entering creates
`<directory>/RUN_LOCK` (or another `name`, e.g. one per builder worker)
holding the host, process id and start time, and
raises `RunLockError` naming the holder if another live run has it. A lock
left by a run that died (kill -9, a crashed machine) is taken over when its
holder is a process of this host that no longer exists; a lock of another
host is refused, with the command to remove it by hand.

On local filesystems the file is created exclusively (O_EXCL), so two runs
starting at once cannot both get it. Object stores (gs://) have no
exclusive create through `tf.io.gfile`: there the lock is checked, then
written, and two runs starting within the same second can both pass; it
still stops every later second run.
"""

import json
import os
import socket
import time

import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf import output_files

LOCK_FILE = "RUN_LOCK"


class RunLockError(errors.ElectraError):
  """Another run holds the directory."""


def _holder_alive(holder):
  if holder.get("host") != socket.gethostname():
    return True  # cannot tell: assume it runs
  try:
    os.kill(int(holder.get("pid", -1)), 0)
  except ProcessLookupError:
    return False
  except (PermissionError, ValueError):
    return True
  return True


class RunLock:
  """Holds `<directory>/RUN_LOCK` for the duration of a `with` block."""

  def __init__(self, directory, what="run", name=LOCK_FILE):
    self.directory = directory
    self.path = os.path.join(directory, name)
    self.what = what
    self._held = False
    self._created_directory = False

  def _describe(self):
    return {"host": socket.gethostname(), "pid": os.getpid(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S"), "what": self.what}

  def _read(self):
    try:
      with tf.io.gfile.GFile(self.path) as f:
        return json.load(f)
    except (tf.errors.NotFoundError, json.JSONDecodeError):
      return None

  def _create_local(self, text):
    try:
      fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
      return False
    with os.fdopen(fd, "w") as f:
      f.write(text)
    return True

  def _create(self, text):
    if "://" not in self.path:
      return self._create_local(text)
    if tf.io.gfile.exists(self.path):
      return False
    with tf.io.gfile.GFile(self.path, "w") as f:
      f.write(text)
    return True

  def __enter__(self):
    self._created_directory = not tf.io.gfile.isdir(self.directory)
    output_files.make_dir(self.directory)
    text = json.dumps(self._describe())
    for _ in range(2):
      try:
        created = self._create(text)
      except (OSError, tf.errors.OpError) as e:
        raise errors.ConfigError(
            f"cannot write in {self.directory}: {e}") from None
      if created:
        self._held = True
        return self
      holder = self._read() or {}
      if _holder_alive(holder):
        raise RunLockError(
            f"{self.directory} is in use by another {holder.get('what', 'run')}"
            f" (host {holder.get('host', '?')}, pid {holder.get('pid', '?')},"
            f" started {holder.get('started', '?')}); if that run is gone, "
            f"delete {self.path}")
      logging.warning("taking over %s from a run that is gone (pid %s)",
                      self.path, holder.get("pid"))
      tf.io.gfile.remove(self.path)
    raise RunLockError(f"could not take {self.path}")

  def __exit__(self, exc_type, *exc):
    if self._held:
      try:
        tf.io.gfile.remove(self.path)
      except tf.errors.NotFoundError:
        pass
      self._held = False
      # A refused or failed run leaves no empty directory of its own behind.
      if (exc_type is not None and self._created_directory
          and not tf.io.gfile.listdir(self.directory)):
        tf.io.gfile.rmtree(self.directory)


def is_lock_file(name):
  """Whether a directory entry is a lock file (not part of a run's output)."""
  return os.path.basename(name.rstrip("/")).startswith(LOCK_FILE)
