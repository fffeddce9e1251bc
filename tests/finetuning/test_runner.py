"""Trials, medians, resuming and skipped inputs of a finetuning run."""

import os
import re
import statistics

import pytest
from absl import logging

from electra_tf.finetuning import runner
from electra_tf.finetuning.config import FinetuningConfig
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
  config = config_for(data_dir, num_trials=3, keep_all_models=False)
  with caplog.at_level(logging.WARNING):
    results = runner.run_finetuning(config)
  assert len(results.trials) == 3
  accuracies = [t["sst"]["accuracy"] for t in results.trials]
  assert results.median == {"sst": {"accuracy": statistics.median(accuracies)}}
  assert [os.path.isdir(config.trial_model_dir(t)) for t in (1, 2, 3)] == [
      False, False, True]
  with open(config.results_txt) as f:
    lines = f.read().splitlines()
  assert len(lines) == 3 and lines[0].startswith("sst: accuracy: ")
  # The malformed row is skipped, counted and reported with file and line.
  assert results.skipped == {"sst train": 1}
  assert "train.tsv:66" in caplog.text and "skipped 1 input" in caplog.text


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
