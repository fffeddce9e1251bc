"""Featurized finetuning data, cached as TFRecords keyed by what made them.

A cache file is named after a digest of everything its features depend on:
the tasks, split, training or not, the `DataSettings`, the vocab's SHA-256,
lower-casing, label lists, the shuffle seed, the data source and the size
and modification time of every raw file of the tasks. Changing any of them
writes a new file instead of reusing a stale one. Each TFRecord has a JSON
sidecar with its counts and the inputs the readers skipped.

As the original, training examples of all tasks are shuffled together
before writing (here with a seeded RNG), features are int64 or float32 and
every record holds every feature of the union of the tasks (zeros where a
task has none) plus `task_id`.
"""

import dataclasses
import hashlib
import json
import os
import random

import numpy as np
import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf.data import tfrecords
from electra_tf.finetuning import model as model_lib

CACHE_FORMAT_VERSION = 2
DIGEST_CHARS = 16
TEMP_SUFFIX = ".incomplete"
SKIPS_SHOWN = 3


@dataclasses.dataclass(frozen=True)
class FeatureSet:
  """One cached TFRecord of features and what went into it."""
  path: str
  shapes: dict  # name -> (shape tuple, NumPy dtype)
  num_features: int
  num_examples: int
  skipped: tuple = ()  # "location: reason" of inputs the readers left out
  # Sequences cut to max_seq_length: tagging sentences that lost words, and
  # sentence(-pair)s that fill it (cut or fitting exactly). QA contexts are
  # windowed, not cut.
  long_sequences: int = 0


def feature_shapes(tasks, settings, is_training):
  """Union of the tasks' feature shapes, plus `task_id`."""
  shapes = {model_lib.TASK_ID: ((), np.int32)}
  for task in tasks:
    for name, shape in task.feature_shapes(settings, is_training).items():
      shape = (tuple(shape[0]), np.dtype(shape[1]))
      if name in shapes and tuple(shapes[name][0]) != shape[0]:
        raise errors.ConfigError(
            f"feature {name!r} has shape {shape[0]} for {task.name} but "
            f"{shapes[name][0]} for another task of this run")
      shapes.setdefault(name, shape)
  return {name: (tuple(s), np.dtype(d)) for name, (s, d) in shapes.items()}


def _raw_files_fingerprint(tasks, config):
  """What identifies the tasks' raw data (`Task.data_fingerprint`)."""
  return {task.name: task.data_fingerprint(config.raw_data_root)
          for task in tasks}


def cache_key(config, tasks, split, is_training, settings, label_lists):
  """Everything the features of (tasks, split) depend on, as a dict."""
  vocab = config.vocab_file
  return {
      "format": CACHE_FORMAT_VERSION,
      "tasks": [task.name for task in tasks],
      "split": split,
      "is_training": is_training,
      "settings": dataclasses.asdict(settings),
      "vocab_sha256": tfrecords.file_sha256(vocab) if vocab else None,
      "do_lower_case": config.do_lower_case,
      "labels": {name: list(labels) for name, labels in label_lists.items()},
      "shuffle_seed": config.seed if is_training else None,
      "tfds": [task.name for task in tasks if uses_tfds(config, task)],
      "raw_files": _raw_files_fingerprint(
          [task for task in tasks if not uses_tfds(config, task)], config),
  }


def cache_path(directory, tasks, split, key):
  digest = hashlib.sha256(
      json.dumps(key, sort_keys=True).encode()).hexdigest()[:DIGEST_CHARS]
  names = "_".join(sorted(task.name for task in tasks))
  return os.path.join(directory, f"{names}_{split}_{digest}.tfrecord")


def _metadata_path(path):
  return path + ".json"


def _to_tf_example(feature, shapes):
  """A `tf.train.Example` with every feature in `shapes` (zeros if absent)."""
  values = {}
  for name, (shape, dtype) in shapes.items():
    value = np.asarray(feature.get(name, np.zeros(shape, dtype)), dtype)
    if value.shape != shape:
      raise errors.DataError(f"feature {name!r} has shape {value.shape}, "
                             f"expected {shape}")
    flat = value.reshape(-1).tolist()
    values[name] = (tf.train.Feature(float_list=tf.train.FloatList(value=flat))
                    if dtype.kind == "f" else tf.train.Feature(
                        int64_list=tf.train.Int64List(value=flat)))
  return tf.train.Example(features=tf.train.Features(feature=values))


