"""Serving inputs of the task-export tests, and what finetuning makes of them.

Each task gets the inputs of its raw-text signature (`TEXT_ARGS`): a basic
batch, the golden tokenization text and bad inputs; `finetuning_features`
featurizes texts exactly as finetuning does (`FullTokenizer` and the
task's `featurize`), which the token-id and tf.Example signatures are fed
and the raw-text signatures are checked against.
"""

import gzip
import json
import os

import numpy as np

from electra_tf import errors
from electra_tf import tokenization
from electra_tf.finetuning import feature_cache
from electra_tf.finetuning.qa import squad
from electra_tf.finetuning.qa import squad_features
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.finetuning.classification import features as sentence_features
from electra_tf.finetuning.tagging import features as tag_features
from tests.conftest import TESTDATA

VOCAB = os.path.join(TESTDATA, "bert_uncased_vocab.txt")
TEXT_ARGS = {"sst": ("text",), "sts": ("text_a", "text_b"),
             "squad": ("question", "context"), "chunk": ("text",)}
GOLDEN_COUNT = {"sts": 60, "squad": 30, "chunk": 80}

BASIC = {
    "sst": [["w1 good w2 w3", "bad w4", "W5 GOOD!", "w6 " * 60]],
    "sts": [["The cat sat on the mat.", "", "only a", "long " * 50,
             "naïve café"],
            ["A cat sat.", "only b", "", "x y z", "CAFÉ NAÏVE!"]],
    "squad": [["Who was born in 1895?", "what?", "where is the café?", ""],
              ["John Smith (1895-1943) was born in Japan.\nHe  founded the "
               "Electronics industry, naïve café (Paris). " * 3,
               "short context, really.",
               "\u202fa\tb\u3000c Naïve CAFÉ's (Paris) ### ##ing [unk]",
               "The quick brown fox (jumps) over the lazy dog; it's fine."]],
    "chunk": [["The cat sat on the mat.", "naïve café's owner ran",
               "a\u00a0b\u2028c", " ".join(f"w{i}" for i in range(40))]],
}

BAD_TEXTS = {
    "empty_string": [""],
    "invalid_utf8": [b"\xff\xfe bad \xc3", b"ok \x80 (fine)"],
    "controls": ["\x00\x01 \u200b tab\there"],
    "long_word": ["x" * 100000],
    "long_text": ["word " * 20000],
    "mixed_lengths": ["a", "a much longer text " * 30, "", "mid length"],
    "empty_batch": [],
}


def golden_texts(count):
  with gzip.open(os.path.join(TESTDATA, "tokenization", "tokens.jsonl.gz"),
                 "rt") as f:
    return [json.loads(line)["text"] for line, _ in zip(f, range(count))]


def golden_inputs(task_name):
  """The golden text in the shape of `task_name`'s raw-text arguments."""
  lines = golden_texts(3 * GOLDEN_COUNT[task_name])
  count = GOLDEN_COUNT[task_name]
  if task_name == "sts":
    return [lines[:count], lines[count:2 * count]]
  if task_name == "squad":
    return [lines[:count], [a + "  " + b for a, b in zip(
        lines[count:2 * count], lines[2 * count:3 * count])]]
  return [lines[:count]]


def bad_inputs(texts):
  """Both fields of a pair task get the bad texts (the second reversed)."""
  array = np.array(texts, dtype=object)
  return [array, array[::-1]]


def _decoded(text):
  return text.decode("utf-8", "replace") if isinstance(text, bytes) else text


def squad_examples(questions, contexts):
  return [squad.QAExample(eid=i, qas_id=str(i), question_text=_decoded(q),
                          doc_tokens=tuple(squad.split_words(_decoded(c))[0]))
          for i, (q, c) in enumerate(zip(questions, contexts))]


def finetuning_features(task, settings, inputs, vocab_file=VOCAB):
  """Per example: the finetuning feature dicts (SQuAD: one per window).

  A chunking sentence finetuning refuses (`DataError`) gets [].
  """
  full = tokenization.FullTokenizer(vocab_file)
  if task.task_type == tasks_lib.TaskType.SPAN_QA:
    return [[span.features for span in squad_features.featurize_spans(
        example, full, settings, is_training=False)]
            for example in squad_examples(*inputs)]
  featurized = []
  for i, texts in enumerate(zip(*inputs)):
    texts = [_decoded(text) for text in texts]
    if task.task_type == tasks_lib.TaskType.TAGGING:
      words = tuple(texts[0].split())
      example = tag_features.TaggingExample(i, words, ("O",) * len(words),
                                        (0,) * len(words))
    else:
      example = sentence_features.SentenceExample(i, texts[0], (texts + [None])[1],
                                     task.dummy_label())
    try:
      featurized.append(task.featurize(example, full, settings))
    except errors.DataError:
      featurized.append([])
  return featurized


def stacked(task, settings, per_example):
  """The features of all examples (all windows), stacked, and serialized
  as the finetuning feature cache writes them."""
  rows = [row for rows in per_example for row in rows]
  names = set(rows[0]) - {"eid"}
  arrays = {name: np.stack([row[name] for row in rows]) for name in names}
  shapes = feature_cache.feature_shapes([task], settings, is_training=False)
  arrays["examples"] = np.array([
      feature_cache._to_tf_example(row, shapes).SerializeToString()  # pylint: disable=protected-access
      for row in rows], dtype=object)
  return arrays
