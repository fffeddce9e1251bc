"""electra-finetune: help, one-line errors (exit 2), and bad input data."""

import json
import os

import pytest

from electra_tf import config as config_lib
from electra_tf import tokenization
from electra_tf.cli import finetune as finetune_cli
from electra_tf.finetuning import feature_cache
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.finetuning.config import FinetuningConfig
from tests.finetuning import synthetic_tasks


@pytest.fixture
def data_dir(tmp_path):
  synthetic_tasks.write_tasks(str(tmp_path), {"train": 8, "dev": 4},
                              tasks=("sst", "squad", "chunk"))
  return str(tmp_path)


def run_cli(capsys, *args):
  code = finetune_cli.main(["finetune", *args])
  captured = capsys.readouterr()
  return code, captured.out, captured.err.strip()


def test_help_lists_the_flags(capsys):
  code, out, _ = run_cli(capsys, "--help")
  assert code == 0
  for flag in ("--data_dir", "--task_names", "--hparams", "--init_checkpoint",
               "--model_dir", "--strategy", "--tpu", "--export_dir"):
    assert flag in out


@pytest.mark.parametrize("args,message", [
    (["--hparams", '{"layerwise_lr_decy": 0.9}'],
     "unknown finetuning hparam 'layerwise_lr_decy'; did you mean "
     "'layerwise_lr_decay'?"),
    (["--task_names", "sst,nli"], "unknown finetuning task 'nli'"),
    (["--task_names", ""], "task_names is empty"),
    (["--task_names", "sst"], "no raw_data_dir"),
    (["--data-dir", "/no/such/dir", "--model-name", "m", "--task_names", "sst"],
     "data dir /no/such/dir does not exist"),
    (["--strategy", "gpus"], "--strategy"),
])
def test_bad_flags_are_one_line_errors(capsys, args, message):
  code, _, err = run_cli(capsys, *args)
  assert code == 2
  assert message in err and len(err.splitlines()) == 1


def test_a_missing_task_folder_is_named(capsys, data_dir):
  code, _, err = run_cli(capsys, "--data_dir", data_dir, "--model_name", "m",
                         "--task_names", "rte")
  assert code == 2 and "finetuning_data/rte does not exist" in err


def test_an_unknown_label_names_file_and_line(capsys, data_dir):
  train = os.path.join(data_dir, "finetuning_data", "sst", "train.tsv")
  with open(train, "a") as f:
    f.write("w1 w2 good\tpositive\n")
  code, _, err = run_cli(capsys, "--data_dir", data_dir, "--model_name", "m",
                         "--task_names", "sst",
                         '--hparams={"init_checkpoint": null}')
  assert code == 2 and len(err.splitlines()) == 1
  assert f"{train}:10: unknown sst label 'positive'" in err


def build(data_dir, task, split="train", **hparams):
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=[task], **hparams), data_dir=data_dir, model_name="m")
  settings = tasks_lib.DataSettings(max_seq_length=config.max_seq_length)
  labels = {"chunk": config.tasks[0].label_list(data_dir)} if (
      task == "chunk") else {}
  return feature_cache.build_feature_set(
      config, config.tasks, split, True,
      tokenization.FullTokenizer(config.vocab_file), labels, settings)


def test_squad_answers_whose_offsets_miss_their_text_are_skipped(data_dir):
  path = os.path.join(data_dir, "finetuning_data", "squad", "train.json")
  with open(path) as f:
    dataset = json.load(f)
  answerable = [p["qas"][0] for p in dataset["data"][0]["paragraphs"]
                if p["qas"][0]["answers"]]
  answerable[0]["answers"][0]["answer_start"] = 0  # another word
  answerable[1]["answers"][0]["answer_start"] = 10000
  with open(path, "w") as f:
    json.dump(dataset, f)
  feature_set = build(data_dir, "squad", max_seq_length=48, beam_size=4)
  assert len(feature_set.skipped) == 2
  assert feature_set.num_examples == 8 - 2
  assert f"question {answerable[0]['id']}" in feature_set.skipped[0]
  assert "outside the context" in feature_set.skipped[1]


@pytest.mark.parametrize("task", ["sst", "chunk"])
def test_examples_longer_than_max_seq_length_are_counted(data_dir, task,
                                                         caplog):
  feature_set = build(data_dir, task, max_seq_length=5)
  assert feature_set.long_sequences == feature_set.num_features == 8
  assert "8 of 8 train sequences reached max_seq_length 5" in caplog.text


def test_a_preset_of_other_sizes_than_the_run_is_one_line(tmp_path, capsys):
  # README's own-data command with --preset tiny, on a run twice as wide:
  # refused before any work, naming the sizes, not a shape error at restore.
  run = tmp_path / "wide_run"
  run.mkdir()
  wide = config_lib.load_pretraining_config("tiny", {
      "model_hparam_overrides": {"num_hidden_layers": 2, "hidden_size": 128,
                                 "num_attention_heads": 2,
                                 "intermediate_size": 512},
      "embedding_size": 128, "vocab_size": synthetic_tasks.VOCAB_SIZE})
  (run / "config.json").write_text(wide.to_json())
  spec = tmp_path / "t.json"
  (tmp_path / "train.tsv").write_text("text\tlabel\na b\tx\nc d\ty\n")
  spec.write_text(json.dumps({"name": "t", "files": {"train": "train.tsv"}}))
  code, _, err = run_cli(capsys, "--preset", "tiny", "--task_names",
                         str(spec), "--init_checkpoint", str(run),
                         "--model_dir", str(tmp_path / "model"))
  assert code == 2 and len(err.strip().splitlines()) == 1, err
  assert "hidden_size 64 (the run has 128)" in err
  assert "embedding_size 32 (the run has 128)" in err
  assert not (tmp_path / "model").exists()
