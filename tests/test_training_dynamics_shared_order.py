"""benchmarks/training_dynamics' shared batch order: the stream file, and ours'
pipeline reading it exactly as the original's driver does (in file order)."""

import importlib.util
import pathlib

import numpy as np
import tensorflow as tf

from electra_tf.data import pretrain_pipeline

_PATH = (pathlib.Path(__file__).resolve().parent.parent / "benchmarks"
         / "training_dynamics" / "data.py")
_SPEC = importlib.util.spec_from_file_location("dynamics_data", _PATH)
dynamics_data = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(dynamics_data)

LENGTH = 4


def _write_shards(folder, num_records, num_shards=3):
  """Records whose input_ids are [i, i, i, i] for record i, over shards."""
  paths = [str(folder / f"shard{k}.tfrecord") for k in range(num_shards)]
  writers = [tf.io.TFRecordWriter(p) for p in paths]
  for i in range(num_records):
    feature = lambda v: tf.train.Feature(
        int64_list=tf.train.Int64List(value=[v] * LENGTH))
    example = tf.train.Example(features=tf.train.Features(feature={
        "input_ids": feature(i), "input_mask": feature(1),
        "segment_ids": feature(0)}))
    writers[i % num_shards].write(example.SerializeToString())
  for writer in writers:
    writer.close()
  return paths


def _first_ids(path):
  return [int(tf.train.Example.FromString(r.numpy()).features
              .feature["input_ids"].int64_list.value[0])
          for r in tf.data.TFRecordDataset(path)]


def test_the_stream_is_a_seeded_permutation_per_pass(tmp_path):
  shards = _write_shards(tmp_path, 10)
  path = dynamics_data.shared_stream(str(tmp_path / "a"), shards, 7, 25)
  ids = _first_ids(path)
  assert len(ids) == 25
  assert sorted(ids[:10]) == list(range(10))
  assert sorted(ids[10:20]) == list(range(10))
  assert ids[:10] != ids[10:20]  # a new permutation for the second pass
  assert ids == _first_ids(dynamics_data.shared_stream(
      str(tmp_path / "b"), shards, 7, 25))  # a pure function of the seed
  assert ids != _first_ids(dynamics_data.shared_stream(
      str(tmp_path / "c"), shards, 8, 25))


def test_ours_reads_the_stream_in_file_order_with_a_buffer_of_one(tmp_path):
  shards = _write_shards(tmp_path, 10)
  path = dynamics_data.shared_stream(str(tmp_path), shards, 1, 30)
  expected = np.array(_first_ids(path) * 2)  # the file, repeated
  for skip in (0, 2):
    batches = pretrain_pipeline.pretraining_dataset(
        [path], batch_size=4, max_seq_length=LENGTH, seed=3,
        skip_batches=skip, shuffle_buffer=1).take(10)
    got = np.concatenate([b["input_ids"][:, 0].numpy() for b in batches])
    np.testing.assert_array_equal(got, expected[4 * skip:4 * skip + 40])
