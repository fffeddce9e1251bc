"""The tagging family: a label for every word of a sentence.

CoNLL-2000 chunking (`chunking.py`) and own-data CoNLL-style tasks
(`file_tasks.py`) are `TaggingTask`s: they differ in how they read their
files and find their label list, and share featurization, head, scoring,
test-set files and serving module, defined here.
"""

import abc

import numpy as np

from electra_tf import errors
from electra_tf.finetuning import prediction_files
from electra_tf.finetuning import tasks
from electra_tf.finetuning.tagging import evaluation
from electra_tf.finetuning.tagging import features
from electra_tf.finetuning.tagging import head
from electra_tf.finetuning.tagging import serving_module
from electra_tf.finetuning.tagging import test_outputs

TAGGING_MAX_SEQ_LENGTH = 256  # the original's default for chunking


class TaggingTask(tasks.Task):
  """A task whose label list comes with its data (`label_list`)."""

  def __init__(self, name, metric_names, **task_kwargs):
    task_kwargs.setdefault("default_max_seq_length", TAGGING_MAX_SEQ_LENGTH)
    super().__init__(name, tasks.TaskType.TAGGING, metric_names,
                     **task_kwargs)

  @abc.abstractmethod
  def label_list(self, data_dir):
    """The tags in label-id order."""

  def data_labels(self, data_dir):
    labels = self.label_list(data_dir)
    if not labels:
      raise errors.DataError(f"no {self.name} data (no tags) in "
                             f"{self.raw_data_dir(data_dir)}")
    return labels

  def target_shapes(self, settings, is_training):
    del is_training  # the same features for training and eval
    sequence = (settings.max_seq_length,)
    return {features.LABELS: (sequence, np.int32),
            features.LABELS_MASK: (sequence, np.float32),
            features.LABELED_POSITIONS: (sequence, np.int32)}

  def featurize(self, example, tokenizer, settings, is_training=False):
    del is_training  # the same features for training and eval
    return [features.sentence_features(example, tokenizer,
                                       settings.max_seq_length)]

  def is_long(self, example, feature, max_seq_length):
    del max_seq_length  # words were left out
    return int(np.sum(feature[features.LABELS_MASK])) < len(example.words)

  def build_head(self, config, num_labels=None, dtype=None):
    return head.TaggingHead(num_labels, config.encoder_config.hidden_size,
                            name=self.name, dtype=dtype)

  def evaluate(self, outputs, run, split):
    del split  # the outputs hold the gold labels
    return evaluation.tagging_metrics(outputs, run.label_lists[self.name])

  def write_test_outputs(self, outputs, run, split, folder, trial):
    examples = self.read_examples(run.config.raw_data_root, split).examples
    return test_outputs.write(
        prediction_files.own_data_path(folder, self.name, split, trial),
        self, examples, outputs,
        self.is_labeled(run.config.raw_data_root, split),
        run.label_lists.get(self.name))

  def serving_module(self, model, config, vocab_file, labels=None,
                     jit_compile=True):
    if not labels:
      raise errors.ConfigError(f"no labels for the tagging task {self.name}")
    return serving_module.TaggerServingModule(
        model, self, config, vocab_file, labels, jit_compile=jit_compile)
