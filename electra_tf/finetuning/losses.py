"""Per-example finetuning losses of the original recipe (pure functions).

Shape legend: B batch, L sequence length, K classes.

Labels enter through one-hot vectors, as in the original, so an id outside
[0, K) (a padding example, or another task's label in a multi-task batch)
gives a zero target instead of an error.
"""

import tensorflow as tf


def softmax_cross_entropy(logits, label_ids):
  """-log p(label); `logits` [..., K] float32, `label_ids` int [...]."""
  one_hot = tf.one_hot(label_ids, tf.shape(logits)[-1], dtype=logits.dtype)
  return -tf.reduce_sum(one_hot * tf.nn.log_softmax(logits, -1), -1)


def squared_error(predictions, targets):
  """(prediction - target)^2 per example, [B]."""
  return tf.square(predictions - tf.cast(targets, predictions.dtype))


def tagging_loss(logits, labels, labels_mask):
  """Cross entropy summed over the tagged words: [B, L, K] -> [B]."""
  per_word = softmax_cross_entropy(logits, labels)  # [B, L]
  return tf.reduce_sum(per_word * tf.cast(labels_mask, per_word.dtype), -1)


def span_loss(start_logits, end_logits, start_positions, end_positions):
  """Mean of the start and end cross entropies over positions, [B]."""
  return (softmax_cross_entropy(start_logits, start_positions) +
          softmax_cross_entropy(end_logits, end_positions)) / 2.0


def answerable_loss(answerable_logit, is_impossible):
  """Sigmoid cross entropy of the "unanswerable" logit, [B]."""
  return tf.nn.sigmoid_cross_entropy_with_logits(
      labels=tf.cast(is_impossible, answerable_logit.dtype),
      logits=answerable_logit)


def select_task_losses(task_losses, task_ids):
  """Each example's loss under its own task, summed over the batch.

  Args:
    task_losses: one [B] float32 tensor per task, in task-id order.
    task_ids: int [B]; an id of no task (padding) contributes nothing.

  Returns:
    The scalar sum, as the original's finetuning loss (a sum, not a mean).
  """
  stacked = tf.stack(task_losses, -1)  # [B, T]
  one_hot = tf.one_hot(task_ids, len(task_losses), dtype=stacked.dtype)
  return tf.reduce_sum(stacked * one_hot)
