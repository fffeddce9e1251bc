"""Study parts: config validation, equal-FLOPs steps, statistics vs SciPy."""

import json
import math
import os
import shutil

import pytest
from scipy import stats

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf.data import docstring_corpus
from electra_tf.modeling import sizes
from electra_tf.study import budget
from electra_tf.study import statistics
from electra_tf.study import study_data
from electra_tf.study import study_config
from tests.conftest import folder_bytes

BASE = {"corpus": ["c/*.txt"], "tasks": ["sst"]}


def config(**values):
  return study_config.StudyConfig.from_json({**BASE, **values})


@pytest.mark.parametrize("values, message", [
    ({"budget_step": 10}, "unknown study key 'budget_step'; did you mean "
     "'budget_steps'?"),
    ({"budget_steps": "10"}, "study key 'budget_steps' has the wrong type"),
    ({"budget_steps": 0}, "'budget_steps' must be at least 1"),
    ({"corpus": []}, "names no corpus"),
    ({"tasks": []}, "names no finetuning \"tasks\""),
    ({"pretrain_seeds": [1, 1]}, "'pretrain_seeds' must be a list of "
     "distinct integers"),
    ({"finetune_seeds": 3}, "'finetune_seeds' must be a list"),
    ({"references": ["bm25"]}, "unknown study reference(s) ['bm25']"),
    ({"objectives": {"bert": {}}}, "objective 'bert': 'bert' is not one of"),
    ({"objectives": {"mlm": {}}}, "reference_objective 'electra' is not one"
     " of the objectives ['mlm']"),
    ({"headline_split": "train"}, "headline_split 'train' is not one of"),
    ({"held_out_per_mille": 1000}, "'held_out_per_mille' must be in 1..999"),
    ({"docstring_corpus_bytes": 1000}, "names corpus and "
     "docstring_corpus_bytes; give one corpus"),
    ({"corpus": [], "docstring_corpus_bytes": -5},
     "'docstring_corpus_bytes' must be at least 1, got -5"),
    ({"corpus": [], "tfds_name": "wiki40b", "docstring_corpus_bytes": 10},
     "names tfds_name and docstring_corpus_bytes; give one corpus"),
])
def test_bad_study_configs_are_one_line_errors(values, message):
  with pytest.raises(errors.ConfigError) as error:
    config(**values)
  assert message in str(error.value)
  assert len(str(error.value).splitlines()) == 1


def test_profiles_and_overrides_apply_in_order(tmp_path):
  path = tmp_path / "study.json"
  path.write_text(json.dumps({**BASE, "budget_steps": 100, "profiles": {
      "quick": {"budget_steps": 10, "finetune_seeds": [0, 1]}}}))
  quick = study_config.StudyConfig.from_json(str(path), "quick",
                                             data_dir="/d")
  assert (quick.budget_steps, quick.finetune_seeds) == (10, (0, 1))
  assert quick.path("c/x.txt") == "/d/c/x.txt"
  assert quick.path("gs://b/x") == "gs://b/x"
  with pytest.raises(errors.ConfigError, match="no profile 'slow'"):
    study_config.StudyConfig.from_json(str(path), "slow")


def test_labels_name_objectives_or_set_them():
  study = config(objectives={"electra": {}, "small_gen": {
      "objective": "electra", "generator_hidden_size": 0.25}})
  assert study.objective_hparams("small_gen")["objective"] == "electra"
  assert study.objective_hparams("electra") == {"objective": "electra"}


TINY = {"model_hparam_overrides": {"num_hidden_layers": 2, "hidden_size": 64,
                                   "num_attention_heads": 2,
                                   "intermediate_size": 256},
        "embedding_size": 32, "vocab_size": 1000, "max_seq_length": 64,
        "train_batch_size": 16}


def pretraining(objective, **extra):
  return config_lib.PretrainingConfig.from_hparams(
      {**TINY, "objective": objective, **extra})


