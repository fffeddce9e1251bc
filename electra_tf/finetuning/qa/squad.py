"""SQuAD 1.1 (`squadv1`) and 2.0 (`squad`): the QA family's task class.

It reads the official JSON files and implements the family's steps: the
span head, decoding and official scoring, a JSON of test answers
({question id: answer}, "" for a predicted no-answer in 2.0) and the
serving module.

Raw files: `<data_dir>/finetuning_data/<task>/{train,dev}.json`. Contexts
are split into words on whitespace, keeping each character's word index, as
the original. Answer positions are only read for `train`; evaluation scores
predictions against the JSON itself (`squad_scoring`).

Bad input: a training answer whose character offsets fall outside the
context or do not cover its text is skipped, logged and counted in
`ReadResult.skipped` (the original logs "Could not find answer"); a file
that is not JSON, or a question missing a required key, raises `DataError`
naming the file and question.
"""

import dataclasses
import json
import os

import numpy as np
import tensorflow as tf

from electra_tf import errors
from electra_tf.finetuning import prediction_files
from electra_tf.finetuning import tasks
from electra_tf.finetuning.qa import evaluation
from electra_tf.finetuning.qa import head
from electra_tf.finetuning.qa import serving_module
from electra_tf.finetuning.qa import squad_features

SQUAD_MAX_SEQ_LENGTH = 512  # the original's defaults for QA tasks
SQUAD_NUM_TRAIN_EPOCHS = 2.0


@dataclasses.dataclass(frozen=True)
class QAExample:
  """One question on a whitespace-tokenized context.

  Positions are word indices, set for training only (-1 when impossible).
  """
  eid: int
  qas_id: str
  question_text: str
  doc_tokens: tuple
  orig_answer_text: str | None = None
  start_position: int | None = None
  end_position: int | None = None
  is_impossible: bool = False


def split_words(text):
  """Whitespace-separated words of `text`, and each character's word index.

  Whitespace characters map to the word before them (-1 before the first).
  """
  words, char_to_word = [], []
  previous_is_whitespace = True
  for char in text:
    if char in squad_features.WHITESPACE:
      previous_is_whitespace = True
    else:
      if previous_is_whitespace:
        words.append(char)
      else:
        words[-1] += char
      previous_is_whitespace = False
    char_to_word.append(len(words) - 1)
  return words, char_to_word


def load_dataset(path):
  """The `data` list (articles) of a SQuAD JSON file."""
  if not tf.io.gfile.exists(path):
    raise errors.DataError(f"SQuAD file not found: {path}")
  with tf.io.gfile.GFile(path, "r") as f:
    try:
      dataset = json.load(f)
    except json.JSONDecodeError as error:
      raise errors.DataError(f"{path}:{error.lineno}: not valid JSON "
                             f"({error.msg})") from None
  if not isinstance(dataset, dict) or "data" not in dataset:
    raise errors.DataError(f"{path}: no top-level 'data' list")
  return dataset["data"]


def field(mapping, key, location, kind=None):
  """`mapping[key]`; `DataError` if it is missing or not of `kind`."""
  if not isinstance(mapping, dict) or key not in mapping:
    raise errors.DataError(f"{location}: missing key {key!r}")
  value = mapping[key]
  if kind is not None and not isinstance(value, kind):
    expected = " or ".join(k.__name__ for k in (
        kind if isinstance(kind, tuple) else (kind,)))
    raise errors.DataError(f"{location}: {key!r} must be a {expected}, got "
                           f"{type(value).__name__}")
  return value


def question_id(qa, id_key, location):
  """A question's id (`id` in SQuAD, `qid` in MRQA), as a string."""
  return str(field(qa, id_key, f"{location} (a question)", (str, int)))


def first_squad_answer(qa, location):
  """(text, character offset) of a SQuAD question's first answer."""
  answers = field(qa, "answers", location, list)
  if not answers:
    raise errors.DataError(f"{location}: answerable but has no answers")
  return (field(answers[0], "text", location, str),
          field(answers[0], "answer_start", location, int))


def answer_words(text, offset, words, char_to_word, location, result):
  """(first word, last word) of answer `text` at character `offset`.

  The span ends `len(text)` characters after `offset`. None, recorded in
  `result`, if the text is empty, ends outside the context or is not within
  the words it covers (compared lower-cased, whitespace collapsed).
  """
  end_offset = offset + len(text) - 1
  if not text:
    result.skip(location, "empty answer text")
    return None
  if not 0 <= offset <= end_offset < len(char_to_word):
    result.skip(location, f"answer {text!r} at character {offset} ends "
                "outside the context")
    return None
  start, end = char_to_word[offset], char_to_word[end_offset]
  found = " ".join(words[start:end + 1]).lower()
  expected = " ".join(text.split()).lower()
  if expected not in found:
    result.skip(location, f"could not find answer {expected!r} in the "
                f"context words {found!r}")
    return None
  return start, end


