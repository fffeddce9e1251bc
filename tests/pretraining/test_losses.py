"""The masked-LM loss: the label's log-probability picked by a one-hot
product, whose gradient stays dense and fusable."""

import numpy as np
import tensorflow as tf

from electra_tf.pretraining import losses

SCATTERS = ("UnsortedSegmentSum", "ScatterNd", "TensorScatterAdd",
            "TensorScatterUpdate")


def _inputs():
  logits = 4 * tf.random.stateless_normal([2, 3, 50], [3, 1])  # [B, N, V]
  ids = tf.random.stateless_uniform([2, 3], [4, 1], maxval=50,
                                    dtype=tf.int32)  # [B, N]
  weights = tf.constant([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
  return logits, ids, weights


def test_masked_lm_nll_is_minus_the_labels_log_probability():
  logits, ids, weights = _inputs()
  loss = losses.masked_lm_loss(logits, ids, weights)
  picked = tf.gather(tf.nn.log_softmax(logits), ids, batch_dims=2)
  np.testing.assert_array_equal(loss.per_example.numpy(), -picked.numpy())
  assert float(loss.denominator) == 3.0
  np.testing.assert_allclose(float(loss.numerator),
                             -float(tf.reduce_sum(picked * weights)),
                             rtol=1e-6)


def test_masked_lm_gradient_is_softmax_minus_one_hot_without_a_scatter():
  logits, ids, weights = _inputs()

  @tf.function
  def gradient(x):
    with tf.GradientTape() as tape:
      tape.watch(x)
      numerator = losses.masked_lm_loss(x, ids, weights).numerator
    return tape.gradient(numerator, x)

  grad = gradient(logits)
  expected = (tf.nn.softmax(logits) - tf.one_hot(ids, 50)) * weights[..., None]
  np.testing.assert_allclose(grad.numpy(), expected.numpy(), atol=1e-6)
  ops = {op.type for op in
         gradient.get_concrete_function(logits).graph.get_operations()}
  assert not ops & set(SCATTERS), ops & set(SCATTERS)