def test_equal_flops_steps_spend_the_reference_budget():
  configs = {label: pretraining(label) for label in config_lib.OBJECTIVES}
  schedules = budget.schedules(configs, "electra", 1000, 4)
  budget_flops = schedules["electra"].total_flops
  assert schedules["electra"].num_train_steps == 1000
  for label, schedule in schedules.items():
    assert schedule.num_train_steps % 4 == 0
    # Within half a checkpoint interval's worth of steps of the budget.
    assert abs(schedule.total_flops - budget_flops) <= (
        2 * schedule.flops_per_step)
    assert schedule.checkpoint_steps == tuple(
        schedule.num_train_steps * k // 4 for k in range(1, 5))
  # MLM has no generator, so it gets more steps than ELECTRA...
  assert schedules["mlm"].num_train_steps > 1000
  # ... and All-Tokens MLM, with an MLM head on every token, fewer.
  assert schedules["all_tokens_mlm"].num_train_steps < 1000


def test_the_main_model_head_is_counted_per_objective():
  electra = sizes.pretraining_flops_per_sequence(pretraining("electra"))
  disc = pretraining("electra").discriminator_config
  h, e, v = disc.hidden_size, disc.embedding_size, disc.vocab_size
  length, slots = 64, pretraining("electra").max_predictions_per_seq
  detector = 3 * 2 * length * (h * h + h)
  mlm_head = lambda positions: 3 * 2 * positions * (h * e + e * v)
  assert sizes.pretraining_flops_per_sequence(
      pretraining("electra_15")) == electra
  assert sizes.pretraining_flops_per_sequence(
      pretraining("replace_mlm")) == electra - detector + mlm_head(slots)
  assert sizes.pretraining_flops_per_sequence(
      pretraining("all_tokens_mlm")) == electra + mlm_head(length)


@pytest.mark.parametrize("df", [1, 2, 3, 5, 9, 29, 200])
def test_t_quantiles_and_cdf_match_scipy(df):
  for p in (0.5, 0.6, 0.9, 0.975, 0.995, 0.025):
    assert statistics.t_quantile(p, df) == pytest.approx(
        stats.t.ppf(p, df), rel=1e-9, abs=1e-12)
  for t in (-4.0, -0.3, 0.0, 1.1, 7.5):
    assert statistics.t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df),
                                                     abs=1e-12)


def test_confidence_intervals_match_scipy():
  values = [71.2, 74.5, 69.9, 73.0, 72.2]
  estimate = statistics.mean_ci(values)
  low, high = stats.t.interval(0.95, len(values) - 1,
                               loc=sum(values) / len(values),
                               scale=stats.sem(values))
  assert (estimate.low, estimate.high) == (pytest.approx(low),
                                           pytest.approx(high))
  assert estimate.n == 5 and estimate.excludes_zero()
  single = statistics.mean_ci([3.0])
  assert single.mean == 3.0 and math.isnan(single.low)


def test_paired_difference_matches_scipy_paired_t_test():
  first, second = [80.1, 78.3, 82.0, 79.5], [77.0, 77.9, 79.2, 78.8]
  difference = statistics.paired_difference(first, second)
  test = stats.ttest_rel(first, second)
  interval = test.confidence_interval(0.95)
  assert difference.low == pytest.approx(interval.low)
  assert difference.high == pytest.approx(interval.high)
  assert difference.excludes_zero() == (test.pvalue < 0.05)
  with pytest.raises(ValueError):
    statistics.paired_difference([1.0], [1.0, 2.0])


def test_the_docstring_corpus_data_is_reused_and_alike_on_any_core_count(
    tmp_path, monkeypatch):
  # The demo's docstring corpus is written under the output dir.
  study = config(corpus=[], docstring_corpus_bytes=100_000, vocab_size=600,
                 vocab_sample_per_mille=1000, held_out_per_mille=100,
                 pretrain_hparams={"max_seq_length": 64})
  data = study_data.prepare(study, str(tmp_path))
  corpus = docstring_corpus.docstring_corpus_files(str(tmp_path / "corpus"))
  assert [f for f, _ in data.fingerprint["corpus"]["files"]] == corpus
  assert data.train_files and data.eval_files and 500 < data.vocab_size <= 600
  # Built once: the same study reuses the text and the data.
  assert study_data.prepare(study, str(tmp_path)).seconds is None
  # The same bytes on any core count: the build's jobs do not follow it.
  train_dir = tmp_path / "data" / "train"
  built = folder_bytes(train_dir)
  for cores in (1, 8):
    shutil.rmtree(train_dir)
    monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
    assert study_data.prepare(study, str(tmp_path)).seconds is not None
    assert folder_bytes(train_dir) == built
