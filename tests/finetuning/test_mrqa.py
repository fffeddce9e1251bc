"""MRQA JSON Lines reading (plain and gzipped) and the MRQA scorer."""

import gzip
import json
import os
import random
import re

import numpy as np
import pytest

from electra_tf import errors
from electra_tf import tokenization
from electra_tf.data import features as feature_names
from electra_tf.finetuning.qa import mrqa
from electra_tf.finetuning.qa import mrqa_scoring
from electra_tf.finetuning.qa import squad
from electra_tf.finetuning.qa import squad_scoring
from electra_tf.finetuning import tasks

# Word indices:   0     1     2     3     4    5  6    7    8     9
CONTEXT = ("[PAR] [TLE] Paris [SEP] Paris is the capital of France.  "
           # 10  11    12    13      14
           "The Seine flows through Paris.")
WORDS = ("[PAR]", "[TLE]", "Paris", "[SEP]", "Paris", "is", "the", "capital",
         "of", "France.", "The", "Seine", "flows", "through", "Paris.")
SECOND_CONTEXT = "John Smith was born in 1895 ."
HEADER = {"header": {"dataset": "NewsQA", "split": "train"}}


def detected(text, *starts):
  return {"text": text, "char_spans": [[s, s + len(text) - 1] for s in starts],
          "token_spans": [[0, 0] for _ in starts]}


def question(qid, text, answers, detected_answers):
  return {"qid": qid, "question": text, "answers": answers,
          "detected_answers": detected_answers, "id": f"unused-{qid}"}


PARAGRAPHS = [
    {"context": CONTEXT, "context_tokens": [], "qas": [
        # The first detected answer is trained on, not the longer second.
        question("q1", "What flows through Paris?", ["Seine", "The Seine"],
                 [detected("Seine", 61), detected("The Seine", 57)]),
        # Its first character span (the second "Paris"), not the earliest.
        question("q2", "What is the capital of France?", ["Paris"],
                 [detected("Paris", 24, 12)]),
        # The span's end is not read: the text's length is.
        question("q3", "Where is Paris?", ["France"],
                 [{"text": "France", "char_spans": [[48, 90]]}]),
        # A span that does not hold its text: skipped.
        question("q4", "What river?", ["Seine"], [detected("Seine", 12)]),
    ]},
    {"context": SECOND_CONTEXT, "qas": [
        question("q5", "When was John Smith born?", ["1895", "in 1895"],
                 [detected("1895", 23)])]},
]


def write_mrqa(data_dir, split, records, compress=False):
  folder = os.path.join(data_dir, tasks.RAW_DATA_FOLDER, "newsqa")
  os.makedirs(folder, exist_ok=True)
  path = os.path.join(folder, split + ".jsonl" + (".gz" if compress else ""))
  text = "".join(json.dumps(record) + "\n" for record in records)
  with (gzip.open(path, "wt") if compress else open(path, "w")) as f:
    f.write(text)
  return path


def test_the_handcrafted_paragraphs_hold_what_they_say():
  assert tuple(CONTEXT.split()) == WORDS
  assert CONTEXT[61:66] == "Seine" and CONTEXT[57:66] == "The Seine"
  assert CONTEXT[24:29] == CONTEXT[12:17] == "Paris"
  assert CONTEXT[48:54] == "France" and SECOND_CONTEXT[23:27] == "1895"


@pytest.mark.parametrize("compress", [False, True])
def test_training_examples_are_the_originals(tmp_path, compress):
  path = write_mrqa(tmp_path, "train", [HEADER] + PARAGRAPHS, compress)
  result = mrqa.NEWSQA.read_examples(tmp_path, "train")
  assert result.examples == [
      squad.QAExample(0, "q1", "What flows through Paris?", WORDS, "Seine",
                      11, 11),
      squad.QAExample(1, "q2", "What is the capital of France?", WORDS,
                      "Paris", 4, 4),
      squad.QAExample(2, "q3", "Where is Paris?", WORDS, "France", 9, 9),
      squad.QAExample(3, "q5", "When was John Smith born?",
                      tuple(SECOND_CONTEXT.split()), "1895", 5, 5)]
  skipped, = result.skipped
  assert skipped.location == f"{path}:2 (question q4)"
  assert skipped.reason == ("could not find answer 'seine' in the context "
                            "words 'paris'")


