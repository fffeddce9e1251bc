"""tf.data pipelines over pretraining TFRecords (the original's format).

Training: shard files per input pipeline, shuffle files, repeat, interleave
deterministically, shuffle records, batch with `drop_remainder=True`, parse,
cast to int32, prefetch. Every random choice is seeded, so the stream is a
pure function of (files, seed, layout) and a resumed run can skip to where
it stopped; tf.data combines each op's seed with TensorFlow's global seed,
which the training loop sets to the run's seed before it builds the input.
Eval: files in order, no shuffle, one pass.
"""

import os

import tensorflow as tf

from electra_tf import errors
from electra_tf.data import features as F
from electra_tf.data import tfrecords

SHUFFLE_BUFFER = 1000
MAX_CYCLE_LENGTH = 8
SHARDS_TO_CHECK = 16


def _is_shard(path):
  """Not a shard still being written, nor the builder's metadata sidecar."""
  name = os.path.basename(path)
  return not (name.endswith(tfrecords.TEMP_SUFFIX)
              or name.startswith(tfrecords.METADATA_PREFIX))


def _matching(pattern):
  """Files of one pattern: a directory's TFRecords, a file named literally
  (even if its name holds glob characters like `[1]`), or a glob's matches."""
  if tf.io.gfile.isdir(pattern):
    return [os.path.join(pattern, name)
            for name in tf.io.gfile.listdir(pattern) if ".tfrecord" in name]
  if tf.io.gfile.exists(pattern):
    return [pattern]
  return tf.io.gfile.glob(pattern)


def match_shards(file_patterns):
  """Files matching comma-separated globs (a directory means all its files).

  The builder's metadata files are left out, so `--train_data 'dir/*'`
  takes exactly the shards the builder wrote into `dir`.
  """
  files = []
  for pattern in [p.strip() for p in str(file_patterns).split(",") if p.strip()]:
    matched = sorted(p for p in _matching(pattern) if _is_shard(p))
    if not matched:
      raise errors.DataError(f"no TFRecord files match {pattern}")
    files.extend(matched)
  if not files:
    raise errors.DataError(f"no TFRecord files given ({file_patterns!r})")
  return files


def check_shards(files, max_seq_length, limit=SHARDS_TO_CHECK):
  """Reads the first record of (up to `limit`) shards and checks the spec.

  Raises `DataError` naming the first shard that is unreadable, empty or
  holds features of another length than `max_seq_length`.
  """
  for path in files[:limit]:
    try:
      first = next(iter(tf.data.TFRecordDataset(path).take(1)), None)
    except (tf.errors.OpError, StopIteration) as e:
      raise errors.DataError(
          f"cannot read TFRecord shard {path}: {errors.first_line(e)}"
      ) from None
    if first is None:
      raise errors.DataError(f"TFRecord shard {path} is empty")
    example = tf.train.Example.FromString(first.numpy())
    for name in F.PRETRAINING_FEATURES:
      feature = example.features.feature.get(name)
      if feature is None:
        raise errors.DataError(f"TFRecord shard {path} lacks feature {name!r}")
      length = len(feature.int64_list.value)
      if length != max_seq_length:
        raise errors.DataError(
            f"TFRecord shard {path}: feature {name!r} has length {length}, "
            f"but max_seq_length is {max_seq_length}")


def parse_batch(serialized, max_seq_length):
  """Parses a batch of serialized examples into int32 [B, L] features."""
  parsed = tf.io.parse_example(serialized,
                               F.pretraining_feature_spec(max_seq_length))
  return {name: tf.cast(parsed[name], tf.int32)
          for name in F.PRETRAINING_FEATURES}


def pretraining_dataset(files, batch_size, max_seq_length, training=True,
                        seed=0, input_context=None, skip_batches=0,
                        files_interleaved=MAX_CYCLE_LENGTH,
                        shuffle_buffer=SHUFFLE_BUFFER):
  """Batches of pretraining features for one input pipeline.

  Args:
    files: shard paths (see `match_shards`).
    batch_size: examples per batch of this pipeline (per replica under
      `distribute_datasets_from_function`).
    max_seq_length: the records' feature length.
    training: shuffle and repeat forever; else one ordered pass.
    seed: seeds the file and record shuffles.
    input_context: a `tf.distribute.InputContext` to shard by.
    skip_batches: batches of this pipeline already consumed (on resume).
    files_interleaved: shard files read at once when training.
    shuffle_buffer: records in the training shuffle buffer.
  """
  dataset = tf.data.Dataset.from_tensor_slices(list(files))
  shard_records = False
  if input_context and input_context.num_input_pipelines > 1:
    if len(files) >= input_context.num_input_pipelines:
      dataset = dataset.shard(input_context.num_input_pipelines,
                              input_context.input_pipeline_id)
    else:
      shard_records = True
  if training:
    dataset = dataset.shuffle(len(files), seed=seed,
                              reshuffle_each_iteration=True).repeat()
  cycle = min(files_interleaved, len(files))
  if training:
    dataset = dataset.interleave(
        tf.data.TFRecordDataset, cycle_length=cycle, block_length=1,
        num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
  else:
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=1)
  if shard_records:
    dataset = dataset.shard(input_context.num_input_pipelines,
                            input_context.input_pipeline_id)
  if training:
    dataset = dataset.shuffle(shuffle_buffer, seed=seed + 1)
  if skip_batches:
    dataset = dataset.skip(skip_batches * batch_size)
  dataset = dataset.batch(batch_size, drop_remainder=True)
  dataset = dataset.map(lambda s: parse_batch(s, max_seq_length),
                        num_parallel_calls=tf.data.AUTOTUNE,
                        deterministic=True)
  return dataset.prefetch(tf.data.AUTOTUNE)
