"""TFRecord format compatibility with the original, shards and metadata."""

import json

import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import build_stats
from electra_tf.data import example_wire_format
from electra_tf.data import features
from electra_tf.data import pretraining_examples
from electra_tf.data import tfrecords

EXAMPLE = pretraining_examples.PretrainingExample(
    input_ids=[101, 7, 8, 102, 9, 102, 0, 0],
    input_mask=[1, 1, 1, 1, 1, 1, 0, 0],
    segment_ids=[0, 0, 0, 0, 1, 1, 0, 0])


def _original_spec(length):
  """The feature spec the original pretraining input_fn used."""
  return {"input_ids": tf.io.FixedLenFeature([length], tf.int64),
          "input_mask": tf.io.FixedLenFeature([length], tf.int64),
          "segment_ids": tf.io.FixedLenFeature([length], tf.int64)}


def test_our_record_parses_with_the_original_spec():
  serialized = example_wire_format.serialize_int64_example(
      EXAMPLE.as_features())
  parsed = tf.io.parse_single_example(serialized, _original_spec(8))
  assert {k: v.numpy().tolist() for k, v in parsed.items()} == (
      EXAMPLE.as_features())
  assert all(v.dtype == tf.int64 for v in parsed.values())


def test_record_written_the_original_way_reads_back(tmp_path):
  # Built by hand as the original's _make_tf_example did.
  def int_feature(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
  original = tf.train.Example(features=tf.train.Features(feature={
      "input_ids": int_feature(EXAMPLE.input_ids),
      "input_mask": int_feature(EXAMPLE.input_mask),
      "segment_ids": int_feature(EXAMPLE.segment_ids)}))
  path = str(tmp_path / "original.tfrecord")
  with tf.io.TFRecordWriter(path) as writer:
    writer.write(original.SerializeToString())
  records = list(tfrecords.read_examples([path], 8))
  assert len(records) == 1
  assert set(records[0]) == set(features.PRETRAINING_FEATURES)
  assert {k: v.numpy().tolist() for k, v in records[0].items()} == (
      EXAMPLE.as_features())
  assert records[0][features.INPUT_IDS].dtype == tf.int32


def test_shards_are_round_robin_and_atomic_on_ram():
  out = "ram://tfrecords_test/shards"
  tf.io.gfile.makedirs(out)
  writer = tfrecords.ShardWriter(out, [1, 3], 4)
  for _ in range(3):
    writer.write(EXAMPLE)
  assert tfrecords.finished_shards(out) == []  # only temporary names so far
  writer.close()
  assert tfrecords.finished_shards(out) == []  # until the whole build is done
  tfrecords.finalize_shards(out, [1, 3], 4)
  shards = tfrecords.finished_shards(out)
  assert [s.rsplit("/", 1)[1] for s in shards] == [
      "pretrain_data.tfrecord-1-of-4", "pretrain_data.tfrecord-3-of-4"]
  assert [sum(1 for _ in tf.data.TFRecordDataset(s)) for s in shards] == [2, 1]
  assert not tf.io.gfile.glob(out + "/*" + tfrecords.TEMP_SUFFIX)


def test_writer_without_shards_is_refused():
  with pytest.raises(errors.DataError, match="no shard of 2"):
    tfrecords.ShardWriter("ram://tfrecords_test/none", [], 2)


def _stats(examples):
  stats = build_stats.BuildStats(examples=examples, tokens=10 * examples)
  stats.skip_line(build_stats.LINE_TOO_LONG, "a.txt")
  return stats


def test_metadata_merges_workers_on_ram():
  out = "ram://tfrecords_test/meta"
  tf.io.gfile.makedirs(out)
  settings = {"vocab": {"sha256": "abc", "size": 30522}, "max_seq_length": 8}
  for worker in range(2):
    tfrecords.write_metadata(out, worker, 2, settings, _stats(worker + 1))
  metadata = tfrecords.read_metadata(out)
  assert metadata["settings"] == settings and metadata["num_workers"] == 2
  assert metadata["counts"]["examples"] == 3
  assert metadata["counts"]["tokens"] == 30
  assert metadata["counts"]["skipped_lines"] == {
      build_stats.LINE_TOO_LONG: 2}
  with tf.io.gfile.GFile(out + "/pretrain_data.metadata-0-of-2.json") as f:
    assert json.load(f)["format_version"] == tfrecords.METADATA_FORMAT_VERSION


def test_metadata_problems_are_named(tmp_path):
  with pytest.raises(errors.DataError, match="no dataset metadata"):
    tfrecords.read_metadata(str(tmp_path))
  tfrecords.write_metadata(str(tmp_path), 1, 2, {"seed": 1}, _stats(1))
  with pytest.raises(errors.DataError, match=r"workers \[1\], expected 0"):
    tfrecords.read_metadata(str(tmp_path))
  tfrecords.write_metadata(str(tmp_path), 0, 2, {"seed": 2}, _stats(1))
  with pytest.raises(errors.DataError, match="other settings"):
    tfrecords.read_metadata(str(tmp_path))


def test_file_sha256():
  with tf.io.gfile.GFile("ram://tfrecords_test/hash.txt", "w") as f:
    f.write("abc")
  assert tfrecords.file_sha256("ram://tfrecords_test/hash.txt") == (
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
