"""The layers with hand-written gradients equal Keras' autodiff ones: same
forward values, gradients within float rounding, eagerly and in graphs."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from electra_tf.modeling import activations
from electra_tf.modeling import dense
from electra_tf.modeling import layer_norm
from electra_tf.modeling.column_sums import column_sums


def _gradients(fn, x, weights, eager):
  """d sum(fn(x) * r) / d (x, *weights) for a fixed random r."""
  r = tf.random.stateless_normal(fn(x).shape, [1, 2])

  def run():
    with tf.GradientTape() as tape:
      tape.watch(x)
      y = tf.reduce_sum(tf.cast(fn(x), tf.float32) * r)
    return tape.gradient(y, [x] + weights)

  grads = run() if eager else tf.function(run)()
  return [g.numpy().astype(np.float32) for g in grads]


def _x(shape, dtype="float32", seed=0):
  return tf.cast(3 * tf.random.stateless_normal(shape, [seed, 7]), dtype)


def test_column_sums_is_the_sum_over_leading_axes():
  t = _x([2, 3, 5])
  np.testing.assert_allclose(column_sums(t).numpy(),
                             tf.reduce_sum(t, [0, 1]).numpy(), atol=1e-5)
  assert column_sums(t).shape == [5]


@pytest.mark.parametrize("eager", [True, False])
def test_dense_equals_keras_dense(eager):
  ours, theirs = dense.Dense(6, name="d"), keras.layers.Dense(6, name="d")
  for layer in (ours, theirs):
    layer.build([None, None, 4])
  theirs.set_weights([w.numpy() for w in ours.weights])
  x = _x([2, 3, 4])
  np.testing.assert_array_equal(ours(x).numpy(), theirs(x).numpy())
  for a, b in zip(_gradients(ours, x, ours.trainable_weights, eager),
                  _gradients(theirs, x, theirs.trainable_weights, eager)):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("eager", [True, False])
def test_layer_norm_equals_keras_layer_norm(eager):
  ours = layer_norm.LayerNorm(epsilon=1e-12)
  theirs = keras.layers.LayerNormalization(epsilon=1e-12)
  for layer in (ours, theirs):
    layer.build([None, None, 8])
    layer.set_weights([np.linspace(0.5, 2, 8, dtype=np.float32),
                       np.linspace(-1, 1, 8, dtype=np.float32)])
  x = _x([2, 3, 8]) + 5.0
  np.testing.assert_array_equal(ours(x).numpy(), theirs(x).numpy())
  for a, b in zip(_gradients(ours, x, ours.trainable_weights, eager),
                  _gradients(theirs, x, theirs.trainable_weights, eager)):
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_layer_norm_in_bfloat16_keeps_float32_parameter_gradients():
  ours = layer_norm.LayerNorm(epsilon=1e-12, dtype="mixed_bfloat16")
  theirs = keras.layers.LayerNormalization(epsilon=1e-12,
                                           dtype="mixed_bfloat16")
  for layer in (ours, theirs):
    layer.build([None, 8])
  x = _x([16, 8], "bfloat16")
  assert ours(x).dtype == tf.bfloat16
  np.testing.assert_array_equal(ours(x).numpy(), theirs(x).numpy())
  ours_grads = _gradients(ours, x, ours.trainable_weights, eager=False)
  theirs_grads = _gradients(theirs, x, theirs.trainable_weights, eager=False)
  for a, b in zip(ours_grads, theirs_grads):
    np.testing.assert_allclose(a, b, rtol=0.02, atol=0.02)


@pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`")
def test_layer_norm_refuses_what_its_gradient_does_not_cover():
  with pytest.raises(ValueError, match="axis=1"):
    layer_norm.LayerNorm(axis=1)
  with pytest.raises(ValueError, match="rms_scaling=True"):
    layer_norm.LayerNorm(rms_scaling=True)


@pytest.mark.parametrize("eager", [True, False])
def test_gelu_equals_keras_exact_gelu(eager):
  gelu = activations.get_activation("gelu")

  def keras_gelu(x):
    return keras.activations.gelu(x, approximate=False)

  x = _x([4, 64])
  np.testing.assert_array_equal(gelu(x).numpy(), keras_gelu(x).numpy())
  np.testing.assert_allclose(_gradients(gelu, x, [], eager)[0],
                             _gradients(keras_gelu, x, [], eager)[0],
                             rtol=1e-5, atol=1e-6)


def test_gelu_in_bfloat16_is_float32_gelu_rounded():
  x = _x([4, 64], "bfloat16")
  y = activations.get_activation("gelu")(x)
  assert y.dtype == tf.bfloat16
  expected = tf.cast(keras.activations.gelu(tf.cast(x, tf.float32),
                                            approximate=False), tf.bfloat16)
  np.testing.assert_array_equal(y.numpy(), expected.numpy())
