"""The finetuning task interface, implemented by the task families.

A task says what it predicts (`TaskType`, labels, metrics), the original
recipe's defaults for it (epochs, sequence length), how to read its raw data
and how to featurize one example into fixed-length model inputs. Its family
(`classification/`, `qa/`, `tagging/`) supplies the steps that depend on
what is predicted: the head, the dev metrics, the test-set files and the
serving module. Generic code (runner, model, feature cache, export) calls
these and never asks for the task type.
"""

import abc
import dataclasses
import enum
import os

from absl import logging
import numpy as np
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import features

# Feature holding an example's id (per doc span for SQuAD), as the original's
# `<task>_eid`, used to join model outputs back to examples.
EXAMPLE_ID = "eid"

# Recipe defaults of the original's FinetuningConfig.
DEFAULT_NUM_TRAIN_EPOCHS = 3.0
DEFAULT_MAX_SEQ_LENGTH = 128
DEFAULT_MAX_QUERY_LENGTH = 64
DEFAULT_DOC_STRIDE = 128

# Folder below the data dir holding one folder of raw files per task.
RAW_DATA_FOLDER = "finetuning_data"

TRAIN = "train"
DEV = "dev"
TEST = "test"


class TaskType(enum.Enum):
  """What a task predicts."""
  CLASSIFICATION = "classification"
  REGRESSION = "regression"
  SPAN_QA = "span_qa"
  TAGGING = "tagging"


@dataclasses.dataclass(frozen=True)
class DataSettings:
  """Reading and featurization settings (names as in the original config).

  Attributes:
    max_seq_length: length every featurized sequence is padded to.
    double_unordered: add each training pair of a symmetric task (MRPC, STS)
      a second time with its sentences swapped.
    max_query_length: SQuAD questions are cut to this many tokens.
    doc_stride: step, in tokens, between SQuAD context windows.
  """
  max_seq_length: int = DEFAULT_MAX_SEQ_LENGTH
  double_unordered: bool = True
  max_query_length: int = DEFAULT_MAX_QUERY_LENGTH
  doc_stride: int = DEFAULT_DOC_STRIDE


@dataclasses.dataclass
class SkippedInput:
  """One input a reader left out, where it was and why."""
  location: str  # "path:line", or "path (question <id>)"
  reason: str


@dataclasses.dataclass
class ReadResult:
  """The examples read from one split, and the inputs skipped on the way."""
  examples: list = dataclasses.field(default_factory=list)
  skipped: list = dataclasses.field(default_factory=list)

  def skip(self, location, reason):
    """Records (and logs) an input left out, as the original does."""
    logging.warning("Skipping %s: %s", location, reason)
    self.skipped.append(SkippedInput(location, reason))


