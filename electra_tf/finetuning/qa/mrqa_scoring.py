"""MRQA 2019 shared task scores, as its official script is run by ELECTRA.

Exact match and F1 are SQuAD 1.1's (`squad_scoring`: the same answer
normalization, each the best over a question's gold answers, averaged as
percentages). Two things differ from `squad_scoring.evaluate_v1`:

  * the gold answers are each question's `answers` strings, keyed by `qid`
    (`mrqa.gold_answers`), not the `detected_answers` training reads;
  * a question without a prediction is left out of the average instead of
    scoring 0 (the original passes `skip_no_answer=True`).
"""

from absl import logging

from electra_tf import errors
from electra_tf.finetuning.qa import squad_scoring

METRIC_NAMES = ("exact_match", "f1")


def evaluate(golds, predictions):
  """Official MRQA scores of `predictions`.

  Args:
    golds: question id -> list of gold answer texts.
    predictions: question id -> predicted answer text.

  Returns:
    Dict of `exact_match` and `f1`, percentages over the questions of
    `golds` that have a prediction.

  >>> scores = evaluate({"q1": ["the Seine", "Loire"], "q2": ["Paris"],
  ...                    "q3": ["Lyon"]}, {"q1": "Seine", "q2": "in Paris"})
  >>> {name: round(value, 2) for name, value in scores.items()}
  {'exact_match': 50.0, 'f1': 83.33}
  """
  scored = [qid for qid in golds if qid in predictions]
  if not scored:
    raise errors.DataError(f"none of the {len(golds)} questions has a "
                           "prediction")
  if len(scored) < len(golds):
    logging.warning("%d of %d questions have no prediction and are left out "
                    "of the MRQA scores", len(golds) - len(scored), len(golds))
  exact = f1 = 0.0
  for qid in scored:
    if not golds[qid]:
      raise errors.DataError(f"question {qid} has no gold answers")
    question_exact, question_f1 = squad_scoring.best_over_golds(
        predictions[qid], golds[qid])
    exact += question_exact
    f1 += question_f1
  return {"exact_match": squad_scoring.PERCENT * exact / len(scored),
          "f1": squad_scoring.PERCENT * f1 / len(scored)}