def test_dev_examples_have_no_positions_and_golds_are_the_answers(tmp_path):
  path = write_mrqa(tmp_path, "dev", [HEADER] + PARAGRAPHS)
  result = mrqa.NEWSQA.read_examples(tmp_path, "dev")
  assert [(e.eid, e.qas_id, e.start_position, e.orig_answer_text)
          for e in result.examples] == [
              (0, "q1", None, None), (1, "q2", None, None),
              (2, "q3", None, None), (3, "q4", None, None),
              (4, "q5", None, None)]
  assert mrqa.gold_answers(path) == {
      "q1": ["Seine", "The Seine"], "q2": ["Paris"], "q3": ["France"],
      "q4": ["Seine"], "q5": ["1895", "in 1895"]}


def test_plain_file_wins_over_gzipped_one(tmp_path):
  write_mrqa(tmp_path, "train", [HEADER], compress=True)
  assert mrqa.NEWSQA.split_path(tmp_path, "train").endswith("train.jsonl.gz")
  assert mrqa.NEWSQA.has_split(tmp_path, "train")
  plain = write_mrqa(tmp_path, "train", [HEADER] + PARAGRAPHS[1:])
  assert mrqa.NEWSQA.split_path(tmp_path, "train") == plain
  assert len(mrqa.NEWSQA.read_examples(tmp_path, "train").examples) == 1


def test_featurization_is_squad_v1s(tokenizer):
  example = squad.QAExample(0, "q", "who sat ?", ("the", "cat", "sat"),
                            "cat", 1, 1)
  settings = mrqa.TRIVIAQA.settings(max_seq_length=16)
  for is_training in (True, False):
    mine = mrqa.TRIVIAQA.featurize(example, tokenizer, settings, is_training)
    theirs = squad.SQUAD_V1.featurize(example, tokenizer, settings,
                                      is_training)
    np.testing.assert_equal(mine, theirs)


def test_context_markup_is_text_not_special_tokens(tmp_path):
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
                              "[", "]", "par", "sep", "paris", "?"]))
  tokenizer = tokenization.FullTokenizer(str(vocab))
  example = squad.QAExample(0, "q", "paris ?", ("[PAR]", "Paris", "[SEP]"))
  features, = mrqa.SEARCHQA.featurize(
      example, tokenizer, mrqa.SEARCHQA.settings(max_seq_length=16), False)
  assert tokenizer.convert_ids_to_tokens(
      features[feature_names.INPUT_IDS][:13].tolist()) == (
          "[CLS] paris ? [SEP] [ par ] paris [ sep ] [SEP] [PAD]").split()


def bad_line(tmp_path, line, compress=False):
  path = write_mrqa(tmp_path, "train", [HEADER], compress)
  opener = gzip.open if compress else open
  with opener(path, "at") as f:
    f.write(line + "\n")
  return path


@pytest.mark.parametrize("line, message", [
    ('{"context": "a b", "qas": [', ":2: not valid JSON"),
    ("[1, 2]", ":2: not a JSON object, got list"),
    ('{"qas": []}', ":2: missing key 'context'"),
    ('{"context": "a b", "qas": [{"question": "q?"}]}',
     ":2 (a question): missing key 'qid'"),
    ('{"context": "a b", "qas": [{"qid": "x", "question": "q?", '
     '"detected_answers": []}]}', ":2 (question x): no detected answers"),
    ('{"context": "a b", "qas": [{"qid": "x", "question": "q?", '
     '"detected_answers": [{"text": "a", "char_spans": [0, 0]}]}]}',
     ":2 (question x): 'char_spans' must start with a [start, end] pair"),
])
def test_malformed_lines_name_file_and_line(tmp_path, line, message):
  path = bad_line(tmp_path, line)
  with pytest.raises(errors.DataError, match=re.escape(path + message)):
    mrqa.NEWSQA.read_examples(tmp_path, "train")


