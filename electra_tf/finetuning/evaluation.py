"""Running a finetuned model over a split, and the dev metrics of a task.

Metrics are reported as the original reports them: in percent (accuracy,
F1, MCC, Pearson, Spearman, chunk F1, SQuAD EM/F1).
"""

import numpy as np
import tensorflow as tf
from absl import logging

from electra_tf.data import features as F
from electra_tf.finetuning.tagging import chunking
from electra_tf.finetuning.classification import glue
from electra_tf.finetuning import input_pipeline
from electra_tf.finetuning import model as model_lib
from electra_tf.finetuning import scoring
from electra_tf.finetuning import tasks as tasks_lib

PERCENT = 100.0
CHUNK_METRICS = ("f1", "precision", "recall")


class Predictor:
  """Runs a model's heads over cached features under a strategy.

  One compiled function per task, reused across splits.
  """

  def __init__(self, model, strategy):
    self.model = model
    self.strategy = strategy
    self._functions = {}

  def _function(self, task_name, kept):
    key = (task_name, tuple(kept))
    if key not in self._functions:
      def replica_fn(batch):
        outputs = dict(self.model(batch, training=False,
                                  task_names=[task_name])[task_name])
        outputs.update({name: batch[name] for name in kept})
        return outputs

      self._functions[key] = tf.function(
          lambda batch: self.strategy.run(replica_fn, args=(batch,)))
    return self._functions[key]

  def predict(self, feature_set, task_name, batch_size):
    """The head outputs and the non-input features of every real example.

    Returns:
      {name: NumPy array over examples, in file order}: the head's outputs
      (`logits`, `predictions`, span scores, ...) and the features (`eid`,
      gold labels, ...); {} for an empty split.
    """
    padding_id = len(self.model.task_names)
    dataset = self.strategy.experimental_distribute_dataset(
        input_pipeline.eval_dataset(feature_set, batch_size, padding_id))
    kept = [n for n in feature_set.shapes if n not in F.PRETRAINING_FEATURES]
    run = self._function(task_name, kept)
    chunks = {}
    for batch in dataset:
      for name, value in run(batch).items():
        parts = self.strategy.experimental_local_results(value)
        chunks.setdefault(name, []).append(
            np.concatenate([part.numpy() for part in parts]))
    if not chunks:
      return {}
    arrays = {name: np.concatenate(parts) for name, parts in chunks.items()}
    real = arrays[model_lib.TASK_ID] != padding_id
    return {name: values[real] for name, values in arrays.items()}


def sentence_metrics(task, outputs):
  """Metrics of a GLUE task (classification or regression), in percent."""
  if task.task_type == tasks_lib.TaskType.REGRESSION:
    gold = outputs[glue.TARGETS]
  else:
    gold = outputs[glue.LABEL_IDS]
  scores = scoring.sentence_scores(task.metric_names, outputs["predictions"],
                                   gold)
  return {name: PERCENT * value for name, value in scores.items()}


def warn_if_one_class(task, outputs, split):
  """Warns when a classifier predicted one class for every example of a
  split that holds several: the sign of a model that learned nothing (a
  collapsed pretrained encoder, a learning rate far off)."""
  if task.task_type != tasks_lib.TaskType.CLASSIFICATION:
    return False
  predicted = np.unique(outputs["predictions"])
  gold = np.unique(outputs[glue.LABEL_IDS])
  if len(predicted) == 1 and len(gold) > 1:
    logging.warning(
        "%s %s: every one of the %d predictions is %r (the gold labels have "
        "%d classes): the model learned nothing usable; check the "
        "pretrained checkpoint's health and the learning rate", task.name,
        split, len(outputs["predictions"]), task.labels[int(predicted[0])],
        len(gold))
    return True
  return False


def word_tags(label_ids, labels_mask, label_list):
  """Per-sentence tag lists of [N, L] label ids (the words kept)."""
  return [chunking.decode_tags(ids, mask, label_list)
          for ids, mask in zip(label_ids, labels_mask)]


def tagging_metrics(outputs, label_list):
  """Chunk F1 (and precision, recall) in percent."""
  mask = outputs[chunking.LABELS_MASK]
  scores = scoring.chunk_f1(
      word_tags(outputs["predictions"], mask, label_list),
      word_tags(outputs[chunking.LABELS], mask, label_list))
  return {name: PERCENT * scores[name] for name in CHUNK_METRICS}

