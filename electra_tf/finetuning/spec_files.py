"""Where an own-data task's files are, named by its spec, and their
fingerprint. Mixed into a family's task class by the family's file tasks."""

import os

import tensorflow as tf

from electra_tf import errors
from electra_tf.data import tfrecords
from electra_tf.finetuning import tasks

TRAIN = tasks.TRAIN


class SpecFiles:
  """Where an own-data task's files are, and their content fingerprint."""

  def _set_spec(self, spec):
    self.spec = spec
    self.data_subdir = None

  def raw_data_dir(self, data_dir):
    del data_dir  # own-data files are named by the spec
    return os.path.dirname(self.spec["files"][TRAIN])

  def split_path(self, data_dir, split):
    del data_dir  # own-data files are named by the spec
    if split not in self.spec["files"]:
      raise errors.DataError(f"task {self.name} has no {split} file; its "
                             f"spec names {sorted(self.spec['files'])}")
    return self.spec["files"][split]

  def has_split(self, data_dir, split):
    return split in self.spec["files"] and tf.io.gfile.exists(
        self.spec["files"][split])

  def is_labeled(self, data_dir, split):
    del data_dir, split  # CoNLL tag columns and SQuAD answers: every split
    return True

  def check_data(self, data_dir):
    path = self.split_path(data_dir, TRAIN)
    if not tf.io.gfile.exists(path):
      raise errors.DataError(f"no {self.name} data: {path} does not exist")

  def data_fingerprint(self, data_dir):
    """The spec and the SHA-256 of every split file's content."""
    del data_dir  # own-data files are named by the spec
    digests = {split: tfrecords.file_sha256(path)
               for split, path in sorted(self.spec["files"].items())
               if tf.io.gfile.exists(path)}
    return {"spec": self.spec, "files": digests}
