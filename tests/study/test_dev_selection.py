"""Finetuning settings picked on dev (`electra-study --pick_on_dev`), on the
committed study's results and a copy of them finetuned "at another rate"."""

import copy
import json
import os

import pytest

from electra_tf.cli import study as study_cli
from electra_tf.study import collect
from electra_tf.study import dev_selection
from electra_tf.study import report

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "benchmarks", "study", "init_fix",
    "results.json")


@pytest.fixture(scope="module")
def at_1e_3():
  with open(RESULTS) as f:
    return json.load(f)


def _shifted(rows, dev, test):
  for row in rows:
    row["dev"] = {k: v + dev for k, v in row["dev"].items()}
    row["test"] = {k: v + test for k, v in row["test"].items()}


def _at_3e_4(results):
  """The same models as if finetuned at 3e-4: ELECTRA on BBC News better on
  dev (+5) and worse on test (-10); everything else worse on dev (-1) and
  better on test (+10), so that only the dev split can explain a pick."""
  other = copy.deepcopy(results)
  other["study"]["finetune_hparams"] = dict(
      other["study"]["finetune_hparams"], learning_rate=3e-4)
  electra_bbc = [r for r in other["runs"]
                 if r["init"] == "electra" and r["task"] == "bbc_news"]
  _shifted(electra_bbc, 5.0, -10.0)
  _shifted([r for r in other["runs"] if r not in electra_bbc], -1.0, 10.0)
  _shifted(other["random_init"], -1.0, 10.0)
  return other


def test_each_model_and_task_keeps_the_setting_best_on_dev(at_1e_3):
  other = _at_3e_4(at_1e_3)
  picked = dev_selection.pick_on_dev([at_1e_3, other])
  expected_runs = ([r for r in at_1e_3["runs"]
                    if not (r["init"] == "electra" and r["task"] == "bbc_news")]
                   + [r for r in other["runs"]
                      if r["init"] == "electra" and r["task"] == "bbc_news"])
  key = lambda r: (r["init"], r["step"], r["task"], r["finetune_seed"])
  assert sorted(picked["runs"], key=key) == sorted(expected_runs, key=key)
  assert picked["random_init"] == at_1e_3["random_init"]
  assert picked["summary"] == collect.summary_of(picked)
  selection = picked["dev_selection"]
  assert selection["labels"] == ["learning_rate=0.001",
                                 "learning_rate=0.0003"]
  by_model = {(r["init"], r["step"], r["task"]): r
              for r in selection["picked"]}
  # 2 objectives x 2 checkpoints x 3 tasks, and random init on 3 tasks.
  assert len(by_model) == 15
  for (init, step, task), record in by_model.items():
    moved = init == "electra" and task == "bbc_news"
    assert record["picked"] == ("learning_rate=0.0003" if moved
                                else "learning_rate=0.001")
    first, second = (record["dev_means"][label]
                     for label in selection["labels"])
    assert second - first == pytest.approx(5.0 if moved else -1.0)
  # ELECTRA's BBC News test score fell by 10 for the three seeds of the
  # end-of-budget model: its mean over tasks falls by 10 / 3.
  final = lambda r: r["summary"]["objectives"]["electra"][-1]
  assert final(picked)["mean_over_tasks"]["mean"] == pytest.approx(
      final(at_1e_3)["mean_over_tasks"]["mean"] - 10.0 / 3)
  assert "Finetuning settings picked on dev" in report.markdown(picked)


@pytest.mark.parametrize("change, message", [
    (lambda r: r["study"].update(budget_steps=10), "'budget_steps'"),
    (lambda r: r["pretraining"][0]["loss_curve"].pop(), "'pretraining'"),
    (lambda r: r["study"].update(
        finetune_hparams={"learning_rate": 0.001, "train_batch_size": 32}),
     "do not differ in their finetuning settings"),
    (lambda r: r["random_init"].pop(), "the finetuning seeds"),
    (lambda r: r["runs"].append(dict(r["runs"][0], step=1)),
     "has runs that learning_rate=0.001 does not: electra step 1"),
])
def test_results_that_cannot_be_compared_are_refused(at_1e_3, change,
                                                     message):
  other = _at_3e_4(at_1e_3)
  change(other)
  with pytest.raises(ValueError, match=message):
    dev_selection.pick_on_dev([at_1e_3, other])


