"""Sentence metrics against scikit-learn / SciPy; chunk F1 by hand."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics

from electra_tf import errors
from electra_tf.finetuning import scoring
from electra_tf.finetuning.tagging import tag_spans

NUM_TRIALS = 300


def _random_labels(rng, num_classes):
  size = rng.integers(1, 60)
  return (rng.integers(0, num_classes, size), rng.integers(0, num_classes,
                                                           size))


@pytest.mark.parametrize("num_classes", [2, 3, 5])
def test_accuracy_and_mcc_match_sklearn(num_classes):
  rng = np.random.default_rng(num_classes)
  for _ in range(NUM_TRIALS):
    predictions, gold = _random_labels(rng, num_classes)
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")  # sklearn on single-label inputs
      expected_mcc = metrics.matthews_corrcoef(gold, predictions)
    assert scoring.accuracy(predictions, gold) == pytest.approx(
        metrics.accuracy_score(gold, predictions), abs=1e-15)
    assert scoring.matthews_corrcoef(predictions, gold) == pytest.approx(
        expected_mcc, abs=1e-12)


def test_binary_f1_matches_sklearn():
  rng = np.random.default_rng(0)
  for _ in range(NUM_TRIALS):
    predictions, gold = _random_labels(rng, 2)
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      expected = metrics.f1_score(gold, predictions, zero_division=0.0)
    assert scoring.binary_f1(predictions, gold) == pytest.approx(expected,
                                                                 abs=1e-12)


@pytest.mark.parametrize("predictions, gold", [
    ([0, 0, 0], [0, 0, 0]),  # no positive anywhere
    ([1, 1, 1], [1, 1, 1]),  # constant and right
    ([1, 1, 1], [0, 0, 0]),  # constant and wrong
    ([0, 1, 0, 1], [1, 0, 1, 0]),  # all wrong
    ([1], [1]),
    ([0], [1]),
    ([1, 0, 1, 1, 0], [1, 0, 0, 1, 1]),
])
def test_classification_edge_cases_match_sklearn(predictions, gold):
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    expected_f1 = metrics.f1_score(gold, predictions, zero_division=0.0)
    expected_mcc = metrics.matthews_corrcoef(gold, predictions)
  assert scoring.accuracy(predictions, gold) == metrics.accuracy_score(
      gold, predictions)
  assert scoring.binary_f1(predictions, gold) == pytest.approx(expected_f1)
  assert scoring.matthews_corrcoef(predictions, gold) == pytest.approx(
      expected_mcc)


def test_string_labels_work_for_mcc():
  predictions = ["a", "b", "b", "c"]
  gold = ["a", "b", "c", "c"]
  assert scoring.matthews_corrcoef(predictions, gold) == pytest.approx(
      metrics.matthews_corrcoef(gold, predictions))


def test_correlations_match_scipy_on_continuous_values():
  rng = np.random.default_rng(1)
  for _ in range(NUM_TRIALS):
    size = rng.integers(3, 50)
    gold = rng.uniform(0, 5, size)
    predictions = gold * rng.uniform(-1, 1) + rng.normal(0, 1, size)
    assert scoring.pearson(predictions, gold) == pytest.approx(
        stats.pearsonr(predictions, gold)[0], abs=1e-12)
    assert scoring.spearman(predictions, gold) == pytest.approx(
        stats.spearmanr(predictions, gold)[0], abs=1e-12)


def test_spearman_matches_scipy_with_ties():
  rng = np.random.default_rng(2)
  for _ in range(NUM_TRIALS):
    size = rng.integers(3, 40)
    # Few distinct values: many ties on both sides.
    gold = rng.integers(0, 4, size) * 1.25
    predictions = rng.integers(0, 3, size).astype(float)
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      expected_spearman = stats.spearmanr(predictions, gold)[0]
      expected_pearson = stats.pearsonr(predictions, gold)[0]
    for ours, expected in ((scoring.spearman(predictions, gold),
                            expected_spearman),
                           (scoring.pearson(predictions, gold),
                            expected_pearson)):
      if math.isnan(expected):
        assert math.isnan(ours)
      else:
        assert ours == pytest.approx(expected, abs=1e-12)


def test_average_ranks_match_scipy():
  values = [3.0, 1.0, 3.0, 2.0, 3.0, 1.0]
  np.testing.assert_array_equal(scoring.average_ranks(values),
                                stats.rankdata(values))
  np.testing.assert_array_equal(scoring.average_ranks(values),
                                [5, 1.5, 5, 3, 5, 1.5])


def test_correlation_edge_cases():
  assert math.isnan(scoring.pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
  assert math.isnan(scoring.spearman([1.0, 2.0, 3.0], [2.0, 2.0, 2.0]))
  assert scoring.pearson([1.0, 2.0], [5.0, 3.0]) == -1.0
  assert scoring.spearman([1.0, 2.0, 3.0], [1.0, 4.0, 9.0]) == 1.0
  # Large values: no overflow in the norms.
  big = [1e200, -1e200, 3e199, 0.0]
  assert scoring.pearson(big, [2.0, -2.0, 0.6, 0.0]) == pytest.approx(1.0)
  with pytest.raises(ValueError):
    scoring.pearson([1.0], [1.0])
  with pytest.raises(ValueError):
    scoring.accuracy([1, 0], [1])


@pytest.mark.parametrize("num_classes", [1, 2, 3, 5])
def test_macro_and_micro_f1_match_sklearn(num_classes):
  rng = np.random.default_rng(num_classes)
  for _ in range(50):
    size = int(rng.integers(1, 40))
    predictions = rng.integers(0, num_classes, size)
    gold = rng.integers(0, num_classes, size)
    assert scoring.macro_f1(predictions, gold) == pytest.approx(
        metrics.f1_score(gold, predictions, average="macro", zero_division=0))
    assert scoring.micro_f1(predictions, gold) == pytest.approx(
        metrics.f1_score(gold, predictions, average="micro", zero_division=0))


def test_sentence_metrics_registry_names_the_functions():
  assert scoring.SENTENCE_METRICS["mcc"] is scoring.matthews_corrcoef
  assert set(scoring.SENTENCE_METRICS) == {
      "accuracy", "f1", "macro_f1", "micro_f1", "mcc", "pearson", "spearman"}
  assert scoring.sentence_scores(("accuracy", "f1"), [1, 0, 1], [1, 1, 1]) == {
      "accuracy": pytest.approx(2 / 3), "f1": pytest.approx(0.8)}


@pytest.mark.parametrize("tags, expected", [
    ([], []),
    (["O", "O"], []),
    (["B-NP", "I-NP", "B-VP", "O", "B-NP"],
     [(0, 1, "NP"), (2, 2, "VP"), (4, 4, "NP")]),
    (["S-NP", "B-VP", "E-VP", "O"], [(0, 0, "NP"), (1, 2, "VP")]),
    (["B-NP", "B-NP"], [(0, 0, "NP"), (1, 1, "NP")]),
    # The original's reading: a span may start with I after O ...
    (["O", "I-NP", "I-NP"], [(1, 2, "NP")]),
    # ... E does not close a span, and the last tag's type names it.
    (["B-NP", "E-NP", "I-VP"], [(0, 2, "VP")]),
])
def test_spans_follow_the_original_reading(tags, expected):
  assert tag_spans.spans(tags) == expected


def test_bio_bioes_round_trip():
  bio = ["B-NP", "I-NP", "I-NP", "B-VP", "O", "B-PP", "B-NP", "I-NP"]
  bioes = tag_spans.convert(bio, "BIOES")
  assert bioes == ["B-NP", "I-NP", "E-NP", "S-VP", "O", "S-PP", "B-NP",
                   "E-NP"]
  assert tag_spans.convert(bioes, "BIO") == bio


def test_malformed_tag_raises():
  with pytest.raises(errors.DataError, match="NP_B"):
    tag_spans.spans(["NP_B"])


def test_chunk_f1_hand_computed():
  gold = [["B-NP", "I-NP", "B-VP", "B-NP"],  # NP(0,1) VP(2) NP(3)
          ["B-PP", "B-NP", "I-NP", "O"]]  # PP(0) NP(1,2)
  predicted = [["B-NP", "I-NP", "B-VP", "I-VP"],  # NP ok, VP(2,3) wrong
               ["B-PP", "B-NP", "O", "O"]]  # PP ok, NP(1,1) wrong
  # correct 2 (NP(0,1), PP(0)); predicted 4; gold 5.
  result = scoring.chunk_f1(predicted, gold)
  assert result["precision"] == pytest.approx(2 / 4)
  assert result["recall"] == pytest.approx(2 / 5)
  assert result["f1"] == pytest.approx(2 * 0.5 * 0.4 / 0.9)


def test_chunk_f1_is_encoding_independent_and_handles_edges():
  gold = [["B-NP", "I-NP", "B-VP"]]
  bioes = [["B-NP", "E-NP", "S-VP"]]
  assert scoring.chunk_f1(bioes, gold)["f1"] == 1.0
  assert scoring.chunk_f1([["O", "O", "O"]], gold) == {
      "precision": 0.0, "recall": 0.0, "f1": 0.0}
  with pytest.raises(ValueError):
    scoring.chunk_f1([["O"]], gold)
