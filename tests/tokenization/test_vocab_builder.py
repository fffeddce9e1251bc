"""Learned vocabs work with our tokenizers, are deterministic and no larger
than asked (but for the reserved tokens and single characters)."""

import collections
import random

import pytest
import tensorflow as tf
from tensorflow_text.tools.wordpiece_vocab import (
    wordpiece_tokenizer_learner_lib as wordpiece_learner)

from electra_tf import errors
from electra_tf import tokenization
from electra_tf.data import corpus
from electra_tf.data import pretraining_examples
from electra_tf.data import vocab_from_corpus
from electra_tf.tokenization import line_tokenizers
from electra_tf.tokenization import vocab_learning
from electra_tf.tokenization.special_tokens import SpecialTokenIds
from tests.data.conftest import read_testdata

NUM_LINES = 200


@pytest.fixture(scope="module")
def prose_corpus():
  lines = read_testdata("data_builder", "text.txt.gz").split("\n")[:NUM_LINES]
  path = "ram://vocab_test/corpus.txt"
  with tf.io.gfile.GFile(path, "w") as f:
    f.write("\n".join(lines))
  return corpus.FileCorpus.from_patterns([path]), lines


def _read_bytes(path):
  with tf.io.gfile.GFile(path, "rb") as f:
    return f.read()


def test_wordpiece_vocab_fits_full_tokenizer(prose_corpus):
  source, lines = prose_corpus
  paths = [f"ram://vocab_test/vocab{i}.txt" for i in range(2)]
  for path in paths:
    stats = vocab_from_corpus.build_wordpiece_vocab(source, path, 500,
                                                min_count=3)
  assert stats.lines == NUM_LINES
  assert _read_bytes(paths[0]) == _read_bytes(paths[1])  # deterministic
  tokenizer = tokenization.FullTokenizer(paths[0])
  assert tokenizer.special_ids == SpecialTokenIds()  # BERT's ids
  assert tokenizer.inv_vocab[1] == "[unused0]"
  assert tokenizer.inv_vocab[99] == "[unused98]"
  assert 150 < len(tokenizer.vocab) <= 500
  # Every character of the corpus is in the vocab: no [UNK] at all.
  tokens = [t for line in lines for t in tokenizer.tokenize(line)]
  assert "[UNK]" not in tokens
  assert "the" in tokens


def test_wordpiece_learning_is_order_independent():
  counts = {"running": 30, "runner": 20, "runs": 25, "run": 40, "sun": 12}
  reordered = dict(reversed(list(counts.items())))
  assert vocab_learning.learn_wordpiece_vocab(
      counts, 150, min_count=2) == vocab_learning.learn_wordpiece_vocab(
          reordered, 150, min_count=2)


def _random_word_counts(seed, words):
  """Counts of `words` random words over ten letters (reproducible)."""
  rng = random.Random(seed)
  counts = collections.Counter()
  for _ in range(words):
    word = "".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 7)))
    counts[word] += rng.randint(1, 40)
  return counts


def test_wordpiece_vocab_is_never_larger_than_asked():
  # The learner's own search stops at 304 tokens for a target of 298 here;
  # the rarest pieces, at the end of its list, are dropped.
  counts = _random_word_counts(2, 1000)
  untrimmed = wordpiece_learner.learn(
      sorted(counts.items(), key=lambda item: (-item[1], item[0])), 298,
      list(vocab_learning.BERT_RESERVED_TOKENS), lower_thresh=2,
      max_token_length=vocab_learning.MAX_WORD_CHARS, joiner="##")
  assert len(untrimmed) == 304
  vocab = vocab_learning.learn_wordpiece_vocab(counts, 298, min_count=2)
  assert vocab == untrimmed[:298]
  for letter in "abcdefghij":
    assert letter in vocab and "##" + letter in vocab
  # 104 reserved tokens and 20 characters: all kept where 120 are asked.
  small = vocab_learning.learn_wordpiece_vocab(counts, 120, min_count=2)
  assert small[:104] == vocab_learning.BERT_RESERVED_TOKENS
  assert sorted(small[104:]) == sorted(
      list("abcdefghij") +
      ["##" + letter for letter in "abcdefghij"])


def test_wordpiece_errors():
  with pytest.raises(errors.DataError, match="empty corpus"):
    vocab_learning.learn_wordpiece_vocab({}, 200)
  with pytest.raises(errors.DataError, match="vocab_size=50"):
    vocab_learning.learn_wordpiece_vocab({"a": 1}, 50)
  vocab_learning.write_vocab(["a"], "ram://vocab_test/exists.txt")
  with pytest.raises(errors.DataError, match="exists.txt exists.*overwrite"):
    vocab_learning.write_vocab(["a"], "ram://vocab_test/exists.txt")


def test_sentencepiece_model_fits_tokenizer_and_builder(prose_corpus):
  source, lines = prose_corpus
  paths = [f"ram://vocab_test/sp{i}.model" for i in range(2)]
  for path in paths:
    vocab_from_corpus.build_sentencepiece_model(source, path, 300)
  assert _read_bytes(paths[0]) == _read_bytes(paths[1])  # deterministic
  tokenizer = tokenization.build_tokenizer(sp_model_file=paths[0])
  assert tokenizer.special_ids == SpecialTokenIds(pad=0, unk=1, cls=2, sep=3,
                                                  mask=4)
  pieces = tokenizer.tokenize("Hello [MASK] world @")
  assert pieces[-1] == "[UNK]"
  assert "[MASK]" in pieces
  assert tokenizer.convert_ids_to_tokens(
      tokenizer.convert_tokens_to_ids(pieces)) == pieces
  builder = pretraining_examples.ExampleBuilder(tokenizer, 64,
                                                random.Random(0))
  examples = list(pretraining_examples.examples_from_lines(builder, lines))
  assert examples and all(e.input_ids[0] == 2 for e in examples)
  batched = line_tokenizers.build_line_tokenizer("tensorflow",
                                                 sp_model_file=paths[0])
  assert isinstance(batched, line_tokenizers.SentencePieceLineTokenizer)
  builder = pretraining_examples.ExampleBuilder(tokenizer, 64,
                                                random.Random(0))
  assert list(pretraining_examples.examples_from_lines(
      builder, lines, line_tokenizer=batched)) == examples


def test_sentencepiece_errors(tmp_path):
  empty = tmp_path / "empty.txt"
  empty.write_text("\n\n")
  with pytest.raises(errors.DataError, match="empty corpus"):
    vocab_from_corpus.build_sentencepiece_model(
        corpus.FileCorpus.from_patterns([str(empty)]),
        str(tmp_path / "sp.model"), 100)
  with pytest.raises(errors.DataError, match="'wordpiece' is not one of"):
    vocab_learning.train_sentencepiece(["a b"], 100, model_type="wordpiece")
  with pytest.raises(errors.DataError, match="not a sentencepiece model"):
    tokenization.SentencePieceTokenizer(str(empty))
