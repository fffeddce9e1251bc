"""Output locations: one-line errors, whole files only, no leftovers.

A bad output location (a parent that is a file, a read-only or missing
mount) is a `ConfigError` naming the path, not a traceback. Files appear
under their final name only once completely written. The scratch entries a
killed process leaves in a directory it held alone (TensorFlow's
`<prefix>_temp` checkpoint staging dirs, `.tmp` files, export staging dirs)
are removed by the next run on that directory.
"""

import fnmatch
import os
import uuid

import tensorflow as tf
from absl import logging

from electra_tf import errors

# tf.train.Checkpoint stages a save in `<prefix>_temp/` before its rename.
CHECKPOINT_STAGING = "*_temp"
# Files written beside their final name, then renamed over it
# (`x.tmp`, `x.tmp-<id>`, TensorFlow's `checkpoint.tmp<id>`).
TEMP_FILES = "*.tmp*"
# Export versions are staged in `<export_dir>/.tmp-<version>-<id>/`.
EXPORT_STAGING = ".tmp-*"


def make_dir(path):
  """Creates `path` and its parents; a `ConfigError` if that fails."""
  try:
    tf.io.gfile.makedirs(path)
  except (tf.errors.OpError, OSError) as e:
    raise errors.ConfigError(
        f"cannot create {path}: {errors.first_line(e)}") from None


def write_atomically(path, data):
  """Writes `data` (str or bytes) to `path` via a temporary name.

  A killed writer leaves at most `<path>.tmp-<id>`, never a partial `path`.
  """
  directory = os.path.dirname(path)
  if directory:
    make_dir(directory)
  temp = f"{path}.tmp-{uuid.uuid4().hex[:8]}"
  try:
    with tf.io.gfile.GFile(temp, "wb" if isinstance(data, bytes) else "w") as f:
      f.write(data)
    tf.io.gfile.rename(temp, path, overwrite=True)
  except (tf.errors.OpError, OSError) as e:
    if tf.io.gfile.exists(temp):
      tf.io.gfile.remove(temp)
    raise errors.ConfigError(
        f"cannot write {path}: {errors.first_line(e)}") from None


def remove_leftovers(directory, patterns):
  """Deletes the entries of `directory` matching `patterns`; returns them.

  Only for a directory the caller holds alone (its run lock): the entries
  are the scratch files of an earlier process that was killed.
  """
  if not tf.io.gfile.isdir(directory):
    return []
  stale = sorted(name.rstrip("/") for name in tf.io.gfile.listdir(directory)
                 if any(fnmatch.fnmatch(name.rstrip("/"), p) for p in patterns))
  for name in stale:
    path = os.path.join(directory, name)
    if tf.io.gfile.isdir(path):
      tf.io.gfile.rmtree(path)
    else:
      tf.io.gfile.remove(path)
  if stale:
    logging.info("removed what a killed run left in %s: %s", directory,
                 ", ".join(stale))
  return stale
