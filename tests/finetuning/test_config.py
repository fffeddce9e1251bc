"""FinetuningConfig: every original key, the original's derivations, errors."""

import os

import pytest

from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf.finetuning.config import FinetuningConfig

# Every attribute of the original configure_finetuning.FinetuningConfig.
ORIGINAL_KEYS = """
model_name debug log_examples num_trials do_train do_eval keep_all_models
model_size task_names model_hparam_overrides embedding_size vocab_size
do_lower_case learning_rate weight_decay_rate layerwise_lr_decay
num_train_epochs warmup_proportion save_checkpoints_steps iterations_per_loop
use_tfrecords_if_existing write_test_outputs n_writes_test max_seq_length
train_batch_size eval_batch_size predict_batch_size double_unordered
max_query_length doc_stride n_best_size max_answer_length
answerable_classifier answerable_uses_start_logits answerable_weight
joint_prediction beam_size qa_na_threshold use_tpu num_tpu_cores tpu_job_name
tpu_name tpu_zone gcp_project data_dir raw_data_dir vocab_file
init_checkpoint model_dir results_txt results_pkl qa_eval_file qa_preds_file
qa_na_file preprocessed_data_dir test_predictions
""".split()


def test_every_original_key_is_accepted_with_its_default():
  config = FinetuningConfig.from_hparams({"task_names": ["mnli"]})
  resolved = config.to_dict()
  assert not set(ORIGINAL_KEYS) - set(resolved)
  for key in ORIGINAL_KEYS:
    again = FinetuningConfig.from_hparams({"task_names": ["mnli"],
                                           key: resolved[key]})
    assert again.to_dict()[key] == resolved[key], key


def test_defaults_are_the_originals():
  config = FinetuningConfig.from_hparams({"task_names": ["mnli"]})
  assert (config.learning_rate, config.layerwise_lr_decay,
          config.warmup_proportion, config.num_train_epochs,
          config.max_seq_length, config.train_batch_size,
          config.embedding_size) == (1e-4, 0.8, 0.1, 3.0, 128, 32, 128)
  assert config.layerwise_lr_decay_mode == "original"


@pytest.mark.parametrize("tasks,epochs,length", [
    (["rte"], 10.0, 128), (["sts"], 10.0, 128), (["squad"], 2.0, 512),
    (["squadv1"], 2.0, 512), (["chunk"], 3.0, 256), (["cola"], 3.0, 128),
    (["newsqa"], 2.0, 512), (["naturalqs"], 3.0, 128),
    # Per-task defaults are for single-task runs only, as the original.
    (["squad", "rte"], 3.0, 128)])
def test_per_task_defaults(tasks, epochs, length):
  config = FinetuningConfig.from_hparams({"task_names": tasks})
  assert (config.num_train_epochs, config.max_seq_length) == (epochs, length)


def test_model_size_defaults_and_passed_values_win():
  large = FinetuningConfig.from_hparams({"model_size": "large",
                                         "task_names": ["sst"]})
  assert (large.learning_rate, large.layerwise_lr_decay) == (5e-5, 0.9)
  assert large.embedding_size is None
  assert large.encoder_config.embedding_size == 1024
  passed = FinetuningConfig.from_hparams({
      "model_size": "large", "task_names": ["rte"], "learning_rate": 3e-5,
      "num_train_epochs": 2.0, "embedding_size": 64})
  assert (passed.learning_rate, passed.num_train_epochs,
          passed.embedding_size) == (3e-5, 2.0, 64)


def test_debug_settings_then_passed_values():
  config = FinetuningConfig.from_hparams({
      "debug": True, "task_names": ["sst"], "train_batch_size": 4},
      data_dir="/data")
  assert (config.train_batch_size, config.num_trials,
          config.iterations_per_loop, config.use_tfrecords_if_existing) == (
              4, 1, 1, False)
  assert config.encoder_config.hidden_size == 144
  # Fixed ordering quirk: debug trains from scratch unless told otherwise.
  assert config.init_checkpoint is None


def test_data_dir_layout_is_the_originals():
  config = FinetuningConfig.from_hparams(
      {"task_names": "mnli,sts", "model_name": "small"}, data_dir="/d")
  model = os.path.join("/d", "models", "small")
  assert config.task_names == ("mnli", "sts")
  assert config.init_checkpoint == model
  assert config.vocab_file == "/d/vocab.txt"
  assert config.model_dir == f"{model}/finetuning_models/mnli,sts_model"
  assert config.trial_model_dir(2) == config.model_dir + "_2"
  assert config.results_txt == f"{model}/results/mnli,sts_results.txt"
  assert config.qa_preds_file.format("squad") == (
      f"{model}/results/mnli,sts_qa/squad_preds.json")
  assert config.raw_data_root == "/d"


@pytest.mark.parametrize("hparams,message", [
    ({"learning_rat": 1e-4}, "did you mean 'learning_rate'"),
    ({"learning_rate": "fast"}, "'learning_rate' must be float"),
    ({"task_names": ["sst", "nope"]}, "unknown finetuning task 'nope'"),
    ({"task_names": []}, "task_names is empty"),
    ({"task_names": ["sst", "sst"]}, "repeats"),
    ({"model_size": "huge"}, "model_size 'huge'"),
    ({"layerwise_lr_decay_mode": "fixed"}, "layerwise_lr_decay_mode"),
    ({"model_hparam_overrides": {"hiden_size": 8}}, "'hidden_size'"),
    ({"num_trials": -1}, "num_trials must be at least 1"),
    ({"raw_data_dir": "/x/{:}"}, "finetuning_data"),
])
def test_bad_hparams_raise_config_errors(hparams, message):
  with pytest.raises(errors.ConfigError, match=message):
    FinetuningConfig.from_hparams(hparams)


@pytest.mark.parametrize("name", hparams_lib.preset_names("finetune"))
def test_every_preset_loads(name):
  hparams = hparams_lib.read_preset(name, "finetune")
  hparams.setdefault("task_names", ["mnli"])
  config = FinetuningConfig.from_hparams(hparams)
  assert config.to_dict()["model_size"] == hparams.get("model_size", "small")
  if "squad" in name:
    assert (config.max_seq_length, config.num_train_epochs) == (512, 2.0)


def test_small_presets_hold_the_code_and_the_paper_values():
  code = FinetuningConfig.from_hparams(
      hparams_lib.read_preset("electra_small", "finetune"))
  paper = FinetuningConfig.from_hparams(
      hparams_lib.read_preset("electra_small_paper", "finetune"))
  assert (code.learning_rate, code.weight_decay_rate) == (1e-4, 0.01)
  assert (paper.learning_rate, paper.weight_decay_rate) == (3e-4, 0.0)
  for config in (code, paper):
    assert (config.layerwise_lr_decay, config.warmup_proportion,
            config.train_batch_size, config.embedding_size) == (
                0.8, 0.1, 32, 128)
