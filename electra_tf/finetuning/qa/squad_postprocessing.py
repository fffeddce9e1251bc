"""SQuAD decoding: model outputs -> answer texts and null odds, as the original.

For each question the candidate spans of all its windows are ranked by
start + end score (n-best), mapped back to the context text, and the best
non-empty one is the prediction. For SQuAD 2.0 the question's null odds are
the lowest answerable logit over its windows (with the answerable
classifier), or else the lowest `start_logits[0] + end_logits[0]` minus the
best span's score; the question is predicted unanswerable when its null odds
exceed a threshold (`apply_null_threshold`).
"""

import dataclasses
import json
import os

import numpy as np
import tensorflow as tf

from electra_tf import errors
from electra_tf.finetuning.qa import squad_features
from electra_tf.finetuning import tasks

# The original's threshold on the null odds when writing SQuAD 2.0 answers.
ELECTRA_NULL_ODDS_THRESHOLD = -2.75
# Larger than any null score: the running minimum starts here.
NULL_SCORE_START = 1e6
# Prediction when no span is valid (the original's nonce).
NO_VALID_SPAN_TEXT = "empty"
WORDPIECE_PREFIX = "##"


@dataclasses.dataclass(frozen=True)
class DecodingSettings:
  """The original's decoding options (defaults as its FinetuningConfig)."""
  v2: bool = True
  n_best_size: int = 20
  max_answer_length: int = 30
  joint_prediction: bool = True
  answerable_classifier: bool = True


@dataclasses.dataclass(frozen=True)
class RawResult:
  """The model's outputs for one window (NumPy, shapes for L tokens, beam K).

  With `joint_prediction` the `*_top_*` fields are read; otherwise the
  logits. `answerable_logit` is read with the answerable classifier.
  """
  start_logits: np.ndarray = None  # [L]
  end_logits: np.ndarray = None  # [L]
  answerable_logit: float = 0.0
  start_top_log_probs: np.ndarray = None  # [K]
  start_top_index: np.ndarray = None  # [K]
  end_top_log_probs: np.ndarray = None  # [K, K]
  end_top_index: np.ndarray = None  # [K, K]


@dataclasses.dataclass
class SquadPredictions:
  """Decoded answers by question id (`null_odds` for SQuAD 2.0 only)."""
  predictions: dict
  null_odds: dict
  nbest: dict  # id -> [{"text", "probability", "start_logit", "end_logit"}]


def best_indexes(logits, n_best_size):
  """Indices of the `n_best_size` largest logits (ties: lower index first)."""
  ranked = sorted(range(len(logits)), key=lambda i: logits[i], reverse=True)
  return ranked[:n_best_size]


def softmax(scores):
  scores = np.asarray(scores, np.float64)
  exp_scores = np.exp(scores - scores.max())
  return exp_scores / exp_scores.sum()


def final_text(pred_text, orig_text, basic_tokenize):
  """The part of `orig_text` (context words) that `pred_text` covers.

  `pred_text` is normalized (e.g. lowercased) by tokenization; it is located
  in the basic tokenization of `orig_text` and mapped back character by
  character, ignoring spaces. If this fails, `orig_text` is returned.
  """
  tokenized = " ".join(basic_tokenize(orig_text))
  start = tokenized.find(pred_text)
  if start == -1:
    return orig_text
  end = start + len(pred_text) - 1
  orig_chars = [i for i, char in enumerate(orig_text) if char != " "]
  tokenized_chars = [i for i, char in enumerate(tokenized) if char != " "]
  if len(orig_chars) != len(tokenized_chars):
    return orig_text
  tokenized_to_stripped = {index: i for i, index in enumerate(tokenized_chars)}
  if start not in tokenized_to_stripped or end not in tokenized_to_stripped:
    return orig_text
  return orig_text[orig_chars[tokenized_to_stripped[start]]:
                   orig_chars[tokenized_to_stripped[end]] + 1]


def _candidates(result, settings):
  """(start, end, start score, end score) pairs a window proposes."""
  if settings.joint_prediction:
    for i, start in enumerate(result.start_top_index):
      for j, end in enumerate(result.end_top_index[i]):
        yield (int(start), int(end), float(result.start_top_log_probs[i]),
               float(result.end_top_log_probs[i, j]))
  else:
    for start in best_indexes(result.start_logits, settings.n_best_size):
      for end in best_indexes(result.end_logits, settings.n_best_size):
        yield (start, end, float(result.start_logits[start]),
               float(result.end_logits[end]))


def _is_valid(span_feature, start, end, max_answer_length):
  """Whether [start, end] is an answer span the window may propose."""
  return (0 < start <= end < len(span_feature.tokens) and
          start in span_feature.token_to_orig_map and
          end in span_feature.token_to_orig_map and
          span_feature.token_is_max_context.get(start, False) and
          end - start + 1 <= max_answer_length)


