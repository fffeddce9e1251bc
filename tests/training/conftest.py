"""Fixtures: tiny configs and TFRecords of synthetic pretraining examples."""

import numpy as np
import pytest
import tensorflow as tf

import electra_tf

VOCAB = 120
SEQ = 16


# The encoder of `tiny_config` with one layer: for tests whose XLA compiles
# or replicas make every layer cost seconds.
ONE_LAYER = {"hidden_size": 32, "num_hidden_layers": 1,
             "num_attention_heads": 2, "intermediate_size": 64}


def tiny_config(**overrides):
  hparams = {
      "vocab_size": VOCAB, "embedding_size": 16, "max_seq_length": SEQ,
      "generator_hidden_size": 0.5, "train_batch_size": 8,
      "eval_batch_size": 8, "learning_rate": 1e-3, "num_warmup_steps": 2,
      "num_train_steps": 6, "iterations_per_loop": 2,
      "save_checkpoints_steps": 2, "seed": 3,
      # Health checks cost an eval pass per checkpoint; their tests ask.
      "health_eval_batches": 0,
      # XLA compiles take seconds; the tests that need XLA turn it on.
      "jit_compile": False,
      "model_hparam_overrides": {"hidden_size": 32, "num_hidden_layers": 2,
                                 "num_attention_heads": 2,
                                 "intermediate_size": 64}}
  hparams.update(overrides)
  return electra_tf.PretrainingConfig.from_hparams(hparams)


def write_records(path, num_examples, seed=0, seq_length=SEQ):
  """[CLS] tokens [SEP] [PAD]... examples with random lengths."""
  rng = np.random.RandomState(seed)
  with tf.io.TFRecordWriter(path) as writer:
    for _ in range(num_examples):
      length = rng.randint(6, seq_length + 1)
      ids = [101] + list(rng.randint(104, VOCAB, size=length - 2)) + [102]
      ids += [0] * (seq_length - length)
      mask = [1] * length + [0] * (seq_length - length)
      feature = {
          name: tf.train.Feature(int64_list=tf.train.Int64List(value=values))
          for name, values in (("input_ids", ids), ("input_mask", mask),
                               ("segment_ids", [0] * seq_length))}
      writer.write(tf.train.Example(
          features=tf.train.Features(feature=feature)).SerializeToString())
  return path


@pytest.fixture
def shards(tmp_path):
  return [write_records(str(tmp_path / f"data.tfrecord-{i}"), 40, seed=i)
          for i in range(2)]
