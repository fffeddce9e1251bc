"""`jit_compile_matmuls: false`: XLA for all but the matmuls computes the
original's step, and the training loop runs it."""

import numpy as np
import tensorflow as tf

from electra_tf.checkpoints import tf1_names
from electra_tf.modeling import dense
from electra_tf.modeling import layer_norm
from electra_tf.modeling import softmax
from electra_tf.pretraining import train_loop
from electra_tf.training import xla_regions
from tests.training.conftest import ONE_LAYER
from tests.training.conftest import tiny_config
from tests.training.test_golden_step import STEP_ATOL
from tests.training.test_golden_step import golden_step
from tests.training.test_loop import final_weights


def _nodes(graph):
  """Every NodeDef of `graph` and of the functions in its library."""
  definition = graph.as_graph_def()
  nodes = list(definition.node)
  for function in definition.library.function:
    nodes += list(function.node_def)
  return nodes


def _marked(graph):
  """{op type: set of its _XlaCompile marks} over `graph` and its functions."""
  marks = {}
  for node in _nodes(graph):
    mark = node.attr["_XlaCompile"].b if "_XlaCompile" in node.attr else None
    marks.setdefault(node.op, set()).add(mark)
  return marks


def test_one_step_equals_the_original_with_matmuls_left_out(golden):
  model, optimizer, step = golden_step(golden)
  table = tf1_names.pretrainer_variables(model)
  function = tf.function(xla_regions.all_but_matmuls(
      lambda features, noise: step(features, training=False, noise=noise)))
  features, noise = golden.features(), golden.noise()
  marks = _marked(function.get_concrete_function(features, noise).graph)
  # Element-wise work (forward and gradients) is XLA's; matmuls are not.
  assert marks["Mul"] == {True} and marks["Erfc"] == {True}
  assert marks["RsqrtGrad"] == {True} and marks["Softmax"] == {True}
  assert marks["Exp"] == {True} and marks["L2Loss"] == {True}
  assert marks["MatMul"] == {False} and marks["BatchMatMulV2"] == {False}
  assert marks["GatherV2"] == {False}  # gathers are TensorFlow's too
  function(features, noise)
  assert int(optimizer.iterations) == 16
  after = golden.after_step()
  for name, variable in table.items():
    np.testing.assert_allclose(variable.numpy(), after[name], rtol=0,
                               atol=STEP_ATOL, err_msg=name)


def test_the_training_loop_runs_it_as_the_plain_graph(shards, tmp_path):
  """Several steps per host loop (the XLA clusters cannot sit inside the
  graph loop the other modes use) give the weights of the plain graph."""
  plain = tiny_config(num_train_steps=4, iterations_per_loop=2,
                      save_checkpoints_steps=4,
                      model_hparam_overrides=ONE_LAYER)
  fused = plain.override(jit_compile=True, jit_compile_matmuls=False)
  for config, folder in ((plain, "plain"), (fused, "fused")):
    result = train_loop.pretrain(config, tf.distribute.get_strategy(),
                                 str(tmp_path / folder), shards)
    assert result.step == 4
  a = final_weights(str(tmp_path / "plain"), plain)
  b = final_weights(str(tmp_path / "fused"), fused)
  for name in a:
    np.testing.assert_allclose(b[name], a[name], rtol=0, atol=1e-5,
                               err_msg=name)


def test_row_sums_are_compiled_with_the_element_wise_work():
  """In 16-bit compute LayerNorm's and softmax's row sums are matmuls that
  XLA compiles, forward and backward; other matmuls stay TensorFlow's."""
  layer = dense.Dense(8, dtype="mixed_bfloat16")
  norm = layer_norm.LayerNorm(epsilon=1e-12, dtype="mixed_bfloat16")
  x = tf.cast(tf.random.stateless_normal([2, 3, 8], [1, 2]), tf.bfloat16)

  def step(a):
    with tf.GradientTape() as tape:
      tape.watch(a)
      y = norm(layer(a))
      y = softmax.softmax_written_gradient(tf.cast(y, tf.float32))
    return tape.gradient(y, [a] + layer.trainable_weights)

  function = tf.function(xla_regions.all_but_matmuls(step))
  marks = {node.name: node.attr["_XlaCompile"].b
           for node in _nodes(function.get_concrete_function(x).graph)
           if node.op == "MatMul"}
  row_sums = {name for name in marks if "row_sums" in name}
  # LayerNorm: 2 forward, 4 backward; softmax: 1 forward, 1 backward.
  assert len(row_sums) == 8
  assert all(marks[name] for name in row_sums)
  assert not any(marks[name] for name in set(marks) - row_sums)
  assert len(marks) > len(row_sums)
