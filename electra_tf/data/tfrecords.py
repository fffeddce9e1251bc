"""Pretraining TFRecords: the original's format, sharded atomic writes, metadata.

Each record is a `tf.train.Example` with the int64 features `input_ids`,
`input_mask` and `segment_ids` of length max_seq_length, exactly as the
original `build_pretraining_dataset.py` wrote them, so files of either
builder feed either trainer. Shards are named as the original's
(`pretrain_data.tfrecord-{i}-of-{n}`); each is written under a temporary
name and renamed when complete, so a crashed build never leaves a truncated
shard that looks finished. A metadata JSON per worker records how the data
was made; `read_metadata` merges them for the pretraining loop to check.
"""

import hashlib
import json

import tensorflow as tf

from electra_tf import errors
from electra_tf.data import build_stats
from electra_tf.data import example_wire_format
from electra_tf.data import features

SHARD_PREFIX = "pretrain_data.tfrecord"
METADATA_PREFIX = "pretrain_data.metadata"
TEMP_SUFFIX = ".incomplete"
METADATA_FORMAT_VERSION = 1


def shard_name(index, num_shards):
  return f"{SHARD_PREFIX}-{index}-of-{num_shards}"


def metadata_name(worker_index, num_workers):
  return f"{METADATA_PREFIX}-{worker_index}-of-{num_workers}.json"


def is_builder_output(name):
  """Whether a file name is one this module writes (shard, metadata, temp)."""
  return name.startswith((SHARD_PREFIX, METADATA_PREFIX))


def parse_example(serialized, max_seq_length):
  """Parses one serialized record into int32 [L] tensors by feature name."""
  parsed = tf.io.parse_single_example(
      serialized, features.pretraining_feature_spec(max_seq_length))
  return {name: tf.cast(values, tf.int32) for name, values in parsed.items()}


def read_examples(paths, max_seq_length):
  """A `tf.data.Dataset` of parsed records (dicts of int32 [L]), in order."""
  return tf.data.TFRecordDataset(list(paths)).map(
      lambda record: parse_example(record, max_seq_length))


def finished_shards(data_dir):
  """Sorted paths of the finished shards in `data_dir`."""
  paths = tf.io.gfile.glob(
      tf.io.gfile.join(data_dir, SHARD_PREFIX) + "-*-of-*")
  return sorted(path for path in paths if not path.endswith(TEMP_SUFFIX))


class ShardWriter:
  """Writes serialized examples round-robin into some shards of a dataset.

  Args:
    output_dir: directory of the dataset.
    shard_indices: the shards this writer owns (out of `num_shards`).
    num_shards: total shards of the dataset, all writers together.
  """

  def __init__(self, output_dir, shard_indices, num_shards):
    if not shard_indices:
      raise errors.DataError(
          f"a writer got no shard of {num_shards}: use more output files "
          "than jobs (workers x jobs per worker)")
    self._paths = [tf.io.gfile.join(output_dir, shard_name(i, num_shards))
                   for i in shard_indices]
    self._writers = [tf.io.TFRecordWriter(path + TEMP_SUFFIX)
                     for path in self._paths]
    self.num_written = 0

  def write(self, example):
    """Writes one `PretrainingExample` to the next shard in turn."""
    writer = self._writers[self.num_written % len(self._writers)]
    # Map entries sorted by name (as `deterministic=True` serialization), so
    # shards are byte-for-byte reproducible.
    writer.write(example_wire_format.serialize_int64_example(
        example.as_features()))
    self.num_written += 1

  def close(self):
    """Closes every shard, still under its temporary name: the whole build
    gives them their final names (`finalize_shards`) once every job is done,
    so a killed build never leaves final-named shards behind."""
    for writer in self._writers:
      writer.close()


def finalize_shards(output_dir, shard_indices, num_shards, keep=True):
  """Moves the given shards from their temporary names to their final ones
  (or, with `keep=False`, deletes them)."""
  for index in shard_indices:
    path = tf.io.gfile.join(output_dir, shard_name(index, num_shards))
    if keep:
      tf.io.gfile.rename(path + TEMP_SUFFIX, path, overwrite=True)
    elif tf.io.gfile.exists(path + TEMP_SUFFIX):
      tf.io.gfile.remove(path + TEMP_SUFFIX)


def file_sha256(path):
  """Hex SHA-256 of a file's bytes, read through gfile."""
  digest = hashlib.sha256()
  with tf.io.gfile.GFile(path, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
      digest.update(chunk)
  return digest.hexdigest()


def write_metadata(output_dir, worker_index, num_workers, settings, stats):
  """Writes one worker's metadata JSON (atomically) next to its shards.

  Args:
    settings: JSON-able dict of how the data was built (vocab hash and size,
      do_lower_case, max_seq_length, seed, ...); equal for all workers.
    stats: the worker's `BuildStats`.
  """
  record = {"format_version": METADATA_FORMAT_VERSION,
            "worker_index": worker_index, "num_workers": num_workers,
            "settings": settings, "counts": stats.to_json()}
  path = tf.io.gfile.join(output_dir, metadata_name(worker_index, num_workers))
  with tf.io.gfile.GFile(path + TEMP_SUFFIX, "w") as f:
    f.write(json.dumps(record, indent=2, sort_keys=True) + "\n")
  tf.io.gfile.rename(path + TEMP_SUFFIX, path, overwrite=True)


def _load_json(path):
  with tf.io.gfile.GFile(path, "r") as f:
    try:
      return json.load(f)
    except json.JSONDecodeError as e:
      raise errors.DataError(f"metadata {path} is not valid JSON: {e}") from e


def read_metadata(data_dir):
  """Merges the workers' metadata of a dataset directory.

  Returns:
    {"settings": ..., "num_workers": n, "counts": summed `BuildStats` JSON}.

  Raises:
    DataError: if metadata is missing, a worker's file is absent, or the
      workers disagree on the settings (e.g. different vocab files).
  """
  paths = sorted(tf.io.gfile.glob(
      tf.io.gfile.join(data_dir, METADATA_PREFIX) + "-*-of-*.json"))
  if not paths:
    raise errors.DataError(f"no dataset metadata ({METADATA_PREFIX}-*.json) "
                           f"in {data_dir}")
  records = [_load_json(path) for path in paths]
  num_workers = records[0]["num_workers"]
  found = sorted(record["worker_index"] for record in records)
  if found != list(range(num_workers)):
    raise errors.DataError(
        f"{data_dir} has metadata of workers {found}, expected 0..."
        f"{num_workers - 1}: a worker has not finished or files are mixed")
  stats = build_stats.BuildStats()
  for path, record in zip(paths, records):
    if record["settings"] != records[0]["settings"]:
      raise errors.DataError(f"{path} was built with other settings than "
                             f"{paths[0]}")
    stats.merge(build_stats.BuildStats.from_json(record["counts"]))
  return {"settings": records[0]["settings"], "num_workers": num_workers,
          "counts": stats.to_json()}
