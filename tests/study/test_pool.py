"""Pooling studies that differ only in their pretraining seeds
(`electra-study --pool`), on the committed full study's results."""

import copy
import json
import os

import pytest

from electra_tf.cli import study as study_cli
from electra_tf.study import collect
from electra_tf.study import report

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "benchmarks", "study", "results.json")


@pytest.fixture(scope="module")
def seed0():
  with open(RESULTS) as f:
    return json.load(f)


def _as_seed(results, seed, shift):
  """The same study as if pretrained with `seed`, every score + `shift`."""
  other = copy.deepcopy(results)
  other["study"]["pretrain_seeds"] = [seed]
  for run in other["runs"]:
    run["pretrain_seed"] = seed
    for split in ("dev", "test"):
      run[split] = {k: v + shift for k, v in run[split].items()}
  for run in other["pretraining"]:
    run["seed"] = seed
  return other


def test_summary_of_reproduces_the_committed_summary(seed0):
  assert collect.summary_of(seed0) == seed0["summary"]


def test_pooled_summary_is_over_every_seed_pair(seed0):
  pooled = collect.pool([seed0, _as_seed(seed0, 1, 2.0)])
  assert pooled["study"]["pretrain_seeds"] == [0, 1]
  assert len(pooled["runs"]) == 2 * len(seed0["runs"])
  assert [p["seed"] for p in pooled["pretraining"]] == [0, 0, 1, 1]
  for label, points in pooled["summary"]["objectives"].items():
    for point, alone in zip(points, seed0["summary"]["objectives"][label]):
      mean = point["mean_over_tasks"]
      assert mean["n"] == 2 * alone["mean_over_tasks"]["n"]
      assert mean["mean"] == pytest.approx(
          alone["mean_over_tasks"]["mean"] + 1.0)
  # Both objectives moved by the same shift: the paired difference keeps
  # its mean over twice the pairs.
  paired = pooled["summary"]["paired"]["electra - mlm"]
  alone = seed0["summary"]["paired"]["electra - mlm"]
  assert paired["n"] == 2 * alone["n"]
  assert paired["mean"] == pytest.approx(alone["mean"])
  # Random init has one set of finetuning seeds, paired with the runs of
  # each pretraining seed: only seed 1's half of the pairs moved by 2.
  paired = pooled["summary"]["paired"]["electra - random_init"]
  alone = seed0["summary"]["paired"]["electra - random_init"]
  assert paired["n"] == 2 * alone["n"]
  assert paired["mean"] == pytest.approx(alone["mean"] + 1.0)


@pytest.mark.parametrize("change, message", [
    (lambda r: r["study"].update(budget_steps=10), "'budget_steps'"),
    (lambda r: r["study"].update(pretrain_seeds=[0]), "seeds repeat"),
    (lambda r: r["random_init"][0]["test"].update(accuracy=0.0),
     "'random_init'"),
    (lambda r: r["tfidf"].popitem(), "'tfidf'"),
])
def test_studies_that_are_not_seeds_of_one_study_are_refused(
    seed0, change, message):
  other = _as_seed(seed0, 1, 0.0)
  change(other)
  with pytest.raises(ValueError, match=message):
    collect.pool([seed0, other])


def test_the_command_writes_the_pooled_report(seed0, tmp_path, capsys):
  dirs = []
  for seed in (0, 1):
    folder = tmp_path / f"seed{seed}"
    folder.mkdir()
    (folder / report.RESULTS_JSON).write_text(
        json.dumps(_as_seed(seed0, seed, seed)))
    dirs.append(str(folder))
  out = tmp_path / "pooled"
  assert study_cli.main(["electra-study", "--pool", ",".join(dirs),
                         "--output_dir", str(out)]) == 0
  pooled = json.loads((out / report.RESULTS_JSON).read_text())
  assert pooled == collect.pool([json.loads(
      open(os.path.join(d, report.RESULTS_JSON)).read()) for d in dirs])
  assert (out / report.RESULTS_MD).read_text() == report.markdown(pooled)
  capsys.readouterr()
  missing = str(tmp_path / "nowhere")
  assert study_cli.main(["electra-study", "--pool", f"{dirs[0]},{missing}",
                         "--output_dir", str(out)]) == 2
  error = capsys.readouterr().err.strip()
  assert error.count("\n") == 0 and "nowhere/results.json does not exist" \
      in error
  assert study_cli.main(["electra-study", "--pool", dirs[0], "--config",
                         "x.json", "--output_dir", str(out)]) == 2
