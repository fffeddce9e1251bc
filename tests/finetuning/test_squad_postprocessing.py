"""SQuAD n-best decoding on crafted logits, null odds, final text."""

import json
import os

import numpy as np
import pytest

from electra_tf import errors
from electra_tf.finetuning.qa import squad
from electra_tf.finetuning.qa import squad_features
from electra_tf.finetuning.qa import squad_postprocessing as post
from electra_tf.finetuning import tasks
from tests.finetuning import conftest

CONTEXT = "The leader was John Smith (1895-1943)."
QUESTION = "When was John Smith born?"
# [CLS] when was john smith born ? [SEP] = 8 tokens before the context:
# the(8) leader(9) was(10) john(11) smith(12) ((13) 1895(14) -(15) 1943(16)
# )(17) .(18) [SEP](19)
SEQ_LENGTH = 24
LOW = -10.0
INDEPENDENT = post.DecodingSettings(v2=False, joint_prediction=False,
                                    answerable_classifier=False)


def make_example(qas_id="q0", eid=0):
  words, _ = squad.split_words(CONTEXT)
  return squad.QAExample(eid=eid, qas_id=qas_id, question_text=QUESTION,
                         doc_tokens=tuple(words))


def logits(**scores):
  """[SEQ_LENGTH] logits, LOW except at `p<position>=score`."""
  values = np.full(SEQ_LENGTH, LOW, np.float32)
  for key, score in scores.items():
    values[int(key[1:])] = score
  return values


def decode(examples, results, settings, tokenizer, data_settings=None):
  data_settings = data_settings or tasks.DataSettings(
      max_seq_length=SEQ_LENGTH)
  return post.decode_predictions(examples, tokenizer, data_settings, results,
                                 settings)


def test_best_span_is_mapped_back_to_the_original_text(tokenizer):
  results = {0: post.RawResult(start_logits=logits(p11=5.0, p14=4.0),
                               end_logits=logits(p12=5.0, p14=1.0))}
  decoded = decode([make_example()], results, INDEPENDENT, tokenizer)
  # "john smith" -> the context's casing.
  assert decoded.predictions == {"q0": "John Smith"}
  assert not decoded.null_odds
  nbest = decoded.nbest["q0"]
  assert nbest[0] == pytest.approx({"text": "John Smith", "start_logit": 5.0,
                                    "end_logit": 5.0,
                                    "probability": nbest[0]["probability"]})
  assert sum(e["probability"] for e in nbest) == pytest.approx(1.0)
  # Spans are ranked by start + end; texts are unique.
  totals = [e["start_logit"] + e["end_logit"] for e in nbest]
  assert totals == sorted(totals, reverse=True)
  assert len({e["text"] for e in nbest}) == len(nbest)


def test_sub_word_answer_is_cut_out_of_its_word(tokenizer):
  results = {0: post.RawResult(start_logits=logits(p14=3.0),
                               end_logits=logits(p14=3.0))}
  decoded = decode([make_example()], results, INDEPENDENT, tokenizer)
  assert decoded.predictions["q0"] == "1895"  # not "(1895-1943)."


def test_invalid_spans_are_never_predicted(tokenizer):
  # Best scores: [CLS], the question, padding, end before start, too long.
  results = {0: post.RawResult(
      start_logits=logits(p0=9.0, p2=8.0, p22=8.0, p12=7.0, p8=6.0, p9=1.0),
      end_logits=logits(p0=9.0, p3=8.0, p23=8.0, p11=7.0, p18=6.0, p10=0.5))}
  settings = post.DecodingSettings(v2=False, joint_prediction=False,
                                   answerable_classifier=False,
                                   max_answer_length=3)
  decoded = decode([make_example()], results, settings, tokenizer)
  # Valid and at most 3 long: 9..11 (1 + 7) beats 8..10 (6 + 0.5); 12..11
  # (7 + 7) ends before it starts, 8..11 is too long.
  assert decoded.predictions["q0"] == "leader was John"
  assert [e["text"] for e in decoded.nbest["q0"]][:2] == [
      "leader was John", "The leader was"]


def test_missing_model_output_raises(tokenizer):
  with pytest.raises(errors.DataError, match="feature 0 of question q0"):
    decode([make_example()], {}, INDEPENDENT, tokenizer)


def test_no_valid_span_gives_the_nonce(tokenizer):
  results = {0: post.RawResult(start_logits=logits(p12=1.0),
                               end_logits=logits(p11=1.0))}
  settings = post.DecodingSettings(v2=False, joint_prediction=False,
                                   answerable_classifier=False, n_best_size=1)
  decoded = decode([make_example()], results, settings, tokenizer)
  assert decoded.predictions["q0"] == post.NO_VALID_SPAN_TEXT


