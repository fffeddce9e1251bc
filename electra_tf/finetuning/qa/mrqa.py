"""The MRQA 2019 shared task datasets, under the original's names: NewsQA
(`newsqa`), Natural Questions (`naturalqs`), TriviaQA (`triviaqa`) and
SearchQA (`searchqa`).

Raw files: `<data_dir>/finetuning_data/<task>/{train,dev}.jsonl` in the
shared task's JSON Lines format: a header line (an object with a `header`
key, skipped wherever it is), then one paragraph per line, a `context` and
its questions (`qas`, each with `qid`, `question`, `answers` and
`detected_answers`). When only `<split>.jsonl.gz`, the download as it is,
exists, it is read instead.

As in the original, these are SQuAD 1.1 tasks with another reader:

  * the context is split into words on whitespace and kept as it is: the
    markup `[PAR]`, `[DOC]`, `[TLE]` and `[SEP]` are words like any other
    (the tokenizer splits each into `[`, its name, `]`);
  * a training question trains on the first character span of its first
    detected answer, `len(text)` characters from the span's start (the
    span's end is not read); an answer not found there is skipped and
    counted in `ReadResult.skipped`, as SQuAD's;
  * no question is unanswerable; an example's `qas_id` holds its `qid`,
    which keys the predictions; dev questions are scored against their
    `answers` strings (`mrqa_scoring`).

Bad input: a missing file, a line that is not a JSON object, a `.gz` that
is not gzip, or a missing or mistyped key raises `DataError` naming the
file and line (and question).
"""

import gzip
import json
import zlib

import tensorflow as tf

from electra_tf import errors
from electra_tf.finetuning import tasks
from electra_tf.finetuning.qa import mrqa_scoring
from electra_tf.finetuning.qa import squad

JSONL = ".jsonl"
GZIP = ".gz"
HEADER_KEY = "header"
QUESTION_ID = "qid"


def _records(path, lines):
  """("<path>:<line>", object) of each non-blank line of `lines`."""
  for number, line in enumerate(lines, 1):
    if not line.strip():
      continue
    location = f"{path}:{number}"
    try:
      record = json.loads(line)
    except json.JSONDecodeError as error:
      raise errors.DataError(f"{location}: not valid JSON ({error.msg})"
                             ) from None
    except UnicodeDecodeError:
      raise errors.DataError(f"{location}: not UTF-8 text") from None
    if not isinstance(record, dict):
      raise errors.DataError(f"{location}: not a JSON object, got "
                             f"{type(record).__name__}")
    yield location, record


def read_paragraphs(path):
  """Yields ("<path>:<line>", paragraph) of an MRQA file, headers skipped.

  A path ending in `.gz` is read as gzip.
  """
  if not tf.io.gfile.exists(path):
    raise errors.DataError(f"MRQA file not found: {path}")
  with tf.io.gfile.GFile(path, "rb") as f:
    lines = gzip.GzipFile(fileobj=f) if path.endswith(GZIP) else f
    try:
      for location, record in _records(path, lines):
        if HEADER_KEY not in record:
          yield location, record
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
      raise errors.DataError(f"{path}: not a readable gzip file ({error})"
                             ) from None


def first_detected_answer(qa, location):
  """(text, start character) of a question's first detected answer."""
  detected = squad.field(qa, "detected_answers", location, list)
  if not detected:
    raise errors.DataError(f"{location}: no detected answers to train on")
  spans = squad.field(detected[0], "char_spans", location, list)
  if not (spans and isinstance(spans[0], list) and spans[0] and
          isinstance(spans[0][0], int)):
    raise errors.DataError(f"{location}: 'char_spans' must start with a "
                           "[start, end] pair of ints")
  return squad.field(detected[0], "text", location, str), spans[0][0]


def gold_answers(path):
  """{qid: its `answers` strings} of every question of an MRQA file."""
  golds = {}
  for location, paragraph in read_paragraphs(path):
    for qa in squad.field(paragraph, "qas", location, list):
      qid = squad.question_id(qa, QUESTION_ID, location)
      answers = squad.field(qa, "answers", f"{location} (question {qid})",
                            list)
      if not all(isinstance(answer, str) for answer in answers):
        raise errors.DataError(f"{location} (question {qid}): 'answers' "
                               "must be a list of strings")
      golds[qid] = answers
  return golds


class MrqaTask(squad.SquadTask):
  """An MRQA task: SQuAD 1.1's featurization, head and decoding on the
  shared task's files, scored by its official script's rules."""

  def __init__(self, name, default_max_seq_length=squad.SQUAD_MAX_SEQ_LENGTH,
               num_train_epochs=squad.SQUAD_NUM_TRAIN_EPOCHS):
    super().__init__(name, v2=False)
    self.metric_names = mrqa_scoring.METRIC_NAMES
    self.default_max_seq_length = default_max_seq_length
    self.num_train_epochs = num_train_epochs

  def split_path(self, data_dir, split):
    """`<split>.jsonl`, or `<split>.jsonl.gz` if only that exists."""
    plain = tf.io.gfile.join(self.raw_data_dir(data_dir), split + JSONL)
    if not tf.io.gfile.exists(plain) and tf.io.gfile.exists(plain + GZIP):
      return plain + GZIP
    return plain

  def read_examples(self, data_dir, split, settings=None):
    del settings  # nothing to set
    result = tasks.ReadResult()
    for location, paragraph in read_paragraphs(
        self.split_path(data_dir, split)):
      squad.add_paragraph_examples(
          paragraph, location, split == tasks.TRAIN, False, result,
          id_key=QUESTION_ID, first_answer=first_detected_answer)
    return result

  def scorer(self, config, split):
    golds = gold_answers(self.split_path(config.raw_data_root, split))
    return lambda decoded: mrqa_scoring.evaluate(golds, decoded.predictions)


NEWSQA = MrqaTask("newsqa")
# The original gave single-task runs SQuAD's length and epochs when "qa" or
# "squad" is in the task name, which "naturalqs" is not: it keeps the
# general defaults.
NATURAL_QUESTIONS = MrqaTask(
    "naturalqs", default_max_seq_length=tasks.DEFAULT_MAX_SEQ_LENGTH,
    num_train_epochs=tasks.DEFAULT_NUM_TRAIN_EPOCHS)
TRIVIAQA = MrqaTask("triviaqa")
SEARCHQA = MrqaTask("searchqa")
MRQA_TASKS = (NEWSQA, NATURAL_QUESTIONS, TRIVIAQA, SEARCHQA)
