"""One optimizer step equals the original's (AdamWeightDecay, clip 1.0)."""

import numpy as np
import pytest

from electra_tf.checkpoints import tf1_names
from electra_tf.pretraining import train_loop
from electra_tf.pretraining import train_step

# Per tensor, relative to the tensor's largest magnitude: an absolute
# tolerance would pass a zero gradient or a missing weight decay, whose
# effects on these tiny models are below 1e-5.
RTOL = 1e-5
STEP_ATOL = 1e-6
# Softmax ignores a bias added to every key, so its true gradient is zero
# and Adam's update of it amplifies float rounding noise in both codes.
ZERO_GRADIENT = "/attention/self/key/bias"


def assert_close_per_tensor(ours, theirs, name):
  scale = float(np.abs(theirs).max())
  assert scale > 0, f"{name}: the original's tensor is all zeros"
  np.testing.assert_allclose(ours, theirs, rtol=0, atol=RTOL * scale,
                             err_msg=name)


def golden_step(golden):
  model = golden.loaded_pretrainer(lr_decay_power=0.0)
  optimizer = train_loop.pretraining_optimizer(model.config,
                                            model.trainable_variables)
  optimizer.iterations.assign(golden.info["train_step"]["start_global_step"])
  return model, optimizer, train_step.PretrainStep(model, optimizer)


def test_learning_rate_used_matches(golden):
  _, optimizer, _ = golden_step(golden)
  assert float(optimizer.current_learning_rate()) == pytest.approx(
      golden.info["train_step"]["learning_rate_used"], rel=1e-7)


def test_gradients_match_the_original(golden):
  model, _, step = golden_step(golden)
  grads, _, _ = step.gradients(golden.features(), training=False,
                               noise=golden.noise())
  by_name = {}
  table = tf1_names.pretrainer_variables(model)
  refs = {v.value.ref(): g for v, g in zip(model.trainable_variables, grads)}
  for name, variable in table.items():
    by_name[name] = refs[variable.value.ref()].numpy()
  norm = np.sqrt(sum(float((g ** 2).sum()) for g in by_name.values()))
  np.testing.assert_allclose(
      norm, golden.arrays["pretrain/grad_global_norm_before_clip"], rtol=1e-5)
  saved = [k for k in golden.arrays if k.startswith("pretrain/grads/")]
  assert len(saved) >= 9
  for key in saved:
    name = key[len("pretrain/grads/"):].replace("__", "/")
    assert_close_per_tensor(by_name[name], golden.arrays[key], name)


def test_one_step_updates_every_variable_as_the_original(golden):
  """Compares the updates (after - before), so that every term of the
  update (gradient, Adam moments, weight decay, clipping) shows."""
  model, optimizer, step = golden_step(golden)
  table = tf1_names.pretrainer_variables(model)
  before = {name: variable.numpy() for name, variable in table.items()}
  step(golden.features(), training=False, noise=golden.noise())
  assert int(optimizer.iterations) == 16
  after = golden.after_step()
  assert set(after) - {"global_step"} == set(table)
  for name, variable in table.items():
    np.testing.assert_allclose(variable.numpy(), after[name], rtol=0,
                               atol=STEP_ATOL, err_msg=name)
    # The update itself, relative to its size (Adam divides by the
    # gradient's magnitude, so single elements with tiny gradients may
    # differ more; the tensor's update as a whole may not).
    if name.endswith(ZERO_GRADIENT):
      continue
    ours, theirs = variable.numpy() - before[name], after[name] - before[name]
    assert np.abs(theirs).max() > 0, name
    # Plus what storing the weights in float32 alone can move (an update of
    # a LayerNorm gamma near 1.0 is resolved to ~1e-7 only).
    storage = np.linalg.norm(np.spacing(np.abs(after[name])))
    error = np.linalg.norm(ours - theirs)
    assert error <= RTOL * np.linalg.norm(theirs) + storage, (
        f"{name}: update error {error:.2e}, update {np.linalg.norm(theirs):.2e}")
