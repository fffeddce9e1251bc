"""Dynamic loss scaling for float16 training (GPUs).

The loss is multiplied by a scale before the backward pass so small
gradients survive float16; gradients are divided by it afterwards. A step
whose gradients are not finite is skipped and the scale halved; after
`growth_interval` finite steps in a row the scale doubles.
"""

import tensorflow as tf

INITIAL_SCALE = 2.0 ** 15
GROWTH_INTERVAL = 2000


def _replica_variable(value, dtype, name):
  # Every replica computes the same update; keep the first replica's.
  return tf.Variable(value, dtype=dtype, trainable=False, name=name,
                     synchronization=tf.VariableSynchronization.ON_WRITE,
                     aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)


class DynamicLossScale(tf.Module):
  """Loss scale state and its update rule."""

  def __init__(self, initial_scale=INITIAL_SCALE,
               growth_interval=GROWTH_INTERVAL, name="loss_scale"):
    super().__init__(name=name)
    self.growth_interval = growth_interval
    self.scale_value = _replica_variable(initial_scale, tf.float32, "scale")
    self.good_steps = _replica_variable(0, tf.int64, "good_steps")

  def scale(self, loss):
    return loss * tf.cast(self.scale_value, loss.dtype)

  def unscale(self, grads):
    inverse = 1.0 / self.scale_value
    return [g * tf.cast(inverse, g.dtype) for g in grads]

  def apply_if_finite(self, optimizer, grads, grad_norm, variables):
    """Applies the update when `grad_norm` is finite and adapts the scale."""
    finite = tf.math.is_finite(grad_norm)
    optimizer.apply(grads, variables, keep=finite)
    grown = self.good_steps + 1 >= self.growth_interval
    new_scale = tf.where(
        finite, tf.where(grown, self.scale_value * 2.0, self.scale_value),
        tf.maximum(self.scale_value / 2.0, 1.0))
    self.scale_value.assign(new_scale)
    self.good_steps.assign(tf.where(finite & ~grown, self.good_steps + 1,
                                    tf.zeros_like(self.good_steps)))
