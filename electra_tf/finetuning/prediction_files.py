"""Writing prediction files: whole at once, under any gfile path."""

import json
import os

import tensorflow as tf

INCOMPLETE_SUFFIX = ".incomplete"


def own_data_path(folder, task_name, split, trial):
  """Where an own-data task's readable predictions of `split` go."""
  return os.path.join(folder, f"{task_name}_{split}_{trial}.tsv")


def write_text(path, text):
  """Writes `text` to `path` through a temporary file, creating dirs, so a
  reader never sees half a file."""
  tf.io.gfile.makedirs(os.path.dirname(path))
  temp = path + INCOMPLETE_SUFFIX
  with tf.io.gfile.GFile(temp, "w") as f:
    f.write(text)
  tf.io.gfile.rename(temp, path, overwrite=True)
  return path


def write_json(path, value):
  """Writes `value` as JSON at `path` (any gfile path), creating dirs."""
  tf.io.gfile.makedirs(os.path.dirname(path))
  with tf.io.gfile.GFile(path, "w") as f:
    json.dump(value, f)