def _span_text(example, span_feature, start, end, basic_tokenize):
  """Context text of a window's sub-token span."""
  pred_text = " ".join(span_feature.tokens[start:end + 1])
  pred_text = pred_text.replace(" " + WORDPIECE_PREFIX, "")
  pred_text = " ".join(pred_text.replace(WORDPIECE_PREFIX, "").split())
  words = example.doc_tokens[span_feature.token_to_orig_map[start]:
                             span_feature.token_to_orig_map[end] + 1]
  return final_text(pred_text, " ".join(words), basic_tokenize)


def _null_score(result, settings):
  if settings.answerable_classifier:
    return float(result.answerable_logit)
  return float(result.start_logits[0] + result.end_logits[0])


def decode_example(example, span_features, results, settings, basic_tokenize):
  """(n-best entries, null score) of one question.

  Args:
    example: a `squad.QAExample`.
    span_features: its `squad_features.SpanFeature`s.
    results: feature id (`EXAMPLE_ID`) -> `RawResult`.
    settings: `DecodingSettings`.
    basic_tokenize: the basic (pre-WordPiece) tokenizer's `tokenize`.
  """
  score_null = NULL_SCORE_START
  spans = []  # (score sum, start score, end score, feature, start, end)
  for span_feature in span_features:
    feature_id = span_feature.features[tasks.EXAMPLE_ID]
    if feature_id not in results:
      raise errors.DataError(f"no model output for feature {feature_id} of "
                             f"question {example.qas_id}")
    result = results[feature_id]
    if settings.v2:
      score_null = min(score_null, _null_score(result, settings))
    for start, end, start_score, end_score in _candidates(result, settings):
      if _is_valid(span_feature, start, end, settings.max_answer_length):
        spans.append((start_score + end_score, start_score, end_score,
                      span_feature, start, end))
  spans.sort(key=lambda span: span[0], reverse=True)  # stable, as the original
  nbest, seen = [], set()
  for _, start_score, end_score, span_feature, start, end in spans:
    if len(nbest) >= settings.n_best_size:
      break
    text = _span_text(example, span_feature, start, end, basic_tokenize)
    if text not in seen:
      seen.add(text)
      nbest.append({"text": text, "start_logit": start_score,
                    "end_logit": end_score})
  if not nbest:
    nbest.append({"text": NO_VALID_SPAN_TEXT, "start_logit": 0.0,
                  "end_logit": 0.0})
  probabilities = softmax([e["start_logit"] + e["end_logit"] for e in nbest])
  for entry, probability in zip(nbest, probabilities):
    entry["probability"] = float(probability)
  return nbest, score_null


def decode_predictions(examples, tokenizer, data_settings, results,
                       settings=DecodingSettings(), basic_tokenize=None):
  """Answers (and SQuAD 2.0 null odds) of all `examples`.

  Args:
    examples: `squad.QAExample`s of the evaluated split.
    tokenizer: the tokenizer used for featurization (re-run here, as the
      original, to recover each window's tokens and maps).
    data_settings: the `DataSettings` used for featurization.
    results: feature id -> `RawResult`, for every window.
    settings: `DecodingSettings`.
    basic_tokenize: the basic (pre-WordPiece) tokenization, to map answers
      back to the context text; defaults to
      `tokenizer.basic_tokenizer.tokenize` (`tokenization.FullTokenizer`).

  Returns:
    `SquadPredictions`.
  """
  if basic_tokenize is None:
    basic_tokenize = tokenizer.basic_tokenizer.tokenize
  decoded = SquadPredictions({}, {}, {})
  for example in examples:
    span_features = squad_features.featurize_spans(
        example, tokenizer, data_settings, is_training=False)
    nbest, score_null = decode_example(example, span_features, results,
                                       settings, basic_tokenize)
    decoded.nbest[example.qas_id] = nbest
    if not settings.v2:
      decoded.predictions[example.qas_id] = nbest[0]["text"]
      continue
    best = next((entry for entry in nbest if entry["text"]), nbest[0])
    decoded.predictions[example.qas_id] = best["text"]
    decoded.null_odds[example.qas_id] = (
        score_null if settings.answerable_classifier
        else score_null - best["start_logit"] - best["end_logit"])
  return decoded


def apply_null_threshold(predictions, null_odds,
                         threshold=ELECTRA_NULL_ODDS_THRESHOLD):
  """Predictions with "" for questions whose null odds exceed `threshold`."""
  return {qas_id: "" if null_odds[qas_id] > threshold else text
          for qas_id, text in predictions.items()}


def write_prediction_files(decoded, directory, task_name):
  """Writes `<task>_preds.json` and, for 2.0, `<task>_null_odds.json`."""
  tf.io.gfile.makedirs(directory)
  outputs = {"preds": decoded.predictions}
  if decoded.null_odds:
    outputs["null_odds"] = decoded.null_odds
  paths = {}
  for kind, values in outputs.items():
    paths[kind] = os.path.join(directory, f"{task_name}_{kind}.json")
    with tf.io.gfile.GFile(paths[kind], "w") as f:
      json.dump(values, f)
  return paths
