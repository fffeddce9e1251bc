"""The classification family: a label or a score for a text or text pair.

GLUE's tasks (`glue.py`) and own-data CSV/TSV/JSONL tasks (`file_tasks.py`)
are `ClassificationTask`s or `RegressionTask`s: they differ in how they read
their files and parse labels, and share featurization, head, scoring,
test-set files and serving module, defined here.
"""

import abc

import numpy as np

from electra_tf.data import features as F
from electra_tf.finetuning import prediction_files
from electra_tf.finetuning import tasks
from electra_tf.finetuning.classification import evaluation
from electra_tf.finetuning.classification import features
from electra_tf.finetuning.classification import head
from electra_tf.finetuning.classification import serving_module
from electra_tf.finetuning.classification import test_outputs

# A predicted score in the leaderboard's and the readable files' format.
SCORE_FORMAT = "{:.3f}"


class SentenceTask(tasks.Task):
  """A task on one text or a text pair, scored per example.

  Args (besides `Task`'s): `symmetric`: the pair's order carries no meaning
  (MRPC, STS); with `DataSettings.double_unordered`, training adds each
  pair swapped.
  """

  def __init__(self, name, task_type, metric_names, *, symmetric=False,
               **task_kwargs):
    super().__init__(name, task_type, metric_names, **task_kwargs)
    self.symmetric = symmetric

  @property
  @abc.abstractmethod
  def is_pair(self):
    """Whether an example holds two texts."""

  @abc.abstractmethod
  def parse_label(self, text, location):
    """The label of a file's field; `DataError` naming `location` if bad."""

  @abc.abstractmethod
  def dummy_label(self):
    """The label given to examples of unlabeled splits."""

  @abc.abstractmethod
  def label_features(self, label):
    """The label's feature dict."""

  @abc.abstractmethod
  def prediction_strings(self, predictions):
    """Label names or formatted scores of [N] head predictions."""

  def maybe_double(self, result, split, settings):
    """`result` with the swapped training pairs of a symmetric task."""
    if self.symmetric and settings.double_unordered and split == tasks.TRAIN:
      result.examples = features.with_swapped_pairs(result.examples)
    return result

  def featurize(self, example, tokenizer, settings, is_training=False):
    del is_training  # the same features for training and eval
    sentence = features.sentence_features(example, tokenizer,
                                          settings.max_seq_length)
    sentence.update(self.label_features(example.label))
    return [sentence]

  def is_long(self, example, feature, max_seq_length):
    del example  # the mask tells: it fills the sequence (cut or exact fit)
    return int(np.sum(feature[F.INPUT_MASK])) >= max_seq_length

  def evaluate(self, outputs, run, split):
    del run, split  # the outputs hold the gold targets
    return evaluation.sentence_metrics(self, outputs)

  def write_test_outputs(self, outputs, run, split, folder, trial):
    examples = self.read_examples(run.config.raw_data_root, split).examples
    return test_outputs.write(
        prediction_files.own_data_path(folder, self.name, split, trial),
        self, examples, outputs,
        self.is_labeled(run.config.raw_data_root, split))


class ClassificationTask(SentenceTask):
  """One of `labels` per text or pair: softmax head, cross entropy."""

  gold_feature = features.LABEL_IDS

  def __init__(self, name, labels, metric_names, **kwargs):
    super().__init__(name, tasks.TaskType.CLASSIFICATION, metric_names,
                     labels=labels, **kwargs)

  def target_shapes(self, settings, is_training):
    del settings, is_training  # always one scalar label
    return {features.LABEL_IDS: ((), np.int32)}

  def dummy_label(self):
    return self.labels[0]

  def label_features(self, label):
    return {features.LABEL_IDS: self.labels.index(label)}

  def prediction_strings(self, predictions):
    return [self.labels[int(p)] for p in predictions]

  def build_head(self, config, num_labels=None, dtype=None):
    del num_labels  # the task names its labels
    return head.SentenceHead(len(self.labels),
                             config.encoder_config.hidden_size,
                             name=self.name, dtype=dtype)

  def evaluate(self, outputs, run, split):
    metrics = super().evaluate(outputs, run, split)
    evaluation.warn_if_one_class(self, outputs, split)
    return metrics

  def serving_module(self, model, config, vocab_file, labels=None,
                     jit_compile=True):
    del labels  # the task names its labels
    return serving_module.ClassifierServingModule(
        model, self, config, vocab_file, jit_compile=jit_compile)


class RegressionTask(SentenceTask):
  """A score in [min_value, max_value] per text or pair: one output,
  squared error, trained on (score - min_value) / max_value as the
  original."""

  gold_feature = features.TARGETS

  def __init__(self, name, min_value, max_value, metric_names, **kwargs):
    super().__init__(name, tasks.TaskType.REGRESSION, metric_names, **kwargs)
    self.min_value = min_value
    self.max_value = max_value

  def target_shapes(self, settings, is_training):
    del settings, is_training  # always one scalar target
    return {features.TARGETS: ((), np.float32)}

  def dummy_label(self):
    return 0.0

  def label_features(self, label):
    # The original divides by the maximum, not the range (equal for STS-B).
    return {features.TARGETS: (label - self.min_value) / self.max_value}

  def prediction_strings(self, predictions):
    # Targets were (score - min) / max; undo, within the score range.
    scores = np.clip(predictions * self.max_value + self.min_value,
                     self.min_value, self.max_value)
    return [SCORE_FORMAT.format(s) for s in scores]

  def build_head(self, config, num_labels=None, dtype=None):
    del num_labels  # one score
    return head.SentenceHead(1, config.encoder_config.hidden_size,
                             regression=True, name=self.name, dtype=dtype)

  def serving_module(self, model, config, vocab_file, labels=None,
                     jit_compile=True):
    del labels  # a score has none
    return serving_module.ScoreServingModule(
        model, self, config, vocab_file, jit_compile=jit_compile)
