"""The hand-written gradients equal autodiff's within float rounding, the
sums written as matmuls equal the reductions, and the layers that use them
in 16-bit compute are Keras' layers in float32."""

import math

import keras
import numpy as np
import pytest
import tensorflow as tf

from electra_tf.modeling import activations
from electra_tf.modeling import dense
from electra_tf.modeling import layer_norm
from electra_tf.modeling import softmax
from electra_tf.modeling.matmul_sums import column_sums
from electra_tf.modeling.matmul_sums import row_means
from electra_tf.modeling.matmul_sums import row_sums


def _gradients(fn, inputs, weights=(), eager=True):
  """d sum(fn(*inputs) * r) / d (inputs, weights) for a fixed random r."""
  r = tf.random.stateless_normal(fn(*inputs).shape, [1, 2])

  def run():
    with tf.GradientTape() as tape:
      tape.watch(inputs)
      y = tf.reduce_sum(tf.cast(fn(*inputs), tf.float32) * r)
    return tape.gradient(y, list(inputs) + list(weights))

  grads = run() if eager else tf.function(run)()
  return [g.numpy().astype(np.float32) for g in grads]


def _x(shape, dtype="float32", seed=0):
  return tf.cast(3 * tf.random.stateless_normal(shape, [seed, 7]), dtype)


def _assert_all_close(a, b, tolerance):
  for x, y in zip(a, b):
    np.testing.assert_allclose(x, y, rtol=tolerance, atol=tolerance)


def _assert_no_mergeable_ops(graph):
  """No two ops of `graph` compute the same tensor from its inputs (equal
  type and attributes, inputs from equal ops, constants equal by value):
  the graph optimizer would merge them, and a backward op merged with a
  forward one keeps the forward's result alive until the backward pass.
  Ops of constants only (shape arithmetic) are folded away, not checked."""
  keys, seen, constant = {}, {}, set()
  for op in graph.get_operations():  # in creation order: inputs first
    attrs = tuple(sorted((k, v.SerializeToString())
                         for k, v in op.node_def.attr.items()))
    if op.type == "Placeholder":
      keys[op.name] = op.name
      continue
    key = (op.type, tuple((keys[t.op.name], t.value_index)
                          for t in op.inputs), attrs)
    keys[op.name] = key
    if op.type == "Const" or (op.inputs and all(
        t.op.name in constant for t in op.inputs)):
      constant.add(op.name)
      continue
    assert key not in seen, f"{op.name} equals {seen[key]}"
    seen[key] = op.name


def _value_and_gradient_graph(fn, x):
  """The traced graph of `fn(x)` and its gradient with respect to x."""

  def value_and_gradient(a):
    with tf.GradientTape() as tape:
      tape.watch(a)
      y = fn(a)
    return y, tape.gradient(y, a, output_gradients=tf.ones_like(y))

  return tf.function(value_and_gradient).get_concrete_function(x).graph


def test_column_sums_is_the_sum_over_leading_axes():
  t = _x([2, 3, 5])
  np.testing.assert_allclose(column_sums(t).numpy(),
                             tf.reduce_sum(t, [0, 1]).numpy(), atol=1e-5)
  assert column_sums(t).shape == [5]


