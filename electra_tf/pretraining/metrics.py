"""The original's pretraining eval metrics, as sums that add across steps.

`metric_sums` turns one batch of pretrainer outputs into sums (scalars and a
small histogram for the AUC); sums add across replicas and steps; `finalize`
turns them into the metrics the original reports: masked_lm_accuracy,
masked_lm_loss, sampled_masked_lm_accuracy, disc_loss, disc_auc,
disc_accuracy, disc_precision, disc_recall.
"""

import numpy as np
import tensorflow as tf

# The ROC AUC uses this many thresholds, like tf.metrics.auc's default.
AUC_THRESHOLDS = 200
_EPS = 1e-7


def _auc_thresholds():
  inner = [(i + 1) * 1.0 / (AUC_THRESHOLDS - 1)
           for i in range(AUC_THRESHOLDS - 2)]
  return tf.constant([0.0 - _EPS] + inner + [1.0 + _EPS], tf.float32)


def metric_sums(outputs):
  """Sums of one batch (a dict from `ElectraPretrainer`)."""
  weights = tf.cast(outputs["masked_lm_weights"], tf.float32)
  ids = outputs["masked_lm_ids"]
  sums = {
      "mlm_weight": tf.reduce_sum(weights),
      "mlm_correct": tf.reduce_sum(weights * tf.cast(
          tf.equal(outputs["mlm_preds"], ids), tf.float32)),
      "mlm_loss": tf.reduce_sum(weights * outputs["mlm_per_example_loss"]),
  }
  if "disc_logits" not in outputs:
    return sums
  mask = tf.cast(outputs["disc_weights"], tf.float32)
  labels = tf.cast(outputs["is_fake"], tf.float32)
  preds = tf.cast(outputs["disc_preds"], tf.float32)
  correct = tf.cast(tf.equal(labels, preds), tf.float32)
  sums.update({
      "sampled_correct": tf.reduce_sum(weights * tf.cast(
          tf.equal(outputs["sampled_tokids"], ids), tf.float32)),
      "disc_loss": tf.reduce_sum(outputs["disc_per_example_loss"]),
      "disc_examples": tf.cast(tf.size(outputs["disc_per_example_loss"]),
                               tf.float32),
      "disc_tokens": tf.reduce_sum(mask),
      "disc_correct": tf.reduce_sum(mask * correct),
      "disc_predicted": tf.reduce_sum(mask * preds),
      "disc_true_positive": tf.reduce_sum(mask * preds * labels),
      "disc_positive": tf.reduce_sum(mask * labels),
  })
  # As the original, the AUC is over every position with padding counted as
  # label 0, probability 0.
  probs = tf.reshape(outputs["disc_probs"] * mask, [-1])
  positive = tf.reshape(labels * mask, [-1])
  above = tf.cast(probs[None, :] > _auc_thresholds()[:, None], tf.float32)
  sums["auc_true_positive"] = tf.reduce_sum(above * positive[None], -1)
  sums["auc_false_positive"] = tf.reduce_sum(above * (1 - positive[None]), -1)
  sums["auc_positive"] = tf.reduce_sum(positive)
  sums["auc_negative"] = tf.reduce_sum(1 - positive)
  return sums


def empty_sums(has_discriminator):
  """Zeros with the keys and shapes `metric_sums` returns."""
  keys = ["mlm_weight", "mlm_correct", "mlm_loss"]
  if has_discriminator:
    keys += ["sampled_correct", "disc_loss", "disc_examples", "disc_tokens",
             "disc_correct", "disc_predicted", "disc_true_positive",
             "disc_positive", "auc_positive", "auc_negative"]
  sums = {k: tf.zeros([], tf.float32) for k in keys}
  if has_discriminator:
    for key in ("auc_true_positive", "auc_false_positive"):
      sums[key] = tf.zeros([AUC_THRESHOLDS], tf.float32)
  return sums


def _ratio(numerator, denominator):
  return float(numerator) / float(denominator) if denominator else 0.0


def finalize(sums):
  """Metric values (Python floats) from accumulated sums."""
  sums = {k: np.asarray(v, np.float64) for k, v in sums.items()}
  metrics = {
      "masked_lm_accuracy": _ratio(sums["mlm_correct"], sums["mlm_weight"]),
      "masked_lm_loss": _ratio(sums["mlm_loss"], sums["mlm_weight"]),
  }
  if "disc_loss" not in sums:
    return metrics
  tpr = sums["auc_true_positive"] / max(sums["auc_positive"], _EPS)
  fpr = sums["auc_false_positive"] / max(sums["auc_negative"], _EPS)
  # Trapezoids over the ROC points, thresholds ascending = FPR descending.
  auc = float(np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2))
  metrics.update({
      "sampled_masked_lm_accuracy": _ratio(sums["sampled_correct"],
                                           sums["mlm_weight"]),
      "disc_loss": _ratio(sums["disc_loss"], sums["disc_examples"]),
      "disc_auc": auc,
      "disc_accuracy": _ratio(sums["disc_correct"], sums["disc_tokens"]),
      "disc_precision": _ratio(sums["disc_true_positive"],
                               sums["disc_predicted"]),
      "disc_recall": _ratio(sums["disc_true_positive"],
                            sums["disc_positive"]),
  })
  return metrics
