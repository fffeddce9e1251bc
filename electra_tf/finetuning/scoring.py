"""Sentence- and tag-level metrics of the original recipe, in plain NumPy.

Each metric takes `(predictions, gold)` and returns a fraction (the original
reports 100x these). They equal scikit-learn's `accuracy_score`, `f1_score`
and `matthews_corrcoef`, and SciPy's `pearsonr` and `spearmanr`, which are
not needed at run time.
"""

import numpy as np

from electra_tf.finetuning.tagging import tag_spans

POSITIVE_LABEL = 1


def _as_pair(predictions, gold):
  predictions, gold = np.asarray(predictions), np.asarray(gold)
  if predictions.shape != gold.shape or predictions.ndim != 1:
    raise ValueError(f"predictions {predictions.shape} and gold {gold.shape} "
                     "must be 1-D and of the same length")
  return predictions, gold


def accuracy(predictions, gold):
  """Share of predictions equal to the gold label."""
  predictions, gold = _as_pair(predictions, gold)
  return float(np.mean(predictions == gold))


def binary_f1(predictions, gold, positive_label=POSITIVE_LABEL):
  """F1 of the positive class; 0 when there is no true positive."""
  predictions, gold = _as_pair(predictions, gold)
  predicted, actual = predictions == positive_label, gold == positive_label
  true_positives = np.sum(predicted & actual)
  if true_positives == 0:
    return 0.0
  return float(2 * true_positives / (np.sum(predicted) + np.sum(actual)))


def _per_class_counts(predictions, gold):
  """True positives, predicted and gold counts of every class seen."""
  predictions, gold = _as_pair(predictions, gold)
  classes = np.unique(np.concatenate([gold, predictions]))
  true_positives = np.array([np.sum((predictions == c) & (gold == c))
                             for c in classes], np.float64)
  predicted = np.array([np.sum(predictions == c) for c in classes],
                       np.float64)
  actual = np.array([np.sum(gold == c) for c in classes], np.float64)
  return true_positives, predicted, actual


def macro_f1(predictions, gold):
  """Unweighted mean of the per-class F1 over the classes in either input
  (a class never predicted nor present has no F1; one with no true
  positive counts 0), as scikit-learn's `f1_score(average="macro")`."""
  true_positives, predicted, actual = _per_class_counts(predictions, gold)
  denominators = predicted + actual
  f1 = np.divide(2 * true_positives, denominators,
                 out=np.zeros_like(true_positives), where=denominators > 0)
  return float(np.mean(f1))


def micro_f1(predictions, gold):
  """F1 of all decisions pooled (equals accuracy for one label each)."""
  true_positives, predicted, actual = _per_class_counts(predictions, gold)
  denominator = predicted.sum() + actual.sum()
  return float(2 * true_positives.sum() / denominator) if denominator else 0.0


def matthews_corrcoef(predictions, gold):
  """Matthews correlation (multi-class R_K); 0 when it is undefined."""
  predictions, gold = _as_pair(predictions, gold)
  classes, codes = np.unique(np.concatenate([gold, predictions]),
                             return_inverse=True)
  gold_codes, predicted_codes = np.split(codes, 2)
  confusion = np.zeros((len(classes), len(classes)), np.float64)
  np.add.at(confusion, (gold_codes, predicted_codes), 1)
  gold_counts, predicted_counts = confusion.sum(1), confusion.sum(0)
  total, correct = confusion.sum(), np.trace(confusion)
  covariance = correct * total - gold_counts @ predicted_counts
  gold_variance = total**2 - gold_counts @ gold_counts
  predicted_variance = total**2 - predicted_counts @ predicted_counts
  if gold_variance * predicted_variance == 0:
    return 0.0
  return float(covariance / np.sqrt(gold_variance * predicted_variance))


def _correlation_inputs(predictions, gold):
  """Float arrays, or None if either side is constant (correlation NaN)."""
  predictions, gold = _as_pair(predictions, gold)
  if len(gold) < 2:
    raise ValueError("correlation needs at least 2 values")
  if np.all(predictions == predictions[0]) or np.all(gold == gold[0]):
    return None
  return predictions.astype(np.float64), gold.astype(np.float64)


