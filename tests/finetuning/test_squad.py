"""SQuAD JSON reading and featurization (doc spans, targets, max context)."""

import json
import os

import pytest

from electra_tf import errors
from electra_tf.data import features as feature_names
from electra_tf.finetuning.qa import squad
from electra_tf.finetuning.qa import squad_features
from electra_tf.finetuning import tasks

CONTEXT = "The leader was John Smith (1895-1943)."
QUESTION = "When was John Smith born?"


def qa(qas_id, question=QUESTION, text=None, start=None, impossible=None):
  entry = {"id": qas_id, "question": question,
           "answers": [] if text is None else [{"text": text,
                                                "answer_start": start}]}
  if impossible is not None:
    entry["is_impossible"] = impossible
  return entry


def write_squad(data_dir, task_name, split, paragraphs, version="2.0"):
  path = os.path.join(data_dir, "finetuning_data", task_name, split + ".json")
  os.makedirs(os.path.dirname(path), exist_ok=True)
  dataset = {"version": version,
             "data": [{"title": "t", "paragraphs": paragraphs}]}
  with open(path, "w", encoding="utf-8") as f:
    json.dump(dataset, f, indent=1)
  return path


def example(**overrides):
  words, _ = squad.split_words(CONTEXT)
  values = dict(eid=0, qas_id="q0", question_text=QUESTION,
                doc_tokens=tuple(words), orig_answer_text="1895",
                start_position=5, end_position=5)
  values.update(overrides)
  return squad.QAExample(**values)


def test_split_words_maps_characters_to_words():
  words, char_to_word = squad.split_words(" ab  c\u202fd")
  assert words == ["ab", "c", "d"]
  assert char_to_word == [-1, 0, 0, 0, 0, 1, 1, 2]


def test_v1_reader_finds_answer_words(tmp_path):
  write_squad(tmp_path, "squadv1", "train", [{"context": CONTEXT, "qas": [
      qa("q1", text="1895", start=CONTEXT.index("1895")),
      qa("q2", text="John Smith", start=CONTEXT.index("John"))]}], "1.1")
  result = squad.SQUAD_V1.read_examples(tmp_path, "train")
  assert not result.skipped
  first, second = result.examples
  assert first.doc_tokens == ("The", "leader", "was", "John", "Smith",
                              "(1895-1943).")
  assert (first.eid, first.qas_id, first.start_position,
          first.end_position) == (0, "q1", 5, 5)
  assert (second.eid, second.start_position, second.end_position,
          second.orig_answer_text) == (1, 3, 4, "John Smith")


def test_v2_reader_marks_impossible_questions_and_skips_bad_answers(tmp_path):
  path = write_squad(tmp_path, "squad", "train", [{"context": CONTEXT, "qas": [
      qa("ok", text="Smith", start=CONTEXT.index("Smith"), impossible=False),
      qa("none", impossible=True),
      qa("shifted", text="Smith", start=CONTEXT.index("John"),
         impossible=False),
      qa("outside", text="1943).", start=len(CONTEXT) - 3, impossible=False),
  ]}])
  result = squad.SQUAD_V2.read_examples(tmp_path, "train")
  assert [e.qas_id for e in result.examples] == ["ok", "none"]
  impossible = result.examples[1]
  assert (impossible.eid, impossible.is_impossible, impossible.start_position,
          impossible.end_position, impossible.orig_answer_text) == (
              1, True, -1, -1, "")
  assert [s.location for s in result.skipped] == [
      f"{path} (question shifted)", f"{path} (question outside)"]
  assert "could not find answer" in result.skipped[0].reason


def test_dev_examples_have_no_positions(tmp_path):
  write_squad(tmp_path, "squad", "dev", [{"context": CONTEXT, "qas": [
      qa("d1", text="1895", start=999), qa("d2")]}])
  result = squad.SQUAD_V2.read_examples(tmp_path, "dev")
  assert [(e.qas_id, e.start_position, e.is_impossible)
          for e in result.examples] == [("d1", None, False),
                                        ("d2", None, False)]


def test_bad_files_raise_naming_file_and_question(tmp_path):
  path = write_squad(tmp_path, "squad", "train", [{"context": CONTEXT, "qas": [
      {"id": "q9", "answers": [], "is_impossible": True}]}])
  with pytest.raises(errors.DataError, match="question q9.*'question'"):
    squad.SQUAD_V2.read_examples(tmp_path, "train")
  with open(path, "w") as f:
    f.write('{"data": [\n  {"title": }\n]}')
  with pytest.raises(errors.DataError, match=f"{path}:2"):
    squad.SQUAD_V2.read_examples(tmp_path, "train")
  with pytest.raises(errors.DataError, match="not found"):
    squad.SQUAD_V2.read_examples(tmp_path, "dev")
  # Fields of the wrong type are named, not TypeError tracebacks.
  write_squad(tmp_path, "squad", "train", [{"context": None, "qas": []}])
  with pytest.raises(errors.DataError, match="'context' must be a str, got "
                     "NoneType"):
    squad.SQUAD_V2.read_examples(tmp_path, "train")
  write_squad(tmp_path, "squad", "train", [{"context": CONTEXT, "qas": [
      {"id": "q1", "question": QUESTION, "is_impossible": False,
       "answers": [{"text": "1895", "answer_start": "5"}]}]}])
  with pytest.raises(errors.DataError, match="question q1.*'answer_start' "
                     "must be a int"):
    squad.SQUAD_V2.read_examples(tmp_path, "train")


