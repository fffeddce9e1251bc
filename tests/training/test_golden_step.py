"""One optimizer step equals the original's (AdamWeightDecay, clip 1.0)."""

import numpy as np
import pytest

from electra_tf.checkpoints import tf1_names
from electra_tf.training import optimization
from electra_tf.training import pretrain_step

STEP_ATOL = 1e-6


def golden_step(golden):
  model = golden.loaded_pretrainer(lr_decay_power=0.0)
  optimizer = optimization.create_optimizer(model.config,
                                            model.trainable_variables)
  optimizer.iterations.assign(golden.info["train_step"]["start_global_step"])
  return model, optimizer, pretrain_step.PretrainStep(model, optimizer)


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
    theirs = golden.arrays[key]
    scale = max(1.0, float(np.abs(theirs).max()))
    np.testing.assert_allclose(by_name[name], theirs, rtol=0,
                               atol=1e-5 * scale, err_msg=name)


def test_one_step_updates_every_variable_as_the_original(golden):
  model, optimizer, step = golden_step(golden)
  step(golden.features(), training=False, noise=golden.noise())
  assert int(optimizer.iterations) == 16
  after = golden.after_step()
  table = tf1_names.pretrainer_variables(model)
  assert set(after) - {"global_step"} == set(table)
  for name, variable in table.items():
    np.testing.assert_allclose(variable.numpy(), after[name], rtol=0,
                               atol=STEP_ATOL, err_msg=name)