class Task(abc.ABC):
  """A finetuning task of the original recipe.

  Attributes:
    name: registry name, as in the original (`sst`, `sts`, `squad`, ...).
    task_type: a `TaskType`.
    labels: label strings in id order; None when the labels are numbers
      (regression), spans (QA) or read from the data (chunking).
    metric_names: names of `scoring` metrics, the reported one first.
    num_train_epochs: the original's default for this task.
    default_max_seq_length: the original's default for this task.
    data_subdir: folder below `<data_dir>/finetuning_data` with the raw files.
  """

  def __init__(self, name, task_type, metric_names, *, labels=None,
               num_train_epochs=DEFAULT_NUM_TRAIN_EPOCHS,
               default_max_seq_length=DEFAULT_MAX_SEQ_LENGTH,
               data_subdir=None):
    self.name = name
    self.task_type = task_type
    self.labels = None if labels is None else tuple(labels)
    self.metric_names = tuple(metric_names)
    self.num_train_epochs = num_train_epochs
    self.default_max_seq_length = default_max_seq_length
    self.data_subdir = data_subdir or name

  def settings(self, **overrides):
    """`DataSettings` with this task's defaults, updated by `overrides`."""
    return DataSettings(**{"max_seq_length": self.default_max_seq_length,
                           **overrides})

  def raw_data_dir(self, data_dir):
    """Folder of this task's raw files, as the original lays them out."""
    return os.path.join(data_dir, RAW_DATA_FOLDER, self.data_subdir)

  def split_path(self, data_dir, split):
    """The raw file holding `split`."""
    raise NotImplementedError(f"{self.name} does not say where {split} is")

  def has_split(self, data_dir, split):
    """Whether the raw file of `split` exists."""
    return tf.io.gfile.exists(self.split_path(data_dir, split))

  def is_labeled(self, data_dir, split):
    """Whether `split`'s examples carry gold labels to score against."""
    del data_dir  # the built-in tasks' test splits have no labels
    return split != TEST

  def check_data(self, data_dir):
    """`DataError` if the task's raw data is not where it should be."""
    folder = self.raw_data_dir(data_dir)
    if not tf.io.gfile.isdir(folder):
      raise errors.DataError(f"no {self.name} data: {folder} does not exist")

  def data_fingerprint(self, data_dir):
    """What identifies the raw data (a feature cache key part): the name,
    size and modification time of every file in the task's folder."""
    folder = self.raw_data_dir(data_dir)
    if not tf.io.gfile.isdir(folder):
      return []
    return [[name, stat.length, stat.mtime_nsec] for name, stat in (
        (name, tf.io.gfile.stat(os.path.join(folder, name)))
        for name in sorted(tf.io.gfile.listdir(folder)))]

  def feature_shapes(self, settings, is_training):
    """Name -> (shape, NumPy dtype) of each feature `featurize` returns.

    What a TFRecord cache or `tf.data` pipeline needs to parse the features
    (ints are int64 in a TFRecord, as in the original).
    """
    sequence = (settings.max_seq_length,)
    shapes = {name: (sequence, np.int32)
              for name in features.PRETRAINING_FEATURES}
    shapes[EXAMPLE_ID] = ((), np.int32)
    shapes.update(self.target_shapes(settings, is_training))
    return shapes

  @abc.abstractmethod
  def target_shapes(self, settings, is_training):
    """The task's own part of `feature_shapes`."""

  @abc.abstractmethod
  def read_examples(self, data_dir, split, settings=None):
    """Reads one split (`train`, `dev`, `test`, ...) into a `ReadResult`."""

  @abc.abstractmethod
  def featurize(self, example, tokenizer, settings, is_training):
    """Turns one example into a list of feature dicts (one per sequence).

    Args:
      example: an example from `read_examples`.
      tokenizer: has `tokenize(text) -> list[str]` and
        `convert_tokens_to_ids(tokens) -> list[int]`.
      settings: `DataSettings`.
      is_training: whether to add the training targets (SQuAD only adds
        start/end positions for training, as the original).

    Returns:
      Dicts of int/float scalars and int32/float32 NumPy arrays of length
      `settings.max_seq_length`, keyed by feature name.
    """

  # What a family provides. Not abstract: a task used only for its
  # features (a cache, a pipeline) need not define them.

  # `FinetuningConfig` paths the task's evaluation writes to.
  output_paths = ()

  def data_labels(self, data_dir):
    """Labels read from the raw data (recorded with the run and given to
    `build_head` as `num_labels`); None when the task names its own."""
    del data_dir  # the task's labels are fixed
    return None

  def is_long(self, example, feature, max_seq_length):
    """Whether featurization cut `example` to make `feature` fit."""
    raise NotImplementedError(f"{self.name} does not say what is long")

  def build_head(self, config, num_labels=None, dtype=None):
    """The original's head layer for this task, named after it.

    Args:
      config: the `FinetuningConfig` (encoder width, head settings).
      num_labels: how many labels `data_labels` found.
      dtype: a Keras dtype policy.
    """
    raise NotImplementedError(f"{self.name} has no head")

  def evaluate(self, outputs, run, split):
    """{metric: percent} of the model's outputs on `split`.

    Args:
      outputs: `Predictor.predict` arrays (head outputs and features).
      run: has `config` (a `FinetuningConfig`), `tokenizer`, `settings`
        (`DataSettings`) and `label_lists` ({task name: `data_labels`}).
      split: the split the outputs are of.
    """
    raise NotImplementedError(f"{self.name} cannot be scored")

  def test_output_splits(self):
    """The splits `write_test_outputs` writes predictions of."""
    return [TEST]

  def write_test_outputs(self, outputs, run, split, folder, trial):
    """Writes the predictions of `split` for trial `trial` (as `evaluate`'s
    arguments), in or near `folder`; returns the file's path."""
    raise NotImplementedError(f"{self.name} writes no predictions")

  def serving_module(self, model, config, vocab_file, labels=None,
                     jit_compile=True):
    """A `TaskServingModule` for this task's head of `model`.

    `labels`: the run's `data_labels` of this task; `jit_compile`: see
    `TaskServingModule`.
    """
    raise NotImplementedError(f"{self.name} cannot be served")

  def __repr__(self):
    return f"{type(self).__name__}({self.name!r})"