def test_doc_spans_and_max_context():
  spans = squad_features.doc_spans(11, 5, 3)
  assert spans == [squad_features.DocSpan(0, 5), squad_features.DocSpan(3, 5),
                   squad_features.DocSpan(6, 5)]
  assert squad_features.doc_spans(4, 5, 3) == [squad_features.DocSpan(0, 4)]
  # Token 3: 3 left / 1 right in span 0, 0 left in span 1.
  assert squad_features.is_max_context(spans, 0, 3)
  assert squad_features.is_max_context(spans, 1, 4)
  assert squad_features.is_max_context(spans, 1, 6)
  assert not squad_features.is_max_context(spans, 2, 6)


def test_improve_answer_span_finds_the_sub_token(tokenizer):
  doc = "the leader was john smith ( 1895 - 1943 ) .".split()
  assert squad_features.improve_answer_span(doc, 5, 10, tokenizer,
                                            "1895") == (6, 6)
  assert squad_features.improve_answer_span(doc, 5, 10, tokenizer,
                                            "1900") == (5, 10)


def test_training_features_across_doc_stride_windows(tokenizer):
  settings = tasks.DataSettings(max_seq_length=12, max_query_length=4,
                                doc_stride=3)
  spans = squad_features.featurize_spans(example(eid=7), tokenizer, settings,
                                         is_training=True)
  assert [s.doc_span_index for s in spans] == [0, 1, 2]
  assert [s.features[tasks.EXAMPLE_ID] for s in spans] == [7000, 7001, 7002]
  # Question cut to 4 tokens; 5 context tokens per window, stride 3.
  assert spans[1].tokens == ("[CLS] when was john smith [SEP] john smith ( "
                             "1895 - [SEP]").split()
  features = spans[1].features
  assert features[feature_names.INPUT_IDS].tolist() == tokenizer.ids(
      " ".join(spans[1].tokens))
  assert features[feature_names.SEGMENT_IDS].tolist() == [0] * 6 + [1] * 6
  assert features[feature_names.INPUT_MASK].tolist() == [1] * 12
  assert spans[1].token_to_orig_map == {6: 3, 7: 4, 8: 5, 9: 5, 10: 5}
  assert spans[1].token_is_max_context == {6: False, 7: True, 8: True,
                                           9: True, 10: False}
  # "1895" is sub-token 6: absent from window 0, at 9 and 6 in the others.
  targets = [(s.features[squad_features.START_POSITIONS],
              s.features[squad_features.END_POSITIONS],
              s.features[squad_features.IS_IMPOSSIBLE]) for s in spans]
  assert targets == [(0, 0, 0), (9, 9, 0), (6, 6, 0)]
  assert spans[2].features[feature_names.INPUT_MASK].tolist() == [1] * 12


def test_impossible_and_eval_features(tokenizer):
  settings = tasks.DataSettings(max_seq_length=20)
  impossible = example(orig_answer_text="", start_position=-1,
                       end_position=-1, is_impossible=True)
  features, = squad.SQUAD_V2.featurize(impossible, tokenizer, settings,
                                       is_training=True)
  assert (features[squad_features.START_POSITIONS],
          features[squad_features.END_POSITIONS],
          features[squad_features.IS_IMPOSSIBLE]) == (0, 0, 1)
  eval_features, = squad.SQUAD_V2.featurize(example(), tokenizer, settings,
                                            is_training=False)
  assert squad_features.START_POSITIONS not in eval_features
  # [CLS] + 6 question + [SEP] + 11 context + [SEP] = 20 tokens.
  assert eval_features[feature_names.INPUT_MASK].tolist() == [1] * 20


def test_answer_in_last_word_and_too_short_sequences(tokenizer):
  settings = tasks.DataSettings(max_seq_length=30)
  last = example(orig_answer_text="1943", start_position=5, end_position=5)
  features, = squad.SQUAD_V1.featurize(last, tokenizer, settings, True)
  # 8 leading tokens ([CLS] question [SEP]); "1943" is context token 8.
  assert features[squad_features.START_POSITIONS] == 16
  with pytest.raises(errors.ConfigError, match="no room"):
    squad.SQUAD_V1.featurize(last, tokenizer,
                             tasks.DataSettings(max_seq_length=9), True)