def test_the_tasks_epochs_are_a_finetuning_setting_too(at_1e_3):
  longer = copy.deepcopy(at_1e_3)
  for task in longer["study"]["tasks"]:
    task["num_train_epochs"] *= 3
  _shifted(longer["runs"] + longer["random_init"], 1.0, 0.0)
  picked = dev_selection.pick_on_dev([at_1e_3, longer])
  assert picked["dev_selection"]["labels"] == [
      "bbc_news.num_train_epochs=2, tweet_sentiment.num_train_epochs=1, "
      "wnut16.num_train_epochs=5",
      "bbc_news.num_train_epochs=6, tweet_sentiment.num_train_epochs=3, "
      "wnut16.num_train_epochs=15"]
  assert picked["runs"] == longer["runs"]
  other_task = copy.deepcopy(longer)
  other_task["study"]["tasks"][0]["max_seq_length"] = 64
  with pytest.raises(ValueError, match="tasks differ from results 0's in "
                     "more than num_train_epochs"):
    dev_selection.pick_on_dev([at_1e_3, other_task])


def test_a_study_that_evaluated_more_checkpoints_has_the_same_models(
    at_1e_3):
  fewer = copy.deepcopy(at_1e_3)
  for run in fewer["pretraining"]:
    run["eval"] = {max(run["eval"], key=int): run["eval"][max(
        run["eval"], key=int)]}
  picked = dev_selection.pick_on_dev([fewer, _at_3e_4(at_1e_3)])
  assert picked["pretraining"] == fewer["pretraining"]
  other = _at_3e_4(at_1e_3)
  step = max(other["pretraining"][0]["eval"], key=int)
  other["pretraining"][0]["eval"][step]["disc_auc"] += 0.01
  with pytest.raises(ValueError, match="electra seed 0 is another "
                     "pretrained model"):
    dev_selection.pick_on_dev([fewer, other])


def test_studies_without_random_init_pick_their_models(at_1e_3):
  alone = [dict(r, random_init=[]) for r in (at_1e_3, _at_3e_4(at_1e_3))]
  picked = dev_selection.pick_on_dev(alone)
  assert picked["random_init"] == []
  assert "random_init" not in picked["summary"]
  assert len(picked["dev_selection"]["picked"]) == 12


def test_a_dev_headline_or_a_single_study_is_refused(at_1e_3):
  with pytest.raises(ValueError, match="at least two"):
    dev_selection.pick_on_dev([at_1e_3])
  on_dev = [dict(r, headline_split="dev")
            for r in (at_1e_3, _at_3e_4(at_1e_3))]
  with pytest.raises(ValueError, match="reported on another split"):
    dev_selection.pick_on_dev(on_dev)


def test_the_command_writes_the_picked_report(at_1e_3, tmp_path, capsys):
  dirs = []
  for name, results in (("lr_1e-3", at_1e_3), ("lr_3e-4", _at_3e_4(at_1e_3))):
    (tmp_path / name).mkdir()
    (tmp_path / name / report.RESULTS_JSON).write_text(json.dumps(results))
    dirs.append(str(tmp_path / name))
  out = tmp_path / "picked"
  assert study_cli.main(["electra-study", "--pick_on_dev", ",".join(dirs),
                         "--output_dir", str(out)]) == 0
  picked = json.loads((out / report.RESULTS_JSON).read_text())
  assert picked == dev_selection.pick_on_dev(
      [at_1e_3, _at_3e_4(at_1e_3)])
  assert (out / report.RESULTS_MD).read_text() == report.markdown(picked)
  capsys.readouterr()
  assert study_cli.main(["electra-study", "--pick_on_dev", dirs[0] + ","
                         + dirs[0], "--output_dir", str(out)]) == 2
  error = capsys.readouterr().err.strip()
  assert error.count("\n") == 0 and "--pick_on_dev" in error and \
      "nothing to pick" in error