def test_v2_answerable_classifier_null_odds_and_threshold(tokenizer):
  examples = [make_example("yes", 0), make_example("no", 1)]
  span = dict(start_logits=logits(p14=2.0), end_logits=logits(p14=2.0))
  results = {0: post.RawResult(answerable_logit=-4.0, **span),
             1000: post.RawResult(answerable_logit=3.0, **span)}
  settings = post.DecodingSettings(joint_prediction=False)
  decoded = decode(examples, results, settings, tokenizer)
  # The best non-empty span is always the prediction; the odds decide.
  assert decoded.predictions == {"yes": "1895", "no": "1895"}
  assert decoded.null_odds == {"yes": -4.0, "no": 3.0}
  assert post.apply_null_threshold(decoded.predictions,
                                   decoded.null_odds) == {"yes": "1895",
                                                          "no": ""}


def test_v2_without_classifier_uses_cls_scores(tokenizer):
  results = {0: post.RawResult(start_logits=logits(p0=3.0, p14=2.0),
                               end_logits=logits(p0=1.5, p14=1.0))}
  settings = post.DecodingSettings(joint_prediction=False,
                                   answerable_classifier=False)
  decoded = decode([make_example()], results, settings, tokenizer)
  assert decoded.predictions == {"q0": "1895"}
  # null (3 + 1.5) - best span (2 + 1).
  assert decoded.null_odds["q0"] == pytest.approx(1.5)


def test_joint_prediction_reads_the_beams(tokenizer):
  beam = 2
  results = {0: post.RawResult(
      start_top_log_probs=np.array([-0.1, -1.0]),
      start_top_index=np.array([11, 14]),
      end_top_log_probs=np.array([[-2.0, -2.5], [-0.2, -0.3]]),
      end_top_index=np.array([[12, 11], [14, 16]]),
      answerable_logit=-1.0)}
  settings = post.DecodingSettings(n_best_size=beam)
  decoded = decode([make_example()], results, settings, tokenizer)
  # (14,14): -1.2 beats (11,12): -2.1 and (14,16): -1.3.
  assert decoded.predictions == {"q0": "1895"}
  assert [e["text"] for e in decoded.nbest["q0"]] == ["1895", "1895-1943"]
  assert decoded.null_odds == {"q0": -1.0}


def test_only_the_max_context_window_proposes_a_start(tokenizer):
  data_settings = tasks.DataSettings(max_seq_length=12, max_query_length=4,
                                     doc_stride=3)
  windows = squad_features.featurize_spans(make_example(), tokenizer,
                                           data_settings, False)
  assert len(windows) == 3
  # Sub-token 6 ("1895") is at 9 in window 1 (its max context) and 6 in 2.
  results = {
      0: post.RawResult(start_logits=np.full(12, LOW),
                        end_logits=np.full(12, LOW)),
      1: post.RawResult(start_logits=np.where(np.arange(12) == 9, 1.0, LOW),
                        end_logits=np.where(np.arange(12) == 10, 1.0, LOW)),
      2: post.RawResult(start_logits=np.where(np.arange(12) == 6, 5.0, LOW),
                        end_logits=np.where(np.arange(12) == 6, 5.0, LOW)),
  }
  decoded = decode([make_example()], results, INDEPENDENT, tokenizer,
                   data_settings)
  assert decoded.predictions == {"q0": "1895-"}


def test_final_text_cases(tokenizer):
  basic = tokenizer.basic_tokenizer.tokenize
  assert post.final_text("steve smith", "Steve Smith's", basic) == (
      "Steve Smith")
  assert post.final_text("japan", "Japanese", basic) == "Japan"
  assert post.final_text("x", "Steve", basic) == "Steve"


def test_final_text_with_the_real_tokenizer_restores_accents(tmp_path):
  tokenization = pytest.importorskip("electra_tf.tokenization")
  vocab_file = os.path.join(tmp_path, "vocab.txt")
  with open(vocab_file, "w", encoding="utf-8") as f:
    f.write("\n".join(conftest.VOCAB + ["cafe", "##s"]))
  tokenizer = tokenization.FullTokenizer(vocab_file)
  basic = tokenizer.basic_tokenizer.tokenize
  assert post.final_text("cafe", "(Café)", basic) == "Café"


def test_write_prediction_files(tmp_path):
  decoded = post.SquadPredictions({"a": "x"}, {"a": 1.5}, {})
  paths = post.write_prediction_files(decoded, str(tmp_path / "qa"), "squad")
  assert os.path.basename(paths["preds"]) == "squad_preds.json"
  with open(paths["null_odds"]) as f:
    assert json.load(f) == {"a": 1.5}
