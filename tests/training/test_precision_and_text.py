"""bf16 and fp16 steps, and losses falling on real text."""

import gzip
import os

import keras
import numpy as np
import tensorflow as tf

from electra_tf.data import corpus
from electra_tf.data import pretraining_dataset
from electra_tf.data import tfrecords
from electra_tf.pretraining import train_loop
from electra_tf.pretraining import train_step
from tests.conftest import TESTDATA
from tests.training.conftest import ONE_LAYER
from tests.training.conftest import tiny_config


def _step_and_features(config, shards):
  model, optimizer, loss_scale = train_loop.build_model_and_optimizer(
      config, tf.distribute.get_strategy(), None)
  step = train_step.PretrainStep(model, optimizer, loss_scale)
  data = train_loop.pretrain_pipeline.pretraining_dataset(
      shards, config.train_batch_size, config.max_seq_length)
  return model, optimizer, loss_scale, step, next(iter(data))


def test_bfloat16_step_keeps_float32_variables_and_close_losses(shards):
  fp32 = tiny_config(model_hparam_overrides=ONE_LAYER)
  model, _, _, _, features = _step_and_features(fp32, shards)
  reference = model(features)["total_loss"].numpy()
  bf16 = fp32.override(precision="mixed_bfloat16", jit_compile=True)
  model, _, _, step, _ = _step_and_features(bf16, shards)
  assert model.electra_encoder.compute_dtype == "bfloat16"
  assert all(v.dtype == "float32" for v in model.trainable_variables)
  loss = model(features)["total_loss"].numpy()
  np.testing.assert_allclose(loss, reference, rtol=0.02)
  sums = tf.function(step, jit_compile=True)(features)
  assert np.isfinite(sums["loss"].numpy())


def test_float16_loss_scaling_skips_overflowing_steps(shards):
  config = tiny_config(precision="mixed_float16")
  model, optimizer, loss_scale, step, features = _step_and_features(
      config, shards)
  compiled = tf.function(step)
  loss_scale.scale_value.assign(2.0 ** 120)  # overflows float16 backward
  before = [v.numpy() for v in model.trainable_variables]
  compiled(features)
  after = [v.numpy() for v in model.trainable_variables]
  assert all(np.array_equal(a, b) for a, b in zip(before, after))
  assert float(loss_scale.scale_value) == 2.0 ** 119
  loss_scale.scale_value.assign(8.0)  # small enough to stay finite
  sums = compiled(features)
  assert np.isfinite(sums["loss"].numpy())
  changed = [v.numpy() for v in model.trainable_variables]
  assert not all(np.array_equal(a, b) for a, b in zip(after, changed))
  assert int(loss_scale.good_steps.numpy()) == 1
  assert int(optimizer.iterations.numpy()) == 2  # skipped steps still count


def test_losses_fall_on_real_text(tmp_path):
  text = tmp_path / "text.txt"
  with gzip.open(os.path.join(TESTDATA, "data_builder", "text.txt.gz")) as f:
    text.write_bytes(f.read())
  vocab = os.path.join(TESTDATA, "bert_uncased_vocab.txt")
  out = str(tmp_path / "data")
  pretraining_dataset.build_pretraining_dataset(
      pretraining_dataset.BuildConfig(output_dir=out, vocab_file=vocab,
                                      max_seq_length=64, num_output_files=2),
      corpus.FileCorpus((str(text),)))
  keras.utils.set_random_seed(0)
  config = tiny_config(vocab_size=30522, max_seq_length=64,
                       train_batch_size=16, learning_rate=2e-3,
                       num_warmup_steps=10, num_train_steps=60,
                       iterations_per_loop=20, save_checkpoints_steps=60,
                       jit_compile=True, model_hparam_overrides=ONE_LAYER)
  seen = []
  original = train_loop._log_chunk  # pylint: disable=protected-access

  def record(*args, **kwargs):
    values = original(*args, **kwargs)
    seen.append(values)
    return values

  train_loop._log_chunk = record  # pylint: disable=protected-access
  try:
    train_loop.pretrain(config, tf.distribute.get_strategy(),
                        str(tmp_path / "m"), tfrecords.finished_shards(out))
  finally:
    train_loop._log_chunk = original  # pylint: disable=protected-access
  first, last = seen[0], seen[-1]
  assert last["mlm_loss"] < first["mlm_loss"] - 1.0
  assert last["disc_loss"] < first["disc_loss"]
