"""Finetuning end to end: from a tiny pretrained checkpoint, on synthetic
tasks in the real file formats, well above chance, with every output file.
"""

import csv
import json
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

from electra_tf.cli import finetune as finetune_cli
from electra_tf.finetuning import checkpoints
from electra_tf.finetuning import evaluation
from electra_tf.finetuning import runner
from electra_tf.finetuning.config import FinetuningConfig
from electra_tf.finetuning.qa import mrqa
from electra_tf.finetuning.qa import mrqa_scoring
from tests.finetuning import synthetic_tasks

MODEL = synthetic_tasks.MODEL_NAME


@pytest.fixture(scope="module")
def pretrained(tmp_path_factory):
  root = tmp_path_factory.mktemp("pretrained")
  synthetic_tasks.save_pretrained_model(str(root / "data"))
  return str(root / "data" / "models" / MODEL)


def new_data_dir(tmp_path, pretrained, sizes, tasks):
  data_dir = tmp_path / "data"
  synthetic_tasks.write_tasks(str(data_dir), sizes, tasks=tasks)
  shutil.copytree(pretrained, data_dir / "models" / MODEL)
  return str(data_dir)


def read_tsv(path):
  with open(path) as f:
    return list(csv.reader(f, delimiter="\t"))


def test_glue_and_chunking_through_the_cli(tmp_path, pretrained):
  data_dir = new_data_dir(tmp_path, pretrained,
                          {"train": 200, "dev": 60, "test": 20},
                          ("sst", "sts", "chunk"))
  hparams = synthetic_tasks.finetune_hparams(
      task_names=["sst", "sts", "chunk"], learning_rate=2e-3,
      num_train_epochs=4.0, max_seq_length=32, write_test_outputs=True)
  code = finetune_cli.main(["finetune", "--data-dir", data_dir,
                            "--model-name", MODEL,
                            f"--hparams={json.dumps(hparams)}"])
  assert code == 0
  pretrained_dir = os.path.join(data_dir, "models", MODEL)
  with open(os.path.join(pretrained_dir, "results",
                         "sst,sts,chunk_results.json")) as f:
    median = json.load(f)["median"]
  assert median["sst"]["accuracy"] >= 90.0  # chance: 50
  assert median["sts"]["spearman"] >= 80.0  # chance: 0
  assert median["sts"]["pearson"] >= 80.0
  assert median["chunk"]["f1"] >= 90.0

  glue_dir = os.path.join(pretrained_dir, "test_predictions", "glue_trial_1")
  sst_rows = read_tsv(os.path.join(glue_dir, "SST-2.tsv"))
  test = read_tsv(os.path.join(data_dir, "finetuning_data", "sst", "test.tsv"))
  assert sst_rows[0] == ["index", "prediction"] and len(sst_rows) == 21
  assert [r[0] for r in sst_rows[1:]] == [r[0] for r in test[1:]]
  agree = [p == str(int("good" in s.split()))
           for (_, p), (_, s) in zip(sst_rows[1:], test[1:])]
  assert np.mean(agree) >= 0.9
  sts_rows = read_tsv(os.path.join(glue_dir, "STS-B.tsv"))
  scores = [float(r[1]) for r in sts_rows[1:]]
  assert len(scores) == 20 and all(0.0 <= s <= 5.0 for s in scores)

  # The finetuned checkpoint rebuilds for export and scores the same.
  trial_dir = os.path.join(pretrained_dir, "finetuning_models",
                           "sst,sts,chunk_model_1")
  model, config, task = checkpoints.load_finetuned_model(trial_dir, "sst")
  predictor = evaluation.Predictor(model, tf.distribute.get_strategy())
  again = runner.evaluate_task(config, predictor, runner.RunData(config), task)
  assert again["accuracy"] == pytest.approx(median["sst"]["accuracy"])
  with open(os.path.join(trial_dir, checkpoints.LABELS_FILE)) as f:
    assert "B-NP" in json.load(f)["chunk"]


def expected_answer(context):
  words = context.split()
  return words[words.index("key") + 1] if "key" in words else ""


def test_squad_v2_from_the_pretrained_checkpoint(tmp_path, pretrained):
  data_dir = new_data_dir(tmp_path, pretrained,
                          {"train": 400, "dev": 60, "test": 20}, ("squad",))
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=["squad"], learning_rate=3e-3, num_train_epochs=10.0,
      max_seq_length=48, beam_size=5, iterations_per_loop=200,
      # -2.75 was tuned on SQuAD 2.0; 0 (p = 0.5) suits the toy task.
      qa_na_threshold=0.0, write_test_outputs=True),
      data_dir=data_dir, model_name=MODEL)
  results = runner.run_finetuning(config)
  squad = results.median["squad"]
  assert squad["f1"] >= 80.0 and squad["exact"] >= 80.0  # chance: ~40
  assert squad["HasAns_total"] > 0 and squad["NoAns_total"] > 0

  with open(os.path.join(data_dir, "finetuning_data", "squad",
                         "dev.json")) as f:
    dev_ids = {p["qas"][0]["id"] for p in json.load(f)["data"][0]["paragraphs"]}
  for path in (config.qa_preds_file, config.qa_na_file,
               config.qa_eval_file):
    with open(path.format("squad")) as f:
      written = json.load(f)
    if path != config.qa_eval_file:
      assert set(written) == dev_ids
  with open(config.test_predictions.format("squad", "test", 1)[:-4] +
            ".json") as f:
    answers = json.load(f)
  with open(os.path.join(data_dir, "finetuning_data", "squad",
                         "test.json")) as f:
    paragraphs = json.load(f)["data"][0]["paragraphs"]
  expected = {p["qas"][0]["id"]: expected_answer(p["context"])
              for p in paragraphs}
  assert set(answers) == set(expected)
  assert np.mean([answers[q] == a for q, a in expected.items()]) >= 0.8
  assert "" in answers.values()


def test_mrqa_scores_what_it_writes(tmp_path, pretrained):
  data_dir = new_data_dir(tmp_path, pretrained, {"train": 96, "dev": 30},
                          ("newsqa",))
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=["newsqa"], learning_rate=3e-3, num_train_epochs=3.0,
      max_seq_length=32, beam_size=5, iterations_per_loop=200),
      data_dir=data_dir, model_name=MODEL)
  results = runner.run_finetuning(config)
  newsqa = results.median["newsqa"]
  assert newsqa["exact_match"] >= 80.0  # chance: ~10

  dev = os.path.join(data_dir, "finetuning_data", "newsqa", "dev.jsonl")
  golds = mrqa.gold_answers(dev)
  with open(config.qa_preds_file.format("newsqa")) as f:
    predictions = json.load(f)
  assert set(predictions) == set(golds) and len(golds) == 30
  with open(config.qa_eval_file.format("newsqa")) as f:
    assert json.load(f) == mrqa_scoring.evaluate(golds, predictions) == newsqa