def pearson(predictions, gold):
  """Pearson correlation; NaN if either side is constant (as SciPy)."""
  inputs = _correlation_inputs(predictions, gold)
  if inputs is None:
    return float("nan")
  x, y = inputs
  if len(x) == 2:  # exactly +-1, as SciPy
    return float(np.sign(x[1] - x[0]) * np.sign(y[1] - y[0]))
  x_centered, y_centered = x - x.mean(), y - y.mean()
  # Scaled by the largest deviation first, so that the norm cannot overflow.
  x_centered /= np.max(np.abs(x_centered))
  y_centered /= np.max(np.abs(y_centered))
  r = np.dot(x_centered / np.linalg.norm(x_centered),
             y_centered / np.linalg.norm(y_centered))
  return float(np.clip(r, -1.0, 1.0))


def average_ranks(values):
  """1-based ranks; tied values share the mean of their ranks."""
  values = np.asarray(values)
  order = np.argsort(values, kind="stable")
  sorted_values = values[order]
  starts_group = np.concatenate(
      [[True], sorted_values[1:] != sorted_values[:-1]])
  group_of_sorted = np.cumsum(starts_group) - 1
  group_starts = np.flatnonzero(starts_group)
  group_ends = np.append(group_starts[1:], len(values))
  # Ranks start..end-1 (0-based) average to (start + end + 1) / 2, 1-based.
  group_ranks = (group_starts + group_ends + 1) / 2.0
  ranks = np.empty(len(values), np.float64)
  ranks[order] = group_ranks[group_of_sorted]
  return ranks


def spearman(predictions, gold):
  """Spearman correlation: that of the average ranks (ties included)."""
  inputs = _correlation_inputs(predictions, gold)
  if inputs is None:
    return float("nan")
  # np.corrcoef, as SciPy, for the same rounding.
  correlation = np.corrcoef(*map(average_ranks, inputs))
  return float(np.clip(correlation[0, 1], -1.0, 1.0))


def chunk_f1(predicted_tags, gold_tags):
  """Chunk precision, recall and F1 over sentences of tag strings.

  A chunk counts as correct when a predicted chunk has the gold one's start,
  end and type. Chunks are read from BIO or BIOES tags as the original
  (`tag_spans.spans`).

  Args:
    predicted_tags: one list of tags per sentence.
    gold_tags: as many lists, as long as their predicted ones.

  Returns:
    Dict of `precision`, `recall`, `f1` (all 0 without a correct chunk).
  """
  if len(predicted_tags) != len(gold_tags):
    raise ValueError(f"{len(predicted_tags)} predicted sentences for "
                     f"{len(gold_tags)} gold ones")
  num_correct = num_predicted = num_gold = 0
  for predicted, gold in zip(predicted_tags, gold_tags):
    if len(predicted) != len(gold):
      raise ValueError(f"{len(predicted)} predicted tags for {len(gold)} gold")
    predicted_chunks = set(tag_spans.spans(predicted))
    gold_chunks = set(tag_spans.spans(gold))
    num_correct += len(predicted_chunks & gold_chunks)
    num_predicted += len(predicted_chunks)
    num_gold += len(gold_chunks)
  if num_correct == 0:
    return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
  precision, recall = num_correct / num_predicted, num_correct / num_gold
  return {"precision": precision, "recall": recall,
          "f1": 2 * precision * recall / (precision + recall)}


# Metrics named in `Task.metric_names` for sentence-level tasks.
SENTENCE_METRICS = {
    "accuracy": accuracy,
    "f1": binary_f1,
    "macro_f1": macro_f1,
    "micro_f1": micro_f1,
    "mcc": matthews_corrcoef,
    "pearson": pearson,
    "spearman": spearman,
}


def sentence_scores(metric_names, predictions, gold):
  """Name -> value of each metric in `metric_names` (`SENTENCE_METRICS`)."""
  return {name: SENTENCE_METRICS[name](predictions, gold)
          for name in metric_names}