def test_row_sums_and_means_are_over_the_last_axis_kept():
  t = _x([2, 3, 5])
  np.testing.assert_allclose(row_sums(t).numpy(),
                             tf.reduce_sum(t, -1, keepdims=True).numpy(),
                             atol=1e-5)
  np.testing.assert_allclose(row_means(t).numpy(),
                             tf.reduce_mean(t, -1, keepdims=True).numpy(),
                             atol=1e-6)
  assert row_sums(t).shape == row_means(t).shape == [2, 3, 1]
  unknown_batch = tf.function(row_means).get_concrete_function(
      tf.TensorSpec([None, None, 5])).structured_outputs
  assert unknown_batch.shape.as_list() == [None, None, 1]
  # Unknown lengths too (softmax over keys of any length).
  unknown = tf.function(row_means, input_signature=[
      tf.TensorSpec([None, None, None])])
  np.testing.assert_allclose(unknown(t).numpy(), row_means(t).numpy(),
                             atol=1e-6)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_softmax_and_its_gradient_equal_tf_softmax(mode):
  scores = _x([2, 3, 4, 16])
  # A masked key (the attention's -10000 adder) and a large score.
  scores = tf.tensor_scatter_nd_add(scores, [[0, 0, 0, 3], [1, 2, 3, 5]],
                                    [-10000.0, 80.0])

  def run(fn):
    def value_and_gradient(a):
      with tf.GradientTape() as tape:
        tape.watch(a)
        y = fn(a)
        weighted = tf.reduce_sum(y * tf.range(16, dtype=tf.float32))
      return y, tape.gradient(weighted, a)

    if mode != "eager":
      value_and_gradient = tf.function(value_and_gradient,
                                       jit_compile=mode == "xla")
    return [t.numpy() for t in value_and_gradient(scores)]

  ours, theirs = run(softmax.softmax_written_gradient), run(tf.nn.softmax)
  np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-7)
  np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-5)
  assert ours[0][0, 0, 0, 3] == 0.0 and ours[0][1, 2, 3, 5] == 1.0


def test_softmax_of_unknown_length():
  scores = _x([2, 3, 7])
  ours = tf.function(softmax.softmax_written_gradient, input_signature=[
      tf.TensorSpec([None, None, None])])(scores)
  np.testing.assert_allclose(ours.numpy(), tf.nn.softmax(scores).numpy(),
                             rtol=1e-6, atol=1e-7)


def test_softmax_gradient_shares_no_op_with_the_forward():
  _assert_no_mergeable_ops(_value_and_gradient_graph(
      softmax.softmax_written_gradient, _x([4, 8])))


@pytest.mark.parametrize("eager", [True, False])
def test_add_bias_gradient_equals_autodiff(eager):
  x, bias = _x([2, 3, 4]), _x([4], seed=1)
  np.testing.assert_array_equal(dense.add_bias(x, bias).numpy(),
                                (x + bias).numpy())
  _assert_all_close(_gradients(dense.add_bias, (x, bias), eager=eager),
                    _gradients(lambda a, b: a + b, (x, bias), eager=eager),
                    1e-5)


@pytest.mark.parametrize("eager", [True, False])
def test_layer_norm_gradient_equals_autodiff(eager):
  x = _x([2, 3, 8]) + 5.0
  gamma = tf.linspace(0.5, 2.0, 8)
  beta = tf.linspace(-1.0, 1.0, 8)

  def keras_normalize(a, g, b):
    return keras.ops.layer_normalization(a, g, b, -1, 1e-12)

  ours = layer_norm.normalize(1e-12)
  np.testing.assert_allclose(ours(x, gamma, beta).numpy(),
                             keras_normalize(x, gamma, beta).numpy(),
                             rtol=1e-6, atol=1e-6)
  _assert_all_close(_gradients(ours, (x, gamma, beta), eager=eager),
                    _gradients(keras_normalize, (x, gamma, beta),
                               eager=eager), 1e-4)


def test_layer_norm_forward_has_no_add_of_an_add():
  # Grappler regroups an add of an add into new nodes, which the
  # XLA-but-matmuls step then runs outside its XLA clusters.
  x = _x([2, 3, 8], "bfloat16")
  graph = tf.function(layer_norm.normalize(1e-12)).get_concrete_function(
      x, tf.ones([8]), tf.zeros([8])).graph
  adds = {op.name for op in graph.get_operations()
          if op.type in ("Add", "AddV2", "AddN")}
  assert adds
  assert not [op.name for op in graph.get_operations() if op.name in adds
              and any(t.op.name in adds for t in op.inputs)]


@pytest.mark.parametrize("eager", [True, False])
def test_gelu_gradient_equals_autodiff(eager):
  x = _x([4, 64])

  def keras_gelu(a):
    return keras.activations.gelu(a, approximate=False)

  ours = activations.gelu_written_gradient
  np.testing.assert_allclose(ours(x).numpy(), keras_gelu(x).numpy(),
                             rtol=1e-6, atol=1e-6)
  _assert_all_close(_gradients(ours, (x,), eager=eager),
                    _gradients(keras_gelu, (x,), eager=eager), 1e-5)