def add_paragraph_examples(paragraph, path, is_train, v2, result,
                           id_key="id", first_answer=first_squad_answer):
  """Appends the examples of one paragraph's questions to `result`.

  Args:
    paragraph: a dict with `context` and `qas`.
    path: where the paragraph is, for messages.
    is_train: whether to read answer positions.
    v2: whether questions carry `is_impossible`.
    result: a `tasks.ReadResult`.
    id_key: the questions' id key.
    first_answer: `(qa, location) -> (text, character offset)` of the
      answer trained on.
  """
  words, char_to_word = split_words(field(paragraph, "context", path, str))
  for qa in field(paragraph, "qas", path, list):
    qas_id = question_id(qa, id_key, path)
    location = f"{path} (question {qas_id})"
    example = QAExample(eid=len(result.examples), qas_id=qas_id,
                        question_text=field(qa, "question", location, str),
                        doc_tokens=tuple(words))
    if is_train:
      if v2 and field(qa, "is_impossible", location):
        example = dataclasses.replace(
            example, orig_answer_text="", start_position=-1, end_position=-1,
            is_impossible=True)
      else:
        text, offset = first_answer(qa, location)
        span = answer_words(text, offset, words, char_to_word, location,
                            result)
        if span is None:
          continue
        example = dataclasses.replace(example, orig_answer_text=text,
                                      start_position=span[0],
                                      end_position=span[1])
    result.examples.append(example)


class SquadTask(tasks.Task):
  """SQuAD 2.0 (`v2`, with unanswerable questions) or 1.1: the QA family.

  Evaluation writes the run's `output_paths` (predictions, null odds,
  scores) as the original; test predictions are a JSON of answers.
  """

  output_paths = ("qa_preds_file", "qa_na_file", "qa_eval_file")

  def __init__(self, name, v2):
    # Keys of `squad_scoring.evaluate_v2` / `evaluate_v1`.
    metric_names = ("exact", "f1") if v2 else ("exact_match", "f1")
    super().__init__(name, tasks.TaskType.SPAN_QA, metric_names,
                     num_train_epochs=SQUAD_NUM_TRAIN_EPOCHS,
                     default_max_seq_length=SQUAD_MAX_SEQ_LENGTH)
    self.v2 = v2

  def split_path(self, data_dir, split):
    return tf.io.gfile.join(self.raw_data_dir(data_dir), split + ".json")

  def read_examples(self, data_dir, split, settings=None):
    del settings  # nothing to set
    path = self.split_path(data_dir, split)
    result = tasks.ReadResult()
    for article in load_dataset(path):
      for paragraph in field(article, "paragraphs", path, list):
        add_paragraph_examples(paragraph, path, split == tasks.TRAIN,
                               self.v2, result)
    return result

  def target_shapes(self, settings, is_training):
    del settings  # scalar targets
    if not is_training:
      return {}
    return {name: ((), np.int32) for name in squad_features.TARGET_FEATURES}

  def featurize(self, example, tokenizer, settings, is_training):
    return [span.features for span in squad_features.featurize_spans(
        example, tokenizer, settings, is_training)]

  def is_long(self, example, feature, max_seq_length):
    del example, feature, max_seq_length  # contexts are windowed, not cut
    return False

  def build_head(self, config, num_labels=None, dtype=None):
    del num_labels  # spans
    return head.SpanHead(
        config.encoder_config.hidden_size, beam_size=config.beam_size,
        joint_prediction=config.joint_prediction,
        answerable_classifier=config.answerable_classifier,
        answerable_uses_start_logits=config.answerable_uses_start_logits,
        answerable_weight=config.answerable_weight, name=self.name,
        dtype=dtype)

  def evaluate(self, outputs, run, split):
    config = run.config
    examples = self.read_examples(config.raw_data_root, split).examples
    return evaluation.span_metrics(
        config, self, examples, run.tokenizer, run.settings, outputs,
        self.scorer(config, split))

  def scorer(self, config, split):
    """`SquadPredictions` -> the official scores against `split`'s file."""
    return evaluation.squad_scorer(config, self.v2, load_dataset(
        self.split_path(config.raw_data_root, split)))

  def write_test_outputs(self, outputs, run, split, folder, trial):
    del folder  # next to `test_predictions`
    config = run.config
    examples = self.read_examples(config.raw_data_root, split).examples
    answers = evaluation.test_answers(config, self, examples, run.tokenizer,
                                      run.settings, outputs)
    path = os.path.splitext(config.test_predictions.format(
        self.name, split, trial))[0] + ".json"
    prediction_files.write_json(path, answers)
    return path

  def serving_module(self, model, config, vocab_file, labels=None,
                     jit_compile=True):
    del labels  # spans
    return serving_module.SpanServingModule(model, self, config, vocab_file,
                                            jit_compile=jit_compile)


SQUAD_V2 = SquadTask("squad", v2=True)
SQUAD_V1 = SquadTask("squadv1", v2=False)
