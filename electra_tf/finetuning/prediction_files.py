"""Writing prediction files: whole at once, under any gfile path."""

import json
import os

from electra_tf import output_files


def own_data_path(folder, task_name, split, trial):
  """Where an own-data task's readable predictions of `split` go."""
  return os.path.join(folder, f"{task_name}_{split}_{trial}.tsv")


def write_text(path, text):
  """Writes `text` to `path` (creating dirs) so a reader never sees half a
  file; returns `path`."""
  output_files.write_atomically(path, text)
  return path


def write_json(path, value):
  """Writes `value` as JSON at `path` (any gfile path), creating dirs."""
  output_files.write_atomically(path, json.dumps(value))
