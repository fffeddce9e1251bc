"""Where finetuning starts from (ours, original TF1) and export loading."""

import gc
import os

import numpy as np
import pytest
import tensorflow as tf

import electra_tf
from electra_tf import errors
from electra_tf.checkpoints import tf1_names
from electra_tf.finetuning import checkpoints
from electra_tf.finetuning import model as model_lib
from electra_tf.finetuning.config import FinetuningConfig
from electra_tf.pretraining import train_loop
from electra_tf.training import checkpointing
from tests.finetuning import synthetic_tasks

ENCODER = synthetic_tasks.ENCODER


def pretrainer(**overrides):
  hparams = {"vocab_size": synthetic_tasks.VOCAB_SIZE,
             "embedding_size": synthetic_tasks.EMBEDDING_SIZE,
             "model_hparam_overrides": ENCODER}
  hparams.update(overrides)
  model = electra_tf.ElectraPretrainer(
      electra_tf.PretrainingConfig.from_hparams(hparams))
  model.build()
  return model


def finetuning_model(tasks=("sst",), **overrides):
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=list(tasks), **overrides))
  return config, model_lib.build_finetuning_model(config)


def encoder_weights(encoder):
  return {n: v.numpy() for n, v in
          tf1_names.encoder_variables(encoder, "electra").items()}


def assert_same_encoder(a, b):
  weights_a, weights_b = encoder_weights(a), encoder_weights(b)
  assert sorted(weights_a) == sorted(weights_b)
  for name in weights_a:
    np.testing.assert_array_equal(weights_a[name], weights_b[name], name)


def test_original_tf1_checkpoint_loads_the_discriminator_only(tmp_path):
  source = pretrainer()
  path = electra_tf.save_original_checkpoint(source, str(tmp_path / "m.ckpt"))
  _, model = finetuning_model()
  head_before = model.task_heads["sst"].dense.kernel.numpy()
  description = checkpoints.load_encoder(model.electra_encoder, str(tmp_path))
  assert "original" in description and path in description
  assert_same_encoder(model.electra_encoder, source.electra_encoder)
  np.testing.assert_array_equal(model.task_heads["sst"].dense.kernel.numpy(),
                                head_before)


def test_our_pretraining_checkpoint_dir_loads_the_encoder(tmp_path):
  source = pretrainer()
  optimizer = train_loop.pretraining_optimizer(source.config,
                                            source.trainable_variables)
  checkpointing.RunCheckpoints(str(tmp_path), source, optimizer).save(
      force=True)
  _, model = finetuning_model()
  checkpoints.load_encoder(model.electra_encoder, str(tmp_path))
  assert_same_encoder(model.electra_encoder, source.electra_encoder)


@pytest.mark.parametrize("kind", ["ours", "original"])
def test_a_checkpoint_of_another_size_is_refused(tmp_path, kind):
  other = pretrainer(model_hparam_overrides=dict(ENCODER, hidden_size=32))
  prefix = str(tmp_path / "m.ckpt")
  if kind == "ours":
    tf.train.Checkpoint(model=other).write(prefix)
  else:
    electra_tf.save_original_checkpoint(other, prefix)
  _, model = finetuning_model()
  with pytest.raises(errors.CheckpointError, match="m.ckpt"):
    checkpoints.load_encoder(model.electra_encoder, prefix)


def test_missing_checkpoint_is_a_one_line_error(tmp_path):
  _, model = finetuning_model()
  with pytest.raises(errors.CheckpointError, match="no checkpoint in"):
    checkpoints.load_encoder(model.electra_encoder, str(tmp_path))


def test_finetuned_model_reloads_for_export(tmp_path):
  config, model = finetuning_model(("sst", "sts"))
  checkpoints.record_run(str(tmp_path), config, {})
  tf.train.CheckpointManager(tf.train.Checkpoint(model=model), str(tmp_path),
                             1).save(checkpoint_number=7)
  loaded, loaded_config, task = checkpoints.load_finetuned_model(
      str(tmp_path), "sts")
  assert task.name == "sts" and loaded_config.task_names == ("sst", "sts")
  ids = np.array([[2, 7, 9, 3, 0]], np.int32)
  batch = {"input_ids": ids, "input_mask": (ids > 0).astype(np.int32),
           "segment_ids": np.zeros_like(ids)}
  np.testing.assert_allclose(loaded(batch)["sts"]["predictions"],
                             model(batch)["sts"]["predictions"], rtol=1e-6)
  with pytest.raises(errors.ConfigError, match="name a task"):
    checkpoints.load_finetuned_model(str(tmp_path))


def test_a_model_dir_of_another_model_is_refused(tmp_path):
  config, _ = finetuning_model()
  checkpoints.record_run(str(tmp_path), config, {})
  checkpoints.record_run(str(tmp_path), config.override(learning_rate=1e-3),
                         {})
  with pytest.raises(errors.ConfigError, match="model_size"):
    checkpoints.record_run(str(tmp_path), config.override(model_size="base"),
                           {})
  assert os.path.exists(tmp_path / checkpoints.CONFIG_FILE)


def test_loading_an_encoder_from_a_pretraining_run_is_quiet(tmp_path,
                                                           caplog):
  """The generator and heads a pretraining checkpoint also holds are
  expected to stay behind: no warning per unused variable."""
  prefix = synthetic_tasks.save_pretrained_model(str(tmp_path))
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=["sst"]))
  model = model_lib.build_finetuning_model(config)
  with caplog.at_level("WARNING"):
    checkpoints.load_encoder(model.electra_encoder, prefix)
    gc.collect()  # unused-value warnings come when the load status dies
  assert not [r for r in caplog.records if "could not be found" in
              r.getMessage() or "Value in checkpoint" in r.getMessage()]
