"""benchmarks/matmul_shapes.py lists the step's matmuls: their FLOPs are
the model FLOPs, each form is the product the gradient needs, and the
per-step totals follow from the rates."""

import os
import sys

import pytest
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "benchmarks"))
import matmul_shapes  # pylint: disable=g-import-not-at-top,wrong-import-position
from electra_tf import config as config_lib  # pylint: disable=g-import-not-at-top,wrong-import-position
from electra_tf.modeling import sizes  # pylint: disable=g-import-not-at-top,wrong-import-position


@pytest.mark.parametrize("preset, hparams", [
    ("electra_small", {}),
    ("electra_base", {"max_seq_length": 512}),
    ("electra_small", {"untied_generator_embeddings": True,
                       "max_predictions_per_seq": 7}),
])
def test_the_listed_matmuls_are_the_model_flops(preset, hparams):
  config = config_lib.load_pretraining_config(preset, hparams)
  matmuls = matmul_shapes.step_matmuls(
      matmul_shapes.step_products(config, 3))
  assert matmul_shapes.step_flops(matmuls) == (
      3 * sizes.pretraining_flops_per_sequence(config))
  assert {mm.form for mm in matmuls} == set(matmul_shapes.FORMS)


def test_each_form_is_the_product_its_gradient_needs():
  product = matmul_shapes.Product("dense", 2, m=5, k=3, n=4, per_step=1)
  x = tf.random.normal([2, 5, 3])
  w = tf.random.normal([2, 3, 4])
  dy = tf.random.normal([2, 5, 4])
  with tf.GradientTape() as tape:
    tape.watch([x, w])
    y = tf.matmul(x, w)
  dx, dw = tape.gradient(y, [x, w], output_gradients=dy)
  operands = {"forward": (x, w), "input gradient": (dy, w),
              "weight gradient": (x, dy)}
  expected = {"forward": y, "input gradient": dx, "weight gradient": dw}
  for mm in matmul_shapes.step_matmuls([product]):
    batch, a_shape, b_shape, transpose_a, transpose_b = mm.kernel_shape
    a, b = operands[mm.form]
    assert (batch,) + a_shape == tuple(a.shape)
    assert (batch,) + b_shape == tuple(b.shape)
    result = tf.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    assert result.shape == (batch, mm.m, mm.n)
    assert float(tf.reduce_max(tf.abs(result - expected[mm.form]))) < 1e-5
    assert mm.flops == 2 * 2 * 5 * 3 * 4


def test_step_ms_is_each_matmuls_flops_at_its_shapes_rate():
  matmuls = matmul_shapes.step_matmuls([
      matmul_shapes.Product("a", 1, 10, 20, 30, per_step=4),
      matmul_shapes.Product("b", 1, 10, 20, 30, per_step=1)])
  # Rates per kernel shape; "b" shares "a"'s shapes, so its rates too.
  rates = {mm.kernel_shape: {"TF/oneDNN": 1e9 * (i + 1)}
           for i, mm in enumerate(matmuls[:3])}
  per_form = [2 * 10 * 20 * 30 / (1e9 * (i + 1)) for i in range(3)]
  assert matmul_shapes.step_ms(matmuls, rates, "TF/oneDNN") == pytest.approx(
      (4 + 1) * sum(per_form) * 1e3)


def test_other_objectives_are_refused_by_name():
  config = config_lib.load_pretraining_config(
      "electra_small", {"objective": "electra_15"})
  with pytest.raises(ValueError, match="electra_15"):
    matmul_shapes.step_products(config, 2)
