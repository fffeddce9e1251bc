"""The masked-LM loss: the label's log-probability, as the original's
one-hot product picks it, with a written gradient that stays dense and
fusable."""

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


def test_masked_lm_loss_is_the_one_hot_products_under_xla_too():
  logits, ids, weights = _inputs()

  def nll_and_gradient(nll):
    def run(x):
      with tf.GradientTape() as tape:
        tape.watch(x)
        per_example = nll(x)
        numerator = tf.reduce_sum(per_example * weights)
      return per_example, tape.gradient(numerator, x)
    return tf.function(run, jit_compile=True)

  ours = nll_and_gradient(
      lambda x: losses.masked_lm_loss(x, ids, weights).per_example)
  one_hot_product = nll_and_gradient(lambda x: -tf.reduce_sum(
      tf.nn.log_softmax(x) * tf.one_hot(ids, 50), -1))
  (nll, grad), (expected_nll, expected_grad) = (
      ours(logits), one_hot_product(logits))
  np.testing.assert_array_equal(nll.numpy(), expected_nll.numpy())
  np.testing.assert_allclose(grad.numpy(), expected_grad.numpy(), atol=1e-6)
