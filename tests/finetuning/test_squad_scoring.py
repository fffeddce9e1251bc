"""SQuAD EM/F1 against an independent transcription of the official rules."""

import collections
import random
import re
import string

import pytest

from electra_tf import errors
from electra_tf.finetuning.qa import squad_scoring

NUM_TRIALS = 200
WORD_POOL = ["the", "The", "a", "an", "An", "cat", "Cat", "dog", "theatre",
             "anna", "café", "Café", "naïve", "1,000", "U.S.", "—", "(big)",
             "red!", "'s", "a.", "über", "東京", "", "  ", "\t", "cat's"]


# --- Reference: the official definitions, written out independently. ---

def ref_normalize(text):
  lowered = text.lower()
  no_punctuation = "".join(
      c for c in lowered if c not in set(string.punctuation))
  no_articles = re.sub(r"\b(a|an|the)\b", " ", no_punctuation)
  return " ".join(no_articles.split())


def ref_exact(gold, prediction):
  return 1 if ref_normalize(gold) == ref_normalize(prediction) else 0


def ref_f1(gold, prediction, v2):
  gold_tokens = ref_normalize(gold).split()
  predicted_tokens = ref_normalize(prediction).split()
  if v2 and (not gold_tokens or not predicted_tokens):
    return 1.0 if gold_tokens == predicted_tokens else 0.0
  overlap = sum((collections.Counter(gold_tokens) &
                 collections.Counter(predicted_tokens)).values())
  if overlap == 0:
    return 0.0
  precision = overlap / len(predicted_tokens)
  recall = overlap / len(gold_tokens)
  return 2 * precision * recall / (precision + recall)


def ref_evaluate_v2(questions, predictions, odds, threshold, with_odds):
  """questions: [(id, [gold texts])]; as the official v2.0 `main`."""
  answerable = {q: bool(golds) for q, golds in questions}
  exact_raw, f1_raw = {}, {}
  for q, golds in questions:
    kept = [g for g in golds if ref_normalize(g)] or [""]
    exact_raw[q] = max(ref_exact(g, predictions[q]) for g in kept)
    f1_raw[q] = max(ref_f1(g, predictions[q], True) for g in kept)
  na = odds if with_odds else {q: 0.0 for q in predictions}
  apply = lambda raw: {q: (float(not answerable[q]) if na[q] > threshold
                           else s) for q, s in raw.items()}
  exact, f1 = apply(exact_raw), apply(f1_raw)
  out = {}

  def add(prefix, ids):
    if ids:
      out[prefix + "exact"] = 100.0 * sum(exact[q] for q in ids) / len(ids)
      out[prefix + "f1"] = 100.0 * sum(f1[q] for q in ids) / len(ids)
      out[prefix + "total"] = len(ids)

  add("", list(exact))
  add("HasAns_", [q for q in answerable if answerable[q]])
  add("NoAns_", [q for q in answerable if not answerable[q]])
  if with_odds:
    for name, raw in (("exact", exact_raw), ("f1", f1_raw)):
      score = best = sum(not a for a in answerable.values())
      best_threshold = 0.0
      for q in sorted(na, key=lambda k: na[k]):
        if answerable[q]:
          score += raw[q]
        else:
          score += -1 if predictions[q] else 0
        if score > best:
          best, best_threshold = score, na[q]
      out["best_" + name] = 100.0 * best / len(raw)
      out["best_" + name + "_thresh"] = best_threshold
  return out


def as_dataset(questions):
  return [{"paragraphs": [{"context": "", "qas": [
      {"id": q, "answers": [{"text": g, "answer_start": 0} for g in golds]}
      for q, golds in questions]}]}]


def random_text(rng):
  return " ".join(rng.choice(WORD_POOL) for _ in range(rng.randint(0, 5)))


# --- Tests. ---

@pytest.mark.parametrize("prediction, gold, exact, f1", [
    ("", "", 1, 1.0),
    ("the", "", 1, 1.0),  # only an article: normalizes to empty
    ("A cat", "cat", 1, 1.0),
    ("Cat!", "cat", 1, 1.0),
    ("  the   big \n cat ", "big cat", 1, 1.0),
    ("Café", "café", 1, 1.0),
    ("naïve", "naive", 0, 0.0),  # accents are kept
    ("theatre", "atre", 0, 0.0),  # articles only as whole words
    ("big red cat", "red cat dog", 0, 2 / 3),
    ("cat cat", "cat", 0, 2 / 3),  # counted overlap
    ("x", "", 0, 0.0),  # a no-answer question answered
    ("", "x", 0, 0.0),  # an answer withheld
    ("1,000 U.S.", "1000 us", 1, 1.0),
    ("東京", "東京", 1, 1.0),
    ("—", "", 0, 0.0),  # unicode dash is not ASCII punctuation
])
def test_exact_and_f1_edge_cases(prediction, gold, exact, f1):
  assert squad_scoring.exact_match(prediction, gold) == exact
  assert squad_scoring.token_f1(prediction, gold) == pytest.approx(f1)
  assert ref_f1(gold, prediction, True) == pytest.approx(f1)