def test_missing_and_broken_files(tmp_path):
  with pytest.raises(errors.DataError, match="MRQA file not found: .*"
                     "newsqa/dev.jsonl$"):
    mrqa.NEWSQA.read_examples(tmp_path, "dev")
  path = write_mrqa(tmp_path, "dev", [HEADER], compress=True)
  with open(path, "wb") as f:
    f.write(b'{"header": {}}\n')
  with pytest.raises(errors.DataError, match=f"{path}: not a readable gzip"):
    mrqa.NEWSQA.read_examples(tmp_path, "dev")
  with gzip.open(path, "wt") as f:
    f.write(json.dumps(HEADER) + "\n" + json.dumps(PARAGRAPHS[1]) + "\n")
  with open(path, "rb") as f:
    data = f.read()
  with open(path, "wb") as f:
    f.write(data[:len(data) // 2])
  with pytest.raises(errors.DataError, match=f"{path}: not a readable gzip"):
    mrqa.gold_answers(path)
  bad = bad_line(tmp_path, '{"context": "x", "qas": [{"qid": 1, '
                 '"answers": "x"}]}', compress=True)
  with pytest.raises(errors.DataError, match=f"{bad}:2 \\(question 1\\): "
                     "'answers' must be a list, got str"):
    mrqa.gold_answers(bad)


def as_squad(golds):
  """The SQuAD 1.1 `data` of {id: gold texts}."""
  return [{"paragraphs": [{"qas": [
      {"id": q, "answers": [{"text": g} for g in texts]}
      for q, texts in golds.items()]}]}]


def test_scores_by_hand():
  golds = {"q1": ["The Seine", "Seine river"], "q2": ["Paris"],
           "q3": ["1,000 men"], "q4": ["absent"]}
  predictions = {"q1": "seine", "q2": "Paris, France", "q3": "men",
                 "extra": "ignored"}
  scores = mrqa_scoring.evaluate(golds, predictions)
  # q4 has no prediction: left out. EM: q1 only; F1: 1, 2/3, 2/3.
  assert scores["exact_match"] == pytest.approx(100 / 3)
  assert scores["f1"] == pytest.approx(100 * (1 + 2 / 3 + 2 / 3) / 3)
  # SQuAD 1.1 would have scored q4 as 0 over 4 questions.
  squad_scores = squad_scoring.evaluate_v1(as_squad(golds), predictions)
  assert squad_scores["f1"] == pytest.approx(scores["f1"] * 3 / 4)


def test_scores_equal_squad_v1_when_every_question_is_answered():
  rng = random.Random(0)
  pool = ["the", "A", "cat", "Cat.", "dog", "1,000", "", "red", "an", "東京"]
  text = lambda: " ".join(rng.choice(pool) for _ in range(rng.randint(0, 4)))
  for _ in range(50):
    golds = {f"q{i}": [text() for _ in range(rng.randint(1, 3))]
             for i in range(rng.randint(1, 8))}
    predictions = {q: text() for q in golds}
    assert mrqa_scoring.evaluate(golds, predictions) == pytest.approx(
        squad_scoring.evaluate_v1(as_squad(golds), predictions))


def test_unscorable_inputs_raise():
  with pytest.raises(errors.DataError, match="none of the 2 questions"):
    mrqa_scoring.evaluate({"a": ["x"], "b": ["y"]}, {"c": "x"})
  with pytest.raises(errors.DataError, match="question a has no gold"):
    mrqa_scoring.evaluate({"a": []}, {"a": "x"})
