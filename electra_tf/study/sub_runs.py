"""Sub-runs of a study: each an ordinary run dir plus a record of its settings.

A study is resumable at every level because each pretraining and finetuning
run it starts is an ordinary run dir that resumes by itself. Before starting
(or reusing) one, the study compares the settings it would run with the
record in the dir (`study_settings.json`): identical settings resume or
reuse; different settings are refused naming the keys that differ (a
finished model of other settings must never be reported as this one).
"""

import json
import os

import tensorflow as tf

from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf import output_files

RECORD_FILE = "study_settings.json"


def _normalised(settings):
  """`settings` as JSON would give them back (tuples -> lists, ...)."""
  return json.loads(json.dumps(settings, sort_keys=True))


def claim(run_dir, settings):
  """Records `settings` in `run_dir`, or checks they equal the record.

  Returns True when the dir already held this sub-run (so it resumes or is
  reused), False when it is new. Raises `ConfigError` naming the differing
  keys when the dir holds a sub-run of other settings.
  """
  settings = _normalised(settings)
  path = os.path.join(run_dir, RECORD_FILE)
  if tf.io.gfile.exists(path):
    with tf.io.gfile.GFile(path) as f:
      recorded = json.load(f)
    changed = hparams_lib.differing_keys(recorded, settings)
    if changed:
      shown = ", ".join(changed[:6]) + (" ..." if len(changed) > 6 else "")
      raise errors.ConfigError(
          f"{run_dir} holds a sub-run with other settings ({shown} differ); "
          "use another --output_dir, or delete that dir to redo it")
    return True
  write_json_atomically(path, settings)
  return False


def write_json_atomically(path, value):
  """Writes `value` as JSON to `path` through a temporary file."""
  output_files.write_atomically(
      path, json.dumps(value, indent=1, sort_keys=True))


def read_json(path):
  """The JSON at `path`, or None if there is none."""
  if not tf.io.gfile.exists(path):
    return None
  with tf.io.gfile.GFile(path) as f:
    return json.load(f)