def test_exact_and_f1_match_reference_on_random_text():
  rng = random.Random(0)
  for _ in range(NUM_TRIALS * 5):
    prediction, gold = random_text(rng), random_text(rng)
    assert squad_scoring.normalize_answer(prediction) == ref_normalize(
        prediction)
    assert squad_scoring.exact_match(prediction, gold) == ref_exact(
        gold, prediction)
    assert squad_scoring.token_f1(prediction, gold) == pytest.approx(
        ref_f1(gold, prediction, True))


def test_v1_matches_reference_and_scores_missing_as_zero():
  rng = random.Random(1)
  for _ in range(NUM_TRIALS):
    questions = [(f"q{i}", [random_text(rng) or "cat"
                            for _ in range(rng.randint(1, 3))])
                 for i in range(rng.randint(1, 12))]
    predictions = {q: random_text(rng) for q, _ in questions
                   if rng.random() < 0.9}
    exact = sum(max(ref_exact(g, predictions[q]) for g in golds)
                for q, golds in questions if q in predictions)
    f1 = sum(max(ref_f1(g, predictions[q], False) for g in golds)
             for q, golds in questions if q in predictions)
    scores = squad_scoring.evaluate_v1(as_dataset(questions), predictions)
    assert scores["exact_match"] == pytest.approx(100 * exact / len(questions))
    assert scores["f1"] == pytest.approx(100 * f1 / len(questions))


def test_v1_treats_empty_against_empty_as_zero_f1():
  scores = squad_scoring.evaluate_v1(as_dataset([("q", ["the"])]), {"q": ""})
  assert scores == {"exact_match": 100.0, "f1": 0.0}


@pytest.mark.parametrize("with_odds", [False, True])
def test_v2_matches_reference_on_random_data(with_odds):
  rng = random.Random(2 + with_odds)
  for _ in range(NUM_TRIALS):
    questions = [(f"q{i}", [] if rng.random() < 0.4 else
                  [random_text(rng) for _ in range(rng.randint(1, 3))])
                 for i in range(rng.randint(1, 15))]
    predictions = {q: "" if rng.random() < 0.3 else random_text(rng)
                   for q, _ in questions}
    # Few distinct odds values: ties are common.
    odds = {q: rng.choice([-3.0, -1.0, 0.0, 0.5, 2.0]) for q, _ in questions}
    threshold = rng.choice([-2.75, 0.0, 1.0])
    expected = ref_evaluate_v2(questions, predictions, odds, threshold,
                               with_odds)
    scores = squad_scoring.evaluate_v2(
        as_dataset(questions), predictions, odds if with_odds else None,
        threshold)
    assert scores.keys() == expected.keys()
    for key, value in expected.items():
      assert scores[key] == pytest.approx(value), key


def test_v2_hand_computed_breakdown():
  questions = [("has1", ["the cat"]), ("has2", ["red dog"]), ("no1", []),
               ("no2", [])]
  predictions = {"has1": "cat", "has2": "dog", "no1": "", "no2": "cat"}
  odds = {"has1": -5.0, "has2": 2.0, "no1": 3.0, "no2": 0.5}
  scores = squad_scoring.evaluate_v2(as_dataset(questions), predictions, odds,
                                     na_prob_thresh=1.0)
  # has2 and no1 abstain (odds > 1): has1 EM 1, has2 0, no1 1, no2 0.
  assert scores["exact"] == 50.0
  assert scores["HasAns_exact"] == 50.0 and scores["HasAns_total"] == 2
  assert scores["NoAns_exact"] == 50.0 and scores["NoAns_f1"] == 50.0
  # Unthresholded has2 F1 is 2/3; abstaining scores 0 for it.
  assert scores["f1"] == pytest.approx(50.0)
  # Answering only has1 (threshold -5) abstains on no2 as well: 3 of 4.
  assert scores["best_exact"] == 75.0
  assert scores["best_exact_thresh"] == -5.0
  # Also answering no2 (-1), then has2 (+2/3) does not beat 3 of 4.
  assert scores["best_f1"] == 75.0


def test_v2_missing_prediction_or_odds_raise():
  dataset = as_dataset([("a", ["x"]), ("b", [])])
  with pytest.raises(errors.DataError, match="'b'"):
    squad_scoring.evaluate_v2(dataset, {"a": "x"})
  with pytest.raises(errors.DataError, match="null odds"):
    squad_scoring.evaluate_v2(dataset, {"a": "x", "b": ""}, {"a": 0.0})
