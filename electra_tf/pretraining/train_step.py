"""One pretraining step as seen by one replica.

The step normalises the losses by GLOBAL counts: each replica divides its
loss numerators by the denominators summed over all replicas; the rest is
`replica_step`'s (gradients summed over replicas, clipped once, applied
identically everywhere). N replicas thus compute exactly what one device
computes for the same global batch.
"""

import tensorflow as tf

from electra_tf.pretraining import health
from electra_tf.pretraining import losses
from electra_tf.pretraining import metrics
from electra_tf.training import replica_step


def replica_loss(loss_weights, outputs):
  """This replica's share of the global loss (shares sum to the loss).

  Each term's numerator is divided by its denominator summed over replicas.
  """
  names = list(loss_weights)
  denominators = replica_step.all_reduce_sum(
      [tf.stop_gradient(outputs[f"{n}_loss_denominator"]) for n in names])
  return losses.weighted_total(loss_weights, {
      n: (outputs[f"{n}_loss_numerator"], d)
      for n, d in zip(names, denominators)})


class PretrainStep:
  """Forward, backward and update for `ElectraPretrainer`.

  Args:
    model: an `ElectraPretrainer`.
    optimizer: a built `optimization.AdamWeightDecay`.
    loss_scale: a `DynamicLossScale` for float16 training, else None.
  """

  def __init__(self, model, optimizer, loss_scale=None):
    self.model = model
    self.optimizer = optimizer
    self.loss_scale = loss_scale
    self.config = model.config

  def gradients(self, features, training=True, noise=None):
    """Returns (summed-over-replicas gradients, replica loss, outputs)."""
    batch_size = tf.shape(features["input_ids"])[0]

    def loss_fn():
      outputs = self.model(
          features, training=training, noise=noise, seed=self.config.seed,
          step=self.optimizer.iterations,
          example_offset=replica_step.replica_offset(batch_size))
      return replica_loss(self.model.loss_weights, outputs), outputs

    return replica_step.gradients(loss_fn, self.model.trainable_variables,
                                  self.loss_scale)

  def __call__(self, features, training=True, noise=None):
    """Runs one step; returns this replica's metric sums (plus the loss)."""
    grads, loss, outputs = self.gradients(features, training, noise)
    norm = replica_step.apply_clipped(self.optimizer, grads,
                                      self.model.trainable_variables,
                                      self.loss_scale)
    return training_sums(self.model.loss_weights, outputs, loss, norm)


# Sums that are equal on every replica: reduce them with MEAN, not SUM.
REPLICATED_SUMS = ("grad_norm",)


def loss_part_keys(loss_weights):
  return [f"{name}_loss_{end}" for name in loss_weights
          for end in ("numerator", "denominator")]


def training_sums(loss_weights, outputs, loss, grad_norm):
  """What a step reports: metric sums, loss parts, loss share, grad norm."""
  sums = metrics.metric_sums(outputs)
  for key in loss_part_keys(loss_weights):
    sums[key] = outputs[key]
  sums["loss"] = loss
  sums["grad_norm"] = grad_norm
  return sums


def empty_training_sums(loss_weights, has_discriminator):
  """Zeros with the keys and shapes `training_sums` returns."""
  sums = metrics.empty_sums(has_discriminator)
  for key in loss_part_keys(loss_weights):
    sums[key] = tf.zeros([], tf.float32)
  sums["loss"] = tf.zeros([], tf.float32)
  sums["grad_norm"] = tf.zeros([], tf.float32)
  return sums


def eval_sums(model, features, batch_index):
  """Metric sums of one eval batch: no dropout, noise seeded by batch."""
  outputs = model(features, training=False, step=batch_index,
                  example_offset=replica_step.replica_offset(
                      tf.shape(features["input_ids"])[0]))
  sums = metrics.metric_sums(outputs)
  sums.update(health.health_sums(outputs, features["input_mask"]))
  return sums
