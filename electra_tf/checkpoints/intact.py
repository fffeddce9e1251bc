"""Finding the newest checkpoint of a directory that can actually be read.

A run killed while its filesystem was failing, or a copy cut short, can
leave a newest checkpoint whose `.data` file is truncated: restoring it
fails deep inside TensorFlow. `newest_intact` reads the checkpoints of a
directory from the newest down and returns the first whose every tensor
reads, naming the ones it had to skip.
"""

import tensorflow as tf
from absl import logging

from electra_tf import errors

# What reading a damaged checkpoint raises (a truncated or garbled file).
DAMAGE_ERRORS = (tf.errors.DataLossError, tf.errors.OutOfRangeError,
                 tf.errors.InvalidArgumentError, tf.errors.NotFoundError,
                 IndexError, ValueError)


def damage(prefix):
  """None if every tensor of checkpoint `prefix` reads, else why not."""
  try:
    reader = tf.train.load_checkpoint(prefix)
    for name in reader.get_variable_to_shape_map():
      reader.get_tensor(name)
  except DAMAGE_ERRORS as e:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:200]
  return None


def newest_intact(directory):
  """The newest readable checkpoint prefix of `directory` (None if none).

  Damaged newer ones are logged, naming what is wrong with each; if every
  checkpoint is damaged, `CheckpointError` lists them.
  """
  state = tf.train.get_checkpoint_state(directory)
  if state is None or not state.all_model_checkpoint_paths:
    return tf.train.latest_checkpoint(directory)
  skipped = []
  for prefix in reversed(list(state.all_model_checkpoint_paths)):
    problem = damage(prefix)
    if problem is None:
      for bad, why in skipped:
        logging.warning("checkpoint %s is damaged (%s); using %s instead",
                        bad, why, prefix)
      return prefix
    skipped.append((prefix, problem))
  raise errors.CheckpointError(
      f"every checkpoint in {directory} is damaged: " + "; ".join(
          f"{p} ({why})" for p, why in skipped))
