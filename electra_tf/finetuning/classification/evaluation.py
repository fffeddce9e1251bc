"""Dev metrics of a classification or regression task, in percent."""

import numpy as np
from absl import logging

from electra_tf.finetuning import scoring
from electra_tf.finetuning.classification import features

PERCENT = 100.0


def sentence_metrics(task, outputs):
  """The task's metrics of `Predictor.predict` outputs, in percent."""
  scores = scoring.sentence_scores(task.metric_names, outputs["predictions"],
                                   outputs[task.gold_feature])
  return {name: PERCENT * value for name, value in scores.items()}


def warn_if_one_class(task, outputs, split):
  """Warns when a classifier predicted one class for every example of a
  split that holds several: the sign of a model that learned nothing (a
  collapsed pretrained encoder, a learning rate far off).

  A regression task (no classes) never warns.
  """
  if task.labels is None:
    return False
  predicted = np.unique(outputs["predictions"])
  gold = np.unique(outputs[features.LABEL_IDS])
  if len(predicted) == 1 and len(gold) > 1:
    logging.warning(
        "%s %s: every one of the %d predictions is %r (the gold labels have "
        "%d classes): the model learned nothing usable; check the "
        "pretrained checkpoint's health and the learning rate", task.name,
        split, len(outputs["predictions"]), task.labels[int(predicted[0])],
        len(gold))
    return True
  return False
