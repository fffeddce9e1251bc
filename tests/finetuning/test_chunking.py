"""CoNLL-2000 chunking: reading, BIOES labels, first-sub-token features."""

import os

import numpy as np
import pytest

from electra_tf import errors
from electra_tf.data import features as feature_names
from electra_tf.finetuning.tagging import chunking
from electra_tf.finetuning.tagging import features as tag_features
from electra_tf.finetuning import scoring
from electra_tf.finetuning import tasks

TRAIN = """-DOCSTART- -X- O

He PRP B-NP
sat VBD B-VP
on IN B-PP
the DT B-NP
big JJ I-NP
mat NN I-NP
. . O

They PRP B-NP
playing VBG B-VP
unbelievable JJ B-ADJP
. . O
"""  # no blank line after the last sentence
DEV = "red JJ B-ADJP\ncat NN B-NP\n\n"
LABEL_LIST = ("B-NP", "E-NP", "I-NP", "O", "S-ADJP", "S-NP", "S-PP", "S-VP")


def write_split(data_dir, split, text):
  path = os.path.join(data_dir, "finetuning_data", "chunk", split + ".txt")
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w", encoding="utf-8") as f:
    f.write(text)
  return path


@pytest.fixture
def data_dir(tmp_path):
  write_split(tmp_path, "train", TRAIN)
  write_split(tmp_path, "dev", DEV)
  return str(tmp_path)


def test_reader_converts_to_bioes_with_labels_from_all_splits(data_dir):
  task = chunking.ChunkingTask()
  assert task.label_list(data_dir) == LABEL_LIST
  first, second = task.read_examples(data_dir, "train").examples
  assert first.words == ("He", "sat", "on", "the", "big", "mat", ".")
  assert first.tags == ("S-NP", "S-VP", "S-PP", "B-NP", "I-NP", "E-NP", "O")
  assert first.label_ids == tuple(LABEL_LIST.index(t) for t in first.tags)
  assert (second.eid, second.tags) == (1, ("S-NP", "S-VP", "S-ADJP", "O"))
  dev, = task.read_examples(data_dir, "dev").examples
  assert dev.tags == ("S-ADJP", "S-NP")


@pytest.mark.parametrize("line, message", [
    ("lonely\n", "expected 'word ... tag'"),
    ("cat NN NP_B\n", "malformed chunk tag 'NP_B'"),
])
def test_bad_lines_raise_with_file_and_line(tmp_path, line, message):
  path = write_split(tmp_path, "train", "He PRP B-NP\n" + line + "\n")
  with pytest.raises(errors.DataError, match=message) as raised:
    chunking.read_sentences(path)
  assert f"{path}:2" in str(raised.value)
  with pytest.raises(errors.DataError, match="not found"):
    chunking.read_sentences(path + ".missing")


def example_with_subwords():
  words = ("They", "playing", "unbelievable", ".")
  label_ids = (5, 7, 4, 3)
  return tag_features.TaggingExample(3, words, (), label_ids)


def test_labels_sit_on_first_sub_tokens(tokenizer):
  settings = tasks.DataSettings(max_seq_length=16)
  features, = chunking.CHUNK.featurize(example_with_subwords(), tokenizer,
                                       settings)
  expected_tokens = "[CLS] they play ##ing un ##believ ##able . [SEP]"
  assert features[feature_names.INPUT_IDS].tolist() == tokenizer.ids(
      expected_tokens) + [0] * 7
  assert features[tag_features.LABELED_POSITIONS].tolist() == [1, 2, 4, 7] + [
      0] * 12
  assert features[tag_features.LABELS_MASK].tolist() == [1.0] * 4 + [0.0] * 12
  assert features[tag_features.LABELS].tolist() == [5, 7, 4, 3] + [0] * 12
  # As the original: segment 1 on every real token.
  assert features[feature_names.SEGMENT_IDS].tolist() == [1] * 9 + [0] * 7
  assert features[feature_names.INPUT_MASK].tolist() == [1] * 9 + [0] * 7
  assert features[tasks.EXAMPLE_ID] == 3
  assert features[tag_features.LABELS_MASK].dtype == np.float32


def test_truncation_follows_the_original_rule(tokenizer):
  # 6 framed words: stops once ids + 6 + 1 > 12, i.e. before "." (at 7 ids)
  # although it would fit.
  settings = tasks.DataSettings(max_seq_length=12)
  features, = chunking.CHUNK.featurize(example_with_subwords(), tokenizer,
                                       settings)
  assert features[feature_names.INPUT_IDS].tolist() == tokenizer.ids(
      "[CLS] they play ##ing un ##believ ##able [SEP]") + [0] * 4
  assert features[tag_features.LABELED_POSITIONS].tolist()[:4] == [1, 2, 4, 0]
  assert features[tag_features.LABELS_MASK].tolist()[:4] == [1.0, 1.0, 1.0, 0.0]


def test_decode_tags_reads_the_kept_words(tokenizer):
  settings = tasks.DataSettings(max_seq_length=12)
  features, = chunking.CHUNK.featurize(example_with_subwords(), tokenizer,
                                       settings)
  predictions = np.array([0, 2, 1, 3] + [0] * 8)
  tags = tag_features.decode_tags(predictions, features[tag_features.LABELS_MASK],
                              LABEL_LIST)
  assert tags == ["B-NP", "I-NP", "E-NP"]
  assert scoring.chunk_f1([tags], [["B-NP", "I-NP", "I-NP"]])["f1"] == 1.0


def test_chunk_task_defaults():
  assert chunking.CHUNK.name == "chunk"
  assert chunking.CHUNK.settings().max_seq_length == 256
  assert chunking.CHUNK.task_type is tasks.TaskType.TAGGING


class PiecePerLetter:
  """A tokenizer splitting each word into one piece per letter."""

  def tokenize(self, word):
    return list(word)

  def convert_tokens_to_ids(self, tokens):
    return [{"[CLS]": 1, "[SEP]": 2}.get(t, 3) for t in tokens]


def test_words_of_many_pieces_never_overflow_the_sequence():
  # The original's rule (ids + words + 3 <= length) lets a 10-piece word
  # through after "ab" and would overflow length 10; the sentence is cut
  # before it instead.
  example = tag_features.TaggingExample(0, ("ab", "cdefghijkl"), ("O", "O"),
                                    (0, 0))
  features, = chunking.CHUNK.featurize(example, PiecePerLetter(),
                                       tasks.DataSettings(max_seq_length=10))
  assert features[feature_names.INPUT_IDS].tolist() == [1, 3, 3, 2] + [0] * 6
  assert features[tag_features.LABELS_MASK].tolist()[:2] == [1.0, 0.0]
  # A first word longer than the whole sequence keeps its first pieces.
  alone = tag_features.TaggingExample(0, ("abcdefghijkl",), ("O",), (0,))
  features, = chunking.CHUNK.featurize(alone, PiecePerLetter(),
                                       tasks.DataSettings(max_seq_length=10))
  assert features[feature_names.INPUT_IDS].tolist() == [1] + [3] * 8 + [2]
  assert features[tag_features.LABELS_MASK].tolist()[:2] == [1.0, 0.0]
