"""Trials, medians, resuming and skipped inputs of a finetuning run."""

import os
import re
import statistics

import numpy as np
import pytest
import tensorflow as tf
from absl import logging

from electra_tf.finetuning import checkpoints
from electra_tf.finetuning import runner
from electra_tf.finetuning import layerwise_lr
from electra_tf.finetuning import train_loop
from electra_tf.finetuning.config import FinetuningConfig
from electra_tf.training import xla_regions
from tests.finetuning import synthetic_tasks

MALFORMED_ROW = "a row without a label column"


@pytest.fixture
def data_dir(tmp_path):
  synthetic_tasks.write_tasks(str(tmp_path), {"train": 64, "dev": 20},
                              tasks=("sst",))
  with open(tmp_path / "finetuning_data" / "sst" / "train.tsv", "a") as f:
    f.write(MALFORMED_ROW + "\n")
  return str(tmp_path)


def config_for(data_dir, **hparams):
  return FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=["sst"], init_checkpoint=None, num_train_epochs=1.0,
      max_seq_length=16, **hparams), data_dir=data_dir, model_name="scratch")


def test_trials_report_the_median_and_keep_only_the_last(data_dir, caplog):
  config = config_for(data_dir, num_trials=2, keep_all_models=False)
  with caplog.at_level(logging.WARNING):
    results = runner.run_finetuning(config)
  assert len(results.trials) == 2
  accuracies = [t["sst"]["accuracy"] for t in results.trials]
  assert results.median == {"sst": {"accuracy": statistics.median(accuracies)}}
  assert [os.path.isdir(config.trial_model_dir(t)) for t in (1, 2)] == [
      False, True]
  with open(config.results_txt) as f:
    lines = f.read().splitlines()
  assert len(lines) == 2 and lines[0].startswith("sst: accuracy: ")
  assert tf.io.gfile.glob(os.path.join(config.trial_model_dir(2), "eval",
                                       "events.out.tfevents*"))
  # The malformed row is skipped, counted and reported with file and line.
  assert results.skipped == {"sst train": 1}
  assert "train.tsv:66" in caplog.text and "skipped 1 input" in caplog.text


def test_median_over_trials_per_task_and_metric():
  trials = [{"sts": {"spearman": s, "pearson": p}} for s, p in
            ((80.0, 1.0), (90.0, 3.0), (10.0, 2.0))]
  assert runner.median_results(trials) == {
      "sts": {"spearman": 80.0, "pearson": 2.0}}


def test_a_rerun_resumes_finished_trials_without_training(data_dir, caplog):
  config = config_for(data_dir)
  first = runner.run_finetuning(config)
  checkpoint = sorted(os.listdir(config.trial_model_dir(1)))
  with caplog.at_level(logging.INFO):
    again = runner.run_finetuning(config)
  assert re.search(r"already trained (\d+) of \1 steps", caplog.text)
  assert "using cached features" in caplog.text
  assert again.trials == first.trials
  assert sorted(os.listdir(config.trial_model_dir(1))) == checkpoint


def final_weights(config):
  model, _, _ = checkpoints.load_finetuned_model(config.trial_model_dir(1))
  return {v.path: v.numpy() for v in model.trainable_variables}


def test_two_replicas_and_xla_train_what_one_device_trains(tmp_path):
  synthetic_tasks.write_tasks(str(tmp_path), {"train": 64, "dev": 12},
                              tasks=("chunk",))
  no_dropout = dict(synthetic_tasks.ENCODER, hidden_dropout_prob=0.0,
                    attention_probs_dropout_prob=0.0)
  results, weights = [], []
  for name, strategy, jit in (
      ("one", tf.distribute.get_strategy(), True),
      ("two", tf.distribute.MirroredStrategy(
          ["/cpu:0", "/cpu:1"],
          cross_device_ops=tf.distribute.ReductionToOneDevice()), False)):
    config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
        task_names=["chunk"], init_checkpoint=None, num_train_epochs=2.0,
        max_seq_length=24, train_batch_size=16, eval_batch_size=5,
        model_hparam_overrides=no_dropout, jit_compile=jit,
        model_dir=str(tmp_path / name)), data_dir=str(tmp_path),
        model_name=name)
    results.append(runner.run_finetuning(config, strategy).trials[0])
    weights.append(final_weights(config))
  assert results[0]["chunk"]["f1"] == pytest.approx(results[1]["chunk"]["f1"])
  for path, value in weights[0].items():
    np.testing.assert_allclose(weights[1][path], value, atol=2e-5,
                               err_msg=path)


