"""Pretraining losses as pure functions.

Each loss is a weighted mean, `sum(w * l) / (sum(w) + 1e-6)`. The functions
return the numerator and denominator too, so a distributed step can divide
every replica's numerator by the global denominator and match one device.

Shape legend: B batch, L sequence length, N prediction slots, V vocab size.
"""

import dataclasses

import tensorflow as tf

DENOMINATOR_EPS = 1e-6


@dataclasses.dataclass(frozen=True)
class WeightedLoss:
  """A weighted-mean loss with its parts."""
  per_example: tf.Tensor  # the unreduced loss, see each function
  numerator: tf.Tensor  # scalar: sum(weights * loss)
  denominator: tf.Tensor  # scalar: sum(weights)

  @property
  def value(self):
    return mean_of(self.numerator, self.denominator)


def mean_of(numerator, denominator):
  """A weighted mean from its parts (0 when the weights sum to 0)."""
  return numerator / (denominator + DENOMINATOR_EPS)


def weighted_total(loss_weights, parts):
  """`sum(weight * mean)` over the terms; `parts[name]` is the term's
  (numerator, denominator). The one formula of the training loss."""
  return sum(weight * mean_of(*parts[name])
             for name, weight in loss_weights.items())


def masked_lm_loss(mlm_logits, masked_lm_ids, masked_lm_weights):
  """Cross-entropy of the generator at the filled prediction slots.

  `per_example` is the negative log-likelihood [B, N] of every slot.
  """
  log_probs = tf.nn.log_softmax(tf.cast(mlm_logits, tf.float32))  # [B, N, V]
  # The original's one-hot product, not a gather: exact all the same (one
  # term and zeros), and its gradient fuses into the softmax's where a
  # gather's is a scatter into a dense [B, N, V] of zeros.
  labels = tf.one_hot(masked_lm_ids, tf.shape(log_probs)[-1],
                      dtype=tf.float32)  # [B, N, V]
  nll = -tf.reduce_sum(log_probs * labels, -1)  # [B, N]
  weights = tf.cast(masked_lm_weights, tf.float32)
  return WeightedLoss(per_example=nll,
                      numerator=tf.reduce_sum(weights * nll),
                      denominator=tf.reduce_sum(weights))


def discriminator_loss(disc_logits, is_fake, weights):
  """Sigmoid cross-entropy of the replaced-token detector.

  `weights` is the input mask (every real token counts) or, for the
  ELECTRA-15% ablation, the masked positions. `per_example` is the weighted
  mean over each sequence [B].
  """
  weights = tf.cast(weights, tf.float32)
  losses = tf.nn.sigmoid_cross_entropy_with_logits(
      labels=tf.cast(is_fake, tf.float32),
      logits=tf.cast(disc_logits, tf.float32)) * weights  # [B, L]
  per_example = tf.reduce_sum(losses, -1) / (
      DENOMINATOR_EPS + tf.reduce_sum(weights, -1))
  return WeightedLoss(per_example=per_example,
                      numerator=tf.reduce_sum(losses),
                      denominator=tf.reduce_sum(weights))
