"""tf.data pipelines over cached finetuning features.

Training repeats and shuffles (a buffer of 100 after `repeat`, as the
original) and drops the last partial batch. Evaluation reads every feature
once, in order: the last batch is filled up with padding rows whose
`task_id` names no task (the original wrote such padding examples into
its files), so batches keep a static shape and every example is scored.
"""

import numpy as np
import tensorflow as tf

from electra_tf.finetuning import model as model_lib

SHUFFLE_BUFFER = 100


def parsing_spec(shapes):
  """`tf.io` spec of the features: ints as int64, floats as float32."""
  return {name: tf.io.FixedLenFeature(
      shape, tf.float32 if np.dtype(dtype).kind == "f" else tf.int64)
          for name, (shape, dtype) in shapes.items()}


def _parse(record, spec):
  parsed = tf.io.parse_single_example(record, spec)
  return {name: tf.cast(value, tf.int32) if value.dtype == tf.int64 else value
          for name, value in parsed.items()}


def _by_data(dataset):
  """Shards by element when distributed (one file cannot be split up)."""
  options = tf.data.Options()
  options.experimental_distribute.auto_shard_policy = (
      tf.data.experimental.AutoShardPolicy.DATA)
  return dataset.with_options(options)


def train_dataset(feature_set, batch_size, seed):
  """Endless shuffled batches of `batch_size` (the global batch)."""
  spec = parsing_spec(feature_set.shapes)
  dataset = tf.data.TFRecordDataset(feature_set.path).repeat()
  dataset = dataset.shuffle(SHUFFLE_BUFFER, seed=seed)
  dataset = dataset.map(lambda r: _parse(r, spec),
                        num_parallel_calls=tf.data.AUTOTUNE)
  return _by_data(dataset.batch(batch_size, drop_remainder=True)
                  .prefetch(tf.data.AUTOTUNE))


def _pad_batch(batch, batch_size, padding_task_id):
  """Fills a short batch up to `batch_size` rows of padding."""
  size = tf.shape(batch[model_lib.TASK_ID])[0]
  padded = {}
  for name, value in batch.items():
    fill = padding_task_id if name == model_lib.TASK_ID else 0
    paddings = [[0, batch_size - size]] + [[0, 0]] * (len(value.shape) - 1)
    padded[name] = tf.ensure_shape(
        tf.pad(value, paddings, constant_values=tf.cast(fill, value.dtype)),
        [batch_size] + value.shape[1:])
  return padded


def eval_dataset(feature_set, batch_size, padding_task_id):
  """Every feature once, in order, in batches of exactly `batch_size`."""
  spec = parsing_spec(feature_set.shapes)
  dataset = tf.data.TFRecordDataset(feature_set.path).map(
      lambda r: _parse(r, spec))
  dataset = dataset.batch(batch_size).map(
      lambda b: _pad_batch(b, batch_size, padding_task_id))
  return _by_data(dataset.prefetch(tf.data.AUTOTUNE))


def num_train_steps(num_features, batch_size, num_train_epochs):
  """The original's count: whole (padded) batches per epoch times epochs."""
  batches_per_epoch = -(-num_features // batch_size)
  return int(batches_per_epoch * num_train_epochs)