def test_xla_but_the_matmuls_trains_what_the_plain_graph_trains(
    tmp_path, monkeypatch):
  synthetic_tasks.write_tasks(str(tmp_path), {"train": 48, "dev": 12},
                              tasks=("sts",))
  wrapped = []
  real = xla_regions.all_but_matmuls
  monkeypatch.setattr(xla_regions, "all_but_matmuls",
                      lambda fn: wrapped.append(fn) or real(fn))
  weights = []
  for name, xla_matmuls in (("plain", None), ("fused", False)):
    modes = ({"jit_compile": False} if xla_matmuls is None else
             {"jit_compile": True, "jit_compile_matmuls": xla_matmuls})
    config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
        task_names=["sts"], init_checkpoint=None, num_train_epochs=1.0,
        max_seq_length=16, train_batch_size=16, iterations_per_loop=2,
        model_dir=str(tmp_path / name), **modes), data_dir=str(tmp_path),
        model_name=name)
    runner.run_finetuning(config, tf.distribute.get_strategy())
    weights.append(final_weights(config))
  assert len(wrapped) == 1  # the fused run's step, and only that
  assert weights[0].keys() == weights[1].keys()
  for path, value in weights[0].items():
    np.testing.assert_allclose(weights[1][path], value, rtol=0, atol=1e-5,
                               err_msg=path)


def test_one_float16_step_with_loss_scaling(tmp_path):
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=["sts"], precision="mixed_float16"))
  trainee = train_loop.build_trainee(config, tf.distribute.get_strategy(),
                                     str(tmp_path), {}, 10, seed=0)
  step = train_loop.FinetuneStep(trainee.model, trainee.optimizer,
                                 trainee.loss_scale)
  ids = np.array([[2, 10, 11, 3, 12, 3, 0, 0]] * 4, np.int32)
  sums = step({"input_ids": ids, "input_mask": (ids > 0).astype(np.int32),
               "segment_ids": np.zeros_like(ids),
               "targets": np.linspace(0, 1, 4).astype(np.float32),
               "task_id": np.array([0, 0, 0, 1], np.int32)})
  assert np.isfinite(float(sums["loss"])) and float(sums["examples"]) == 3.0
  assert int(trainee.optimizer.iterations.numpy()) == 1
  assert trainee.model.task_heads["sts"].dense.kernel.dtype == "float32"


def test_layerwise_learning_rates_are_applied_in_a_step(tmp_path):
  """One step with decay 0.8 moves each variable by its multiplier times
  what the same step moves it with no decay (first Adam step, no weight
  decay: the update is linear in the learning rate)."""
  deltas, multipliers = [], None
  for decay in (0.8, 1.0):
    config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
        task_names=["sts"], layerwise_lr_decay=decay, weight_decay_rate=0.0,
        warmup_proportion=0.0))
    trainee = train_loop.build_trainee(config, tf.distribute.get_strategy(),
                                       str(tmp_path / str(decay)), {}, 10,
                                       seed=0)
    model = trainee.model
    before = [v.numpy() for v in model.trainable_variables]
    ids = np.array([[2, 10, 11, 3, 12, 3, 0, 0]] * 4, np.int32)
    train_loop.FinetuneStep(model, trainee.optimizer)({
        "input_ids": ids, "input_mask": (ids > 0).astype(np.int32),
        "segment_ids": np.zeros_like(ids),
        "targets": np.linspace(0, 1, 4).astype(np.float32),
        "task_id": np.zeros(4, np.int32)})
    deltas.append([v.numpy() - b
                   for v, b in zip(model.trainable_variables, before)])
    if multipliers is None:
      factors = layerwise_lr.lr_multipliers(model, decay,
                                            config.layerwise_lr_decay_mode)
      multipliers = [factors[v.value.ref()] for v in model.trainable_variables]
  assert min(multipliers) < 0.8 ** 2 and max(multipliers) == 1.0
  moved = 0
  for decayed, plain, factor in zip(*deltas, multipliers):
    if np.abs(plain).max() > 0:
      moved += 1
      # Multipliers differ by 20% steps; the tolerance is float32 storage
      # of weights up to ~1 (a delta is a difference of two of them).
      np.testing.assert_allclose(decayed, factor * plain, rtol=1e-3,
                                 atol=2.5e-7)
  assert moved > 10