def write_features(path, featurized, shapes):
  """Writes (feature, is long) pairs atomically; returns the two counts."""
  tf.io.gfile.makedirs(os.path.dirname(path))
  count = long_sequences = 0
  with tf.io.TFRecordWriter(path + TEMP_SUFFIX) as writer:
    for feature, long_sequence in featurized:
      writer.write(_to_tf_example(feature, shapes).SerializeToString())
      count += 1
      long_sequences += long_sequence
  tf.io.gfile.rename(path + TEMP_SUFFIX, path, overwrite=True)
  return count, long_sequences


def uses_tfds(config, task):
  """Whether `task` is read from TFDS (GLUE with `use_tfds`)."""
  return config.use_tfds and getattr(task, "tfds", None) is not None


def _read_split(task, config, split, settings):
  if uses_tfds(config, task):
    return task.load_tfds(split, settings)
  return task.read_examples(config.raw_data_root, split, settings)


def _report(result, task, split):
  if result.skipped:
    shown = "; ".join(f"{s.location}: {s.reason}"
                      for s in result.skipped[:SKIPS_SHOWN])
    logging.warning("%s %s: skipped %d input(s), e.g. %s", task.name, split,
                    len(result.skipped), shown)
  return [f"{s.location}: {s.reason}" for s in result.skipped]


def build_feature_set(config, tasks, split, is_training, tokenizer,
                      label_lists, settings):
  """The cached features of `tasks` on `split`, written if not cached yet.

  Args:
    config: a `FinetuningConfig` (vocab, seed, cache dir and policy).
    tasks: the tasks whose examples go into the file (task ids follow
      `config.task_names`).
    split: "train", "dev", "test", ...
    is_training: featurize with training targets, shuffle.
    tokenizer: the `FullTokenizer` of the vocab.
    label_lists: {task name: `Task.data_labels`} (part of the key).
    settings: `DataSettings`.

  Returns:
    A `FeatureSet`.
  """
  shapes = feature_shapes(tasks, settings, is_training)
  key = cache_key(config, tasks, split, is_training, settings,
                  {t.name: label_lists[t.name] for t in tasks
                   if t.name in label_lists})
  path = cache_path(config.preprocessed_data_dir, tasks, split, key)
  metadata_path = _metadata_path(path)
  if (config.use_tfrecords_if_existing and tf.io.gfile.exists(path)
      and tf.io.gfile.exists(metadata_path)):
    with tf.io.gfile.GFile(metadata_path) as f:
      meta = json.load(f)
    logging.info("using cached features %s", path)
  else:
    meta = _featurize_to(path, config, tasks, split, is_training, tokenizer,
                         settings, shapes)
    meta["key"] = key
    with tf.io.gfile.GFile(metadata_path, "w") as f:
      json.dump(meta, f, indent=1)
  return FeatureSet(path, shapes, meta["num_features"], meta["num_examples"],
                    tuple(meta["skipped"]), meta["long_sequences"])


def _featurize_to(path, config, tasks, split, is_training, tokenizer,
                  settings, shapes):
  """Reads, featurizes and writes; returns the counts for the sidecar."""
  examples, skipped = [], []
  for task in tasks:
    result = _read_split(task, config, split, settings)
    skipped += _report(result, task, split)
    task_id = config.task_names.index(task.name)
    examples += [(task, task_id, example) for example in result.examples]
  if is_training:
    random.Random(config.seed).shuffle(examples)

  def featurized():
    for index, (task, task_id, example) in enumerate(examples):
      if config.log_examples and index == 0:
        logging.info("first %s example: %s", split, example)
      for feature in task.featurize(example, tokenizer, settings, is_training):
        feature[model_lib.TASK_ID] = task_id
        yield feature, task.is_long(example, feature,
                                    settings.max_seq_length)

  logging.info("featurizing %d %s examples of %s", len(examples), split,
               ",".join(t.name for t in tasks))
  count, long_sequences = write_features(path, featurized(), shapes)
  if long_sequences:
    logging.warning("%d of %d %s sequences reached max_seq_length %d and "
                    "may be truncated", long_sequences, count, split,
                    settings.max_seq_length)
  return {"num_features": count, "num_examples": len(examples),
          "skipped": skipped, "long_sequences": long_sequences}
