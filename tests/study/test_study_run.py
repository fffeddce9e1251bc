"""electra-study end to end on tiny synthetic data: the report files, a
killed study that resumes and reuses finished sub-runs, changed settings
refused, and one-line errors."""

import glob
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from electra_tf import errors
from electra_tf.cli import study as study_cli
from electra_tf.pretraining import train_loop
from electra_tf.study import report
from electra_tf.study import runner
from electra_tf.study import study_config
from electra_tf.study import sub_runs
from tests.finetuning import own_data
from tests.finetuning import synthetic_tasks

WORDS = synthetic_tasks.FILLER + ["good", "bad", "the", "cat", "sat", "on"]


def write_corpus(folder, files=2, documents=60, seed=0):
  rng = random.Random(seed)
  os.makedirs(folder, exist_ok=True)
  for index in range(files):
    with open(os.path.join(folder, f"part{index}.txt"), "w") as f:
      for _ in range(documents):
        for _ in range(rng.randint(2, 5)):
          f.write(" ".join(rng.choice(WORDS)
                           for _ in range(rng.randint(4, 10))) + " .\n")
        f.write("\n")


STUDY = {
    "corpus": ["corpus/*.txt"], "vocab_file": "vocab.txt",
    "held_out_per_mille": 300, "pretrain_preset": "tiny",
    "pretrain_hparams": {"vocab_size": synthetic_tasks.VOCAB_SIZE,
                         "train_batch_size": 8, "eval_batch_size": 8,
                         "max_seq_length": 32, "num_warmup_steps": 2,
                         "iterations_per_loop": 4, "jit_compile": False,
                         "num_eval_steps": 2},
    "budget_steps": 4, "num_checkpoints": 2, "pretrain_seeds": [0],
    "finetune_seeds": [0, 1], "tasks": ["tasks/sentiment.json"],
    "finetune_hparams": {"num_train_epochs": 1.0, "max_seq_length": 32,
                         "jit_compile": False, "train_batch_size": 8,
                         "eval_batch_size": 8},
}


@pytest.fixture
def study_dir(tmp_path):
  write_corpus(str(tmp_path / "corpus"))
  synthetic_tasks.write_lines(str(tmp_path / "vocab.txt"),
                              synthetic_tasks.VOCAB)
  own_data.write_tasks(str(tmp_path / "tasks"),
                       {"train": 40, "dev": 16, "test": 16})
  (tmp_path / "study.json").write_text(json.dumps(STUDY))
  return tmp_path


