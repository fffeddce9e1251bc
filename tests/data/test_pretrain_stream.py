"""How many shard files the training stream mixes and how far it shuffles:
`input_files_interleaved` and `input_shuffle_buffer`, from the config to the
pipeline."""

import numpy as np
import pytest
import tensorflow as tf

import electra_tf
from electra_tf import errors
from electra_tf.data import pretrain_pipeline
from electra_tf.pretraining import train_loop

LENGTH = 4
PER_FILE = 10


@pytest.fixture(name="files")
def _files(tmp_path):
  """4 shards; record i of the stream is [i] * LENGTH, shard k holds
  records 10k..10k+9 in order."""
  paths = []
  for k in range(4):
    path = str(tmp_path / f"shard{k}.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
      for i in range(k * PER_FILE, (k + 1) * PER_FILE):
        feature = lambda v: tf.train.Feature(
            int64_list=tf.train.Int64List(value=[v] * LENGTH))
        writer.write(tf.train.Example(features=tf.train.Features(feature={
            "input_ids": feature(i), "input_mask": feature(1),
            "segment_ids": feature(0)})).SerializeToString())
    paths.append(path)
  return paths


def _ids(dataset, batches=5):
  return np.concatenate([b["input_ids"][:, 0].numpy()
                         for b in dataset.take(batches)])


def _stream(files, **kwargs):
  return _ids(pretrain_pipeline.pretraining_dataset(
      files, batch_size=4, max_seq_length=LENGTH, seed=5, **kwargs))


def test_one_file_at_a_time_without_shuffling_reads_whole_files(files):
  ids = _stream(files, files_interleaved=1, shuffle_buffer=1)
  first = ids[0] // PER_FILE
  np.testing.assert_array_equal(ids[:PER_FILE],
                                np.arange(PER_FILE) + first * PER_FILE)


def test_two_files_at_a_time_alternate(files):
  ids = _stream(files, files_interleaved=2, shuffle_buffer=1)
  shards = ids[:2 * PER_FILE] // PER_FILE
  assert len(set(shards)) == 2
  assert all(shards[i] != shards[i + 1] for i in range(2 * PER_FILE - 1))


def test_the_config_decides_the_stream(files):
  config = electra_tf.PretrainingConfig.from_hparams({
      "max_seq_length": LENGTH, "train_batch_size": 4, "seed": 5,
      "input_files_interleaved": 2, "input_shuffle_buffer": 3})
  default = electra_tf.PretrainingConfig.from_hparams({})
  assert (default.input_files_interleaved, default.input_shuffle_buffer) == (
      8, 1000)
  strategy = tf.distribute.get_strategy()
  through_config = _ids(train_loop._distributed_dataset(  # pylint: disable=protected-access
      strategy, config, files, 0))
  np.testing.assert_array_equal(
      through_config, _stream(files, files_interleaved=2, shuffle_buffer=3))
  assert not np.array_equal(through_config, _stream(files))


@pytest.mark.parametrize("key", ["input_files_interleaved",
                                 "input_shuffle_buffer"])
def test_a_size_below_one_is_refused_by_name(key):
  with pytest.raises(errors.ConfigError, match=f"{key} must be >= 1, got 0"):
    electra_tf.PretrainingConfig.from_hparams({key: 0})
