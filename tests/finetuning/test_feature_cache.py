"""Cached finetuning features: keyed by their settings; exact eval batches."""

import os

import numpy as np
import pytest

from electra_tf import errors
from electra_tf import tokenization
from electra_tf.finetuning import feature_cache
from electra_tf.finetuning import input_pipeline
from electra_tf.finetuning import registry
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.finetuning.config import FinetuningConfig
from tests.finetuning import synthetic_tasks

NUM_DEV = 37


@pytest.fixture
def data_dir(tmp_path):
  synthetic_tasks.write_tasks(str(tmp_path), {"train": 50, "dev": NUM_DEV},
                              tasks=("sst", "chunk"))
  return str(tmp_path)


def build(data_dir, split="dev", is_training=False, tasks=("sst",),
          **hparams):
  hparams.setdefault("max_seq_length", 16)
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=list(tasks), **hparams),
      data_dir=data_dir, model_name="m")
  tokenizer = tokenization.FullTokenizer(config.vocab_file)
  settings = tasks_lib.DataSettings(max_seq_length=config.max_seq_length)
  labels = {"chunk": registry.get_task("chunk").label_list(data_dir)}
  return config, feature_cache.build_feature_set(
      config, config.tasks, split, is_training, tokenizer, labels, settings)


def test_same_settings_reuse_the_cache_and_changes_do_not(data_dir):
  _, first = build(data_dir)
  stamp = os.stat(first.path).st_mtime_ns
  _, again = build(data_dir)
  assert again.path == first.path and os.stat(again.path).st_mtime_ns == stamp
  assert (again.num_examples, again.num_features) == (NUM_DEV, NUM_DEV)
  _, other_case = build(data_dir, do_lower_case=False)
  _, other_length = build(data_dir, max_seq_length=24)
  with open(os.path.join(data_dir, "vocab.txt"), "a") as f:
    f.write("extra\n")
  _, other_vocab = build(data_dir)
  paths = {first.path, other_case.path, other_length.path, other_vocab.path}
  assert len(paths) == 4


def test_edited_raw_data_is_featurized_again(data_dir):
  _, first = build(data_dir)
  dev = os.path.join(data_dir, "finetuning_data", "sst", "dev.tsv")
  with open(dev, "a") as f:
    f.write("good w1 w2\t1\n")
  _, edited = build(data_dir)
  assert edited.path != first.path and edited.num_examples == NUM_DEV + 1


def test_eval_batches_cover_every_example_once(data_dir):
  _, feature_set = build(data_dir)
  batches = list(input_pipeline.eval_dataset(feature_set, 8, padding_task_id=1))
  assert len(batches) == 5 and all(b["input_ids"].shape == (8, 16)
                                   for b in batches)
  task_ids = np.concatenate([b["task_id"].numpy() for b in batches])
  eids = np.concatenate([b["eid"].numpy() for b in batches])
  assert task_ids.tolist() == [0] * NUM_DEV + [1] * 3
  assert eids[:NUM_DEV].tolist() == list(range(NUM_DEV))


def test_training_features_of_two_tasks_are_shuffled_together(data_dir):
  config, feature_set = build(data_dir, "train", True, tasks=("sst", "chunk"))
  assert set(feature_set.shapes) >= {"label_ids", "labels", "labels_mask",
                                     "labeled_positions", "task_id"}
  batch = next(iter(input_pipeline.train_dataset(feature_set, 100, seed=0)))
  task_ids = batch["task_id"].numpy()
  assert set(task_ids) == {0, 1} and task_ids[:50].tolist() != [0] * 50
  assert config.task_names == ("sst", "chunk")
  # The original's count: batches per (padded) epoch times epochs.
  assert input_pipeline.num_train_steps(100, 32, 3.0) == 12


def test_conflicting_feature_shapes_are_refused():
  class Odd(tasks_lib.Task):
    def target_shapes(self, settings, is_training):
      return {"label_ids": ((3,), np.int32)}
    read_examples = featurize = None

  odd = Odd("odd", tasks_lib.TaskType.CLASSIFICATION, ("accuracy",))
  with pytest.raises(errors.ConfigError, match="label_ids"):
    feature_cache.feature_shapes([registry.get_task("sst"), odd],
                                 tasks_lib.DataSettings(), False)


def test_glue_from_tfds_records(data_dir, monkeypatch):
  sst = registry.get_task("sst")
  records = [{"sentence": b"w1 good w2", "label": 1, "idx": 0},
             {"sentence": b"bad w3", "label": 0, "idx": 1}]

  def fake_load(split, settings=None, tfds_data_dir=None):
    del tfds_data_dir
    return sst.examples_from_tfds(records, split, settings)

  monkeypatch.setattr(sst, "load_tfds", fake_load)
  _, files = build(data_dir)
  _, from_tfds = build(data_dir, use_tfds=True)
  assert from_tfds.path != files.path and from_tfds.num_examples == 2
  batch = next(iter(input_pipeline.eval_dataset(from_tfds, 2, 1)))
  assert batch["label_ids"].numpy().tolist() == [1, 0]