def test_a_killed_study_resumes_reuses_and_reports(study_dir):
  output = str(study_dir / "out")
  electra_run = os.path.join(output, "pretrain", "electra-seed0")
  evaluated = os.path.join(electra_run, runner.EVAL_RECORD)
  log = study_dir / "killed_study.log"
  with open(log, "w") as stderr:
    process = subprocess.Popen(
        [sys.executable, "-m", "electra_tf.cli.study", "--config",
         str(study_dir / "study.json"), "--data_dir", str(study_dir),
         "--output_dir", output], stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.time() + 300
    while not os.path.exists(evaluated) and process.poll() is None:
      assert time.time() < deadline
      time.sleep(0.2)
    process.kill()  # SIGKILL: no chance to clean up
    process.wait()
  assert os.path.exists(evaluated), log.read_text()[-3000:]
  kept = {name: os.stat(os.path.join(electra_run, name)).st_mtime_ns
          for name in os.listdir(electra_run) if name.startswith("ckpt-")}

  study = study_config.StudyConfig.from_json(
      str(study_dir / "study.json"), data_dir=str(study_dir))
  written = runner.run_study(study, output)
  assert {os.path.basename(p) for p in written.values()} == {
      report.RESULTS_JSON, report.RESULTS_MD, report.SCORE_PLOT,
      report.LOSS_PLOT}
  for path in written.values():
    assert os.path.getsize(path) > 0
  # The finished pretraining run was reused, not redone.
  assert kept and all(
      os.stat(os.path.join(electra_run, name)).st_mtime_ns == mtime
      for name, mtime in kept.items())
  with open(os.path.join(output, report.RESULTS_JSON)) as f:
    results = json.load(f)
  objectives = results["objectives"]
  # Equal FLOPs: MLM (no generator) ran more steps than ELECTRA's 4.
  assert objectives["electra"]["num_train_steps"] == 4
  assert objectives["mlm"]["num_train_steps"] > 4
  assert abs(objectives["mlm"]["total_flops"]
             - objectives["electra"]["total_flops"]) <= objectives[
                 "mlm"]["flops_per_step"]
  # 2 objectives x 2 checkpoints x 2 seeds; the paired difference and the
  # references are of the end-of-budget checkpoints.
  assert len(results["runs"]) == 8 and len(results["random_init"]) == 2
  assert [p["step"] for p in results["summary"]["objectives"]["electra"]] == [
      2, 4]
  paired = results["summary"]["paired"]["electra - mlm"]
  assert paired["n"] == 2
  assert set(results["tfidf"]["sentiment"]) == {"accuracy", "macro_f1"}
  assert results["pretraining"][0]["loss_curve"]
  markdown = open(os.path.join(output, report.RESULTS_MD)).read()
  assert "| electra |" in markdown and "electra - mlm" in markdown

  # The same study again reuses everything, also from records written
  # before a config key was added; changed settings are refused.
  records = glob.glob(os.path.join(output, "pretrain", "*",
                                   sub_runs.RECORD_FILE))
  assert records
  for path in records:
    with open(path) as f:
      record = json.load(f)
    assert record["config"].pop("replacement_sampling") == "gumbel_max"
    with open(path, "w") as f:
      json.dump(record, f)
  assert runner.run_study(study, output) == written
  changed = study_config.StudyConfig.from_json(
      {**STUDY, "finetune_hparams": {**STUDY["finetune_hparams"],
                                     "learning_rate": 1e-3}},
      data_dir=str(study_dir))
  with pytest.raises(errors.ConfigError, match=r"config\.learning_rate"):
    runner.run_study(changed, output)
  # Other finetuning settings in another output dir, on this study's
  # pretraining runs: nothing is pretrained again.
  other = str(study_dir / "other_finetuning")
  changed = study_config.StudyConfig.from_json(
      {**STUDY, "finetune_hparams": {**STUDY["finetune_hparams"],
                                     "learning_rate": 1e-3},
       "finetune_seeds": [0], "references": []}, data_dir=str(study_dir))
  runner.run_study(changed, other, pretrain_dir=output)
  assert not os.path.exists(os.path.join(other, "pretrain"))
  assert not os.path.exists(os.path.join(other, "data"))
  assert all(os.stat(os.path.join(electra_run, name)).st_mtime_ns == mtime
             for name, mtime in kept.items())
  with open(os.path.join(other, report.RESULTS_JSON)) as f:
    other_results = json.load(f)
  assert len(other_results["runs"]) == 4  # 2 objectives x 2 checkpoints
  assert {r["init"] for r in other_results["runs"]} == {"electra", "mlm"}
  assert other_results["pretraining"][0]["loss_curve"] == results[
      "pretraining"][0]["loss_curve"]


def test_cli_errors_are_one_line(study_dir, capsys):
  (study_dir / "bad.json").write_text(json.dumps({**STUDY, "seeds": [1]}))
  code = study_cli.main(["electra-study", "--config",
                         str(study_dir / "bad.json"), "--output_dir",
                         str(study_dir / "out")])
  err = capsys.readouterr().err.strip()
  assert code == 2 and "unknown study key 'seeds'" in err and (
      len(err.splitlines()) == 1)
  broken = {**STUDY, "tasks": [{"name": "t", "files": "nope/{split}.tsv"}]}
  (study_dir / "broken.json").write_text(json.dumps(broken))
  code = study_cli.main(["electra-study", "--config",
                         str(study_dir / "broken.json"), "--data_dir",
                         str(study_dir), "--output_dir",
                         str(study_dir / "out")])
  assert code == 2 and "no train file" in capsys.readouterr().err
  assert not os.path.exists(study_dir / "out" / "pretrain")


def test_a_signal_in_pretraining_stops_the_study_with_its_exit_code(
    study_dir, monkeypatch):
  def stopped_by_sigterm(config, strategy, run_dir, *args, **kwargs):
    del config, strategy, run_dir, args, kwargs
    return train_loop.RunResult(0, None, {}, stopped_early=True,
                                stop_signal=signal.SIGTERM)

  monkeypatch.setattr(runner.train_loop, "pretrain", stopped_by_sigterm)
  code = study_cli.main(["electra-study",
                         "--config", str(study_dir / "study.json"),
                         "--data_dir", str(study_dir),
                         "--output_dir", str(study_dir / "out")])
  assert code == 128 + signal.SIGTERM
  # A time limit is no signal: None (run again), exit code 0.
  monkeypatch.setattr(runner.train_loop, "pretrain", lambda *a, **k: (
      train_loop.RunResult(0, None, {}, stopped_early=True)))
  study = study_config.StudyConfig.from_json(
      str(study_dir / "study.json"), data_dir=str(study_dir))
  assert runner.run_study(study, str(study_dir / "out")) is None
