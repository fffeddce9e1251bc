"""Writing a SavedModel in TF Serving's layout, atomically.

`<export_dir>/<version>/` with version = 1 + the largest existing one. The
model is written under a temporary name that TF Serving ignores and renamed
when complete, so a half-written export is never visible as a version. The
config and vocab go to `assets.extra/`.
"""

import json
import os
import uuid

import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf import output_files
from electra_tf import run_lock

ASSETS_EXTRA = "assets.extra"


def next_version(export_dir):
  """1 + the largest integer-named subdirectory (1 for a new dir)."""
  if not tf.io.gfile.isdir(export_dir):
    return 1
  versions = [int(name.rstrip("/")) for name in tf.io.gfile.listdir(export_dir)
              if name.rstrip("/").isdigit()]
  return max(versions, default=0) + 1


def write_saved_model(module, export_dir, signatures, config_dict,
                      vocab_file=None, version=None):
  """Saves `module` with `signatures` as a new version; returns its path.

  The export holds `export_dir`'s run lock (a concurrent export to it is
  refused) and first removes the staging dirs of killed exports.
  """
  with run_lock.RunLock(export_dir, "export"):
    output_files.remove_leftovers(export_dir, (output_files.EXPORT_STAGING,))
    version = version or next_version(export_dir)
    final = os.path.join(export_dir, str(version))
    if tf.io.gfile.exists(final):
      raise errors.ConfigError(f"export version {final} already exists")
    staging = os.path.join(export_dir, f".tmp-{version}-{uuid.uuid4().hex}")
    output_files.make_dir(staging)
    try:
      tf.saved_model.save(module, staging, signatures=signatures)
      extra = os.path.join(staging, ASSETS_EXTRA)
      tf.io.gfile.makedirs(extra)
      with tf.io.gfile.GFile(os.path.join(extra, "config.json"), "w") as f:
        f.write(json.dumps(config_dict, indent=2, sort_keys=True) + "\n")
      if vocab_file:
        tf.io.gfile.copy(vocab_file, os.path.join(extra, "vocab.txt"))
      tf.io.gfile.rename(staging, final)
    except BaseException:
      if tf.io.gfile.exists(staging):
        tf.io.gfile.rmtree(staging)
      raise
  logging.info("exported %s", final)
  return final
