"""SQuAD exact match and F1, as the official v1.1 and v2.0 scripts.

Answers are compared after normalization (lowercase, punctuation and the
articles a/an/the removed, whitespace collapsed); F1 is over the normalized
tokens. Scores are percentages, keyed as the official scripts' outputs.
"""

import collections
import re
import string

from absl import logging

from electra_tf import errors

PUNCTUATION = frozenset(string.punctuation)
ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
# The official v2.0 script's default: null odds above it mean "no answer".
OFFICIAL_NA_PROB_THRESHOLD = 1.0
PERCENT = 100.0


def normalize_answer(text):
  """Lowercase; drop punctuation and articles; single spaces."""
  text = "".join(char for char in text.lower() if char not in PUNCTUATION)
  return " ".join(ARTICLES.sub(" ", text).split())


def answer_tokens(text):
  return normalize_answer(text).split()


def exact_match(prediction, gold):
  """1 if the normalized answers are equal, else 0."""
  return int(normalize_answer(prediction) == normalize_answer(gold))


def _overlap_f1(predicted_tokens, gold_tokens):
  common = collections.Counter(predicted_tokens) & collections.Counter(
      gold_tokens)
  num_same = sum(common.values())
  if num_same == 0:
    return 0.0
  precision = num_same / len(predicted_tokens)
  recall = num_same / len(gold_tokens)
  return 2 * precision * recall / (precision + recall)


def token_f1(prediction, gold):
  """v2.0 token F1: if either side is empty, 1 when both are, else 0."""
  predicted_tokens, gold_tokens = answer_tokens(prediction), answer_tokens(gold)
  if not predicted_tokens or not gold_tokens:
    return float(predicted_tokens == gold_tokens)
  return _overlap_f1(predicted_tokens, gold_tokens)


def best_over_golds(prediction, golds):
  """(exact match, F1) of `prediction`, each the best over the `golds`, as
  the official v1.1 script (an empty answer has F1 0, even against "")."""
  predicted_tokens = answer_tokens(prediction)
  return (max(exact_match(prediction, gold) for gold in golds),
          max(_overlap_f1(predicted_tokens, answer_tokens(gold))
              for gold in golds))


def _questions(dataset):
  for article in dataset:
    for paragraph in article["paragraphs"]:
      yield from paragraph["qas"]


def evaluate_v1(dataset, predictions):
  """Official v1.1 scores; a question without prediction scores 0.

  Args:
    dataset: the `data` list of a SQuAD 1.1 JSON file.
    predictions: question id -> answer text.

  Returns:
    Dict of `exact_match` and `f1` (percentages).
  """
  exact = f1 = total = 0.0
  for qa in _questions(dataset):
    total += 1
    if qa["id"] not in predictions:
      logging.warning("Unanswered question %s will receive score 0.",
                      qa["id"])
      continue
    golds = [answer["text"] for answer in qa["answers"]]
    if not golds:
      raise errors.DataError(f"question {qa['id']} has no answers; score "
                             "SQuAD 2.0 data with evaluate_v2")
    question_exact, question_f1 = best_over_golds(predictions[qa["id"]],
                                                  golds)
    exact += question_exact
    f1 += question_f1
  return {"exact_match": PERCENT * exact / total, "f1": PERCENT * f1 / total}


def _mean_scores(exact, f1, qas_ids):
  total = len(qas_ids)
  return {"exact": PERCENT * sum(exact[q] for q in qas_ids) / total,
          "f1": PERCENT * sum(f1[q] for q in qas_ids) / total,
          "total": total}


def best_threshold(predictions, scores, null_odds, has_answer):
  """(best score %, threshold) over null-odds thresholds, as the official.

  Questions are taken in order of increasing null odds; answering all of
  them up to a threshold (and abstaining on the rest) scores `scores` on
  answerable questions, and 1 / 0 / -1 for an unanswerable one abstained /
  answered with "" / answered with text.
  """
  best = current = sum(1 for answerable in has_answer.values()
                       if not answerable)
  threshold = 0.0
  for qas_id in sorted(null_odds, key=lambda q: null_odds[q]):
    if qas_id not in scores:
      continue
    if has_answer[qas_id]:
      current += scores[qas_id]
    elif predictions[qas_id]:
      current -= 1
    if current > best:
      best, threshold = current, null_odds[qas_id]
  return PERCENT * best / len(scores), threshold


def evaluate_v2(dataset, predictions, null_odds=None,
                na_prob_thresh=OFFICIAL_NA_PROB_THRESHOLD):
  """Official v2.0 scores, with the HasAns/NoAns breakdown.

  Args:
    dataset: the `data` list of a SQuAD 2.0 JSON file.
    predictions: question id -> answer text ("" for no answer).
    null_odds: question id -> null odds; None scores every prediction as
      given. With it, questions whose odds exceed `na_prob_thresh` count as
      predicted unanswerable, and the best thresholds are searched.
    na_prob_thresh: see `null_odds` (the ELECTRA recipe passes
      `squad_postprocessing.ELECTRA_NULL_ODDS_THRESHOLD`).

  Returns:
    Dict of `exact`, `f1`, `total`, `HasAns_*`, `NoAns_*` and, with
    `null_odds`, `best_exact`, `best_exact_thresh`, `best_f1`,
    `best_f1_thresh`.
  """
  questions = list(_questions(dataset))
  missing = [qa["id"] for qa in questions if qa["id"] not in predictions]
  if missing:
    raise errors.DataError(f"{len(missing)} questions lack a prediction, "
                           f"e.g. {missing[:3]}")
  has_answer = {qa["id"]: bool(qa["answers"]) for qa in questions}
  raw_exact, raw_f1 = {}, {}
  for qa in questions:
    golds = [answer["text"] for answer in qa["answers"]
             if normalize_answer(answer["text"])] or [""]
    prediction = predictions[qa["id"]]
    raw_exact[qa["id"]] = max(exact_match(prediction, g) for g in golds)
    raw_f1[qa["id"]] = max(token_f1(prediction, g) for g in golds)
  odds = null_odds if null_odds is not None else dict.fromkeys(predictions,
                                                                0.0)
  absent = [q for q in has_answer if q not in odds]
  if absent:
    raise errors.DataError(f"{len(absent)} questions lack null odds, e.g. "
                           f"{absent[:3]}")

  def thresholded(raw):
    return {q: float(not has_answer[q]) if odds[q] > na_prob_thresh else s
            for q, s in raw.items()}

  exact, f1 = thresholded(raw_exact), thresholded(raw_f1)
  scores = _mean_scores(exact, f1, list(exact))
  for prefix, wanted in (("HasAns", True), ("NoAns", False)):
    qas_ids = [q for q, answerable in has_answer.items()
               if answerable == wanted]
    if qas_ids:
      for key, value in _mean_scores(exact, f1, qas_ids).items():
        scores[f"{prefix}_{key}"] = value
  if null_odds is not None:
    for name, raw in (("exact", raw_exact), ("f1", raw_f1)):
      best, threshold = best_threshold(predictions, raw, null_odds, has_answer)
      scores[f"best_{name}"] = best
      scores[f"best_{name}_thresh"] = threshold
  return scores
