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
  nll = negative_log_likelihood(tf.cast(mlm_logits, tf.float32),
                                masked_lm_ids)  # [B, N]
  weights = tf.cast(masked_lm_weights, tf.float32)
  return WeightedLoss(per_example=nll,
                      numerator=tf.reduce_sum(weights * nll),
                      denominator=tf.reduce_sum(weights))


@tf.custom_gradient
def negative_log_likelihood(logits, ids):
  """-log_softmax(logits) at `ids` over the last axis: [B, N, V] -> [B, N].

  The value of the original's one-hot product with log_softmax, which keeps
  one term, `(logit - max) - log(sum(exp(logits - max)))` at the label: the
  same float ops here, with the label's logit gathered. The gradient,
  softmax minus one-hot, is written as one pass over the logits with the
  log-sum-exp of the forward, where autodiff of the product and of
  log_softmax makes several more [B, N, V] passes (see benchmarks/README.md
  for what it saved in ELECTRA-Small's step).
  """
  top = tf.reduce_max(logits, -1)  # [B, N]
  log_sum = tf.math.log(tf.reduce_sum(
      tf.exp(logits - top[..., None]), -1))  # [B, N]
  at_label = tf.gather(logits, ids, batch_dims=len(ids.shape))  # [B, N]
  nll = -((at_label - top) - log_sum)

  def grad(upstream):
    probs = tf.exp(logits - (top + log_sum)[..., None])  # [B, N, V]
    is_label = tf.equal(tf.range(tf.shape(logits)[-1], dtype=ids.dtype),
                        ids[..., None])
    return upstream[..., None] * tf.where(is_label, probs - 1.0, probs), None

  return nll, grad


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