def test_gelu_gradient_shares_no_op_with_the_forward():
  _assert_no_mergeable_ops(_value_and_gradient_graph(
      activations.gelu_written_gradient, _x([4, 64], "bfloat16")))


def _layer_pairs(dtype):
  """(ours, Keras') Dense and LayerNorm pairs with equal weights."""
  pairs = [(dense.Dense(6, dtype=dtype), keras.layers.Dense(6, dtype=dtype)),
           (layer_norm.LayerNorm(epsilon=1e-12, dtype=dtype),
            keras.layers.LayerNormalization(epsilon=1e-12, dtype=dtype))]
  for ours, theirs in pairs:
    for layer in (ours, theirs):
      layer.build([None, 8])
    theirs.set_weights([w.numpy() + 0.1 for w in ours.weights])
    ours.set_weights([w.numpy() for w in theirs.weights])
  return pairs


def test_in_float32_the_layers_are_keras_layers():
  x = _x([16, 8])
  for ours, theirs in _layer_pairs("float32"):
    np.testing.assert_array_equal(ours(x).numpy(), theirs(x).numpy())
    _assert_all_close(
        _gradients(ours, (x,), ours.trainable_weights, eager=False),
        _gradients(theirs, (x,), theirs.trainable_weights, eager=False), 0)
  gelu = activations.get_activation("gelu")
  np.testing.assert_array_equal(
      _gradients(gelu, (x,))[0],
      _gradients(lambda a: keras.activations.gelu(a, approximate=False),
                 (x,))[0])


def test_in_bfloat16_the_layers_match_keras_layers():
  """Equal values, but where LayerNorm's moments, summed in another order,
  round to the neighbouring bfloat16 value."""
  x = _x([16, 8], "bfloat16")
  for ours, theirs in _layer_pairs("mixed_bfloat16"):
    assert ours(x).dtype == tf.bfloat16
    got = ours(x).numpy().astype(np.float32)
    want = theirs(x).numpy().astype(np.float32)
    bf16_ulp = np.spacing(np.abs(want)) * 2.0**16
    assert np.all(np.abs(got - want) <= bf16_ulp)
    assert np.mean(got == want) > 0.9
    _assert_all_close(
        _gradients(ours, (x,), ours.trainable_weights, eager=False),
        _gradients(theirs, (x,), theirs.trainable_weights, eager=False),
        0.05)


def test_gelu_in_bfloat16_is_exact_gelu_rounded():
  """Each value is exact GELU rounded to bfloat16, or a neighbour where
  float32 arithmetic lands on the other side of a rounding boundary; in the
  far negative tail (|GELU| < 1e-4) 1 + erf cancels as in the original's
  float32 formula, to within 1e-6."""
  x = _x([4, 64], "bfloat16")
  y = activations.get_activation("gelu")(x)
  assert y.dtype == tf.bfloat16
  x64 = x.numpy().astype(np.float64)
  exact = x64 * 0.5 * np.vectorize(math.erfc)(-x64 / math.sqrt(2.0))
  rounded = tf.cast(exact, tf.bfloat16).numpy().astype(np.float64)
  got = y.numpy().astype(np.float64)
  ulp = np.spacing(np.abs(rounded).astype(np.float32)) * 2.0**16  # bf16's
  assert np.all(np.abs(got - exact) <= np.maximum(ulp, 1e-6))
  large = np.abs(exact) >= 1e-4
  assert large.sum() > 200 and np.mean(got[large] == rounded[large]) > 0.95


@pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`")
def test_layer_norm_refuses_what_its_gradient_does_not_cover():
  with pytest.raises(ValueError, match="axis=1"):
    layer_norm.LayerNorm(axis=1)
  with pytest.raises(ValueError, match="rms_scaling=True"):
    layer_norm.LayerNorm(rms_scaling=True)


def test_layer_norm_gradient_shares_no_op_with_the_forward():
  gamma, beta = tf.ones([8]) * 1.5, tf.zeros([8]) + 0.25
  _assert_no_mergeable_ops(_value_and_gradient_graph(
      lambda a: layer_norm.normalize(1e-12)(a, gamma, beta),
      _x([4, 8], "bfloat16")))
