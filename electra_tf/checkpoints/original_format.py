"""Load and save checkpoints in the original ELECTRA (TF1) layout.

These are the checkpoints the released ELECTRA models ship as, that the
original code and the Hugging Face converter read. Loading is strict: every
model variable must be in the checkpoint with the same shape, and every
model variable of the checkpoint must be in the model.
"""

import os
import uuid

import numpy as np
import tensorflow as tf

from electra_tf import errors
from electra_tf.checkpoints import tf1_names

# Optimizer state and bookkeeping the loader skips.
_IGNORED_SUFFIXES = ("/adam_m", "/adam_v")
_IGNORED_NAMES = ("global_step", "_CHECKPOINTABLE_OBJECT_GRAPH")
_LIST_LIMIT = 8
# What a reader raises on unreadable or truncated files.
_READ_ERRORS = (tf.errors.OpError, IndexError, ValueError, RuntimeError)


def _ignored(name):
  return name in _IGNORED_NAMES or name.endswith(_IGNORED_SUFFIXES)


def _listing(items):
  items = sorted(items)
  shown = ", ".join(items[:_LIST_LIMIT])
  more = len(items) - _LIST_LIMIT
  return shown + (f" and {more} more" if more > 0 else "")


def open_reader(path):
  """A checkpoint reader for a file prefix or a directory."""
  try:
    if tf.io.gfile.exists(path + ".index"):
      # A prefix; asked first since some filesystems (ram://) report
      # prefixes of existing files as directories.
      return tf.compat.v1.train.NewCheckpointReader(path)
    return tf.train.load_checkpoint(path)
  except _READ_ERRORS as e:
    message = errors.first_line(e)
    raise errors.CheckpointError(
        f"cannot read checkpoint {path}: {message}") from None


def load_original_checkpoint(pretrainer, path):
  """Loads a TF1 ELECTRA checkpoint (file prefix or directory) into the model.

  Optimizer slots (`*/adam_m`, `*/adam_v`) and `global_step` are ignored.
  Raises `CheckpointError` listing missing and unexpected variables and shape
  mismatches. Returns the list of variable names loaded.
  """
  return load_by_table(path, tf1_names.pretrainer_variables(pretrainer),
                       "the model config")


def load_by_table(path, table, what, allow_unexpected=False):
  """Assigns each variable of `table` (TF1 name -> variable) its tensor in
  checkpoint `path`; returns the names loaded.

  Raises:
    CheckpointError: naming the variables missing from the checkpoint, those
      of another shape, and (unless `allow_unexpected`) the checkpoint's
      model variables that `table` lacks; `what` names the model side.
  """
  reader = open_reader(path)
  shapes = reader.get_variable_to_shape_map()
  in_checkpoint = {n for n in shapes if not _ignored(n)}
  missing = set(table) - in_checkpoint
  unexpected = set() if allow_unexpected else in_checkpoint - set(table)
  mismatched = [
      f"{n} (checkpoint {list(shapes[n])}, model {list(table[n].shape)})"
      for n in sorted(set(table) & in_checkpoint)
      if list(shapes[n]) != list(table[n].shape)]
  problems = []
  if mismatched:
    problems.append(f"{len(mismatched)} shape mismatch(es): "
                    f"{_listing(mismatched)}")
  if missing:
    problems.append(f"{len(missing)} missing: {_listing(missing)}")
  if unexpected:
    problems.append(f"{len(unexpected)} unexpected: {_listing(unexpected)}")
  if problems:
    raise errors.CheckpointError(
        f"checkpoint {path} does not match {what}; " + "; ".join(problems))
  for name, variable in table.items():
    try:
      value = reader.get_tensor(name)
    except _READ_ERRORS as e:
      raise errors.CheckpointError(
          f"cannot read {name} from checkpoint {path} (truncated or "
          f"corrupt?): {errors.first_line(e)}") from None
    variable.assign(value.astype(np.dtype(variable.dtype)))
  return sorted(table)


def save_original_checkpoint(pretrainer, path, global_step=0):
  """Writes the model under the original TF1 names at file prefix `path`.

  The files appear atomically under their final names (written under a
  temporary prefix, then renamed), followed by the `checkpoint` state file
  of the directory, so `tf.train.latest_checkpoint` finds it.
  """
  table = tf1_names.pretrainer_variables(pretrainer)
  names = sorted(table)
  tensors = [tf.convert_to_tensor(table[n].value) for n in names]
  names.append("global_step")
  tensors.append(tf.constant(global_step, tf.int64))
  directory = os.path.dirname(path)
  if directory:
    tf.io.gfile.makedirs(directory)
  temp_prefix = f"{path}.tmp-{uuid.uuid4().hex}"
  tf.raw_ops.SaveV2(prefix=temp_prefix, tensor_names=names,
                    shape_and_slices=[""] * len(names), tensors=tensors)
  for suffix in (".data-00000-of-00001", ".index"):
    tf.io.gfile.rename(temp_prefix + suffix, path + suffix, overwrite=True)
  state = os.path.join(directory, "checkpoint")
  basename = os.path.basename(path)
  with tf.io.gfile.GFile(state + ".tmp", "w") as f:
    f.write(f'model_checkpoint_path: "{basename}"\n'
            f'all_model_checkpoint_paths: "{basename}"\n')
  tf.io.gfile.rename(state + ".tmp", state, overwrite=True)
  return path
