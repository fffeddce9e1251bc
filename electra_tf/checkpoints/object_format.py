"""This project's own (object-based) checkpoints: finding and reading them.

`resolve` turns a prefix or a run dir into a checkpoint prefix (a dir's
newest intact one); `read_strictly` restores a `tf.train.Checkpoint` from a
prefix and requires every variable of its objects to be in it, raising
`CheckpointError` with one readable line instead of TensorFlow's trace.
"""

import tensorflow as tf

from electra_tf import errors
from electra_tf.checkpoints import intact
from electra_tf.checkpoints import original_format

# The key under which an object-based checkpoint stores its object graph.
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
# What a restore raises when the checkpoint does not fit the objects.
RESTORE_ERRORS = (AssertionError, ValueError, IndexError, tf.errors.OpError)


def resolve(path):
  """The checkpoint prefix `path` names: itself, or a directory's newest
  intact one; `CheckpointError` if there is none."""
  if tf.io.gfile.exists(path + ".index"):
    return path
  if tf.io.gfile.isdir(path):
    latest = intact.newest_intact(path)
    if latest:
      return latest
    raise errors.CheckpointError(f"no checkpoint in directory {path}")
  raise errors.CheckpointError(f"checkpoint not found: {path}")


def is_object_checkpoint(prefix):
  """Whether `prefix` is one of ours (else the original's TF1 layout)."""
  try:
    shapes = original_format.open_reader(prefix).get_variable_to_shape_map()
  except errors.CheckpointError:
    return False
  return OBJECT_GRAPH_KEY in shapes


def read_strictly(root, prefix, failure):
  """Restores the objects of checkpoint `root` (a `tf.train.Checkpoint`)
  from `prefix`.

  Every variable of `root`'s objects must be in the checkpoint; the
  checkpoint may hold more (optimizer slots, other parts of the model).

  Raises:
    CheckpointError: "`failure`: <the first line of TensorFlow's error>".
  """
  try:
    root.read(prefix).assert_existing_objects_matched().expect_partial()
  except RESTORE_ERRORS as e:
    raise errors.CheckpointError(
        f"{failure}: {errors.first_line(e)}") from None


def read_model_parts(prefix, failure, **parts):
  """`read_strictly` for some attributes of a checkpointed `model` (e.g.
  `electra_encoder=encoder`), whatever model they were saved in."""
  read_strictly(tf.train.Checkpoint(model=tf.train.Checkpoint(**parts)),
                prefix, failure)
