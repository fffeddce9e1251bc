"""Batched line tokenizers give the builder the same ids and examples."""

import random

import pytest

from electra_tf import errors
from electra_tf import tokenization
from electra_tf.data import pretraining_examples
from electra_tf.tokenization import line_tokenizers


def _examples(text, vocab_file, line_tokenizer):
  builder = pretraining_examples.ExampleBuilder(
      tokenization.FullTokenizer(vocab_file), 64, random.Random(11))
  return list(pretraining_examples.examples_from_lines(
      builder, text.split("\n"), line_tokenizer=line_tokenizer))


def test_batches_give_the_per_line_examples(golden_example_sets):
  text, vocab_file, _ = golden_example_sets["len128_seed3"]
  fast = line_tokenizers.TensorFlowLineTokenizer(vocab_file)
  # Small, uneven batches: documents and examples straddle batch boundaries.
  fast.batch_lines, fast.batch_chars = 7, 900
  expected = _examples(text, vocab_file, None)
  assert len(expected) > 200
  assert _examples(text, vocab_file, fast) == expected
  python = line_tokenizers.build_line_tokenizer("python", vocab_file)
  assert _examples(text, vocab_file, python) == expected


def test_ids_equal_full_tokenizer_with_a_token_listed_twice(tmp_path):
  vocab_file = tmp_path / "vocab.txt"
  vocab_file.write_text("\n".join(
      ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "cat", "##s", "dog",
       "cat"]), encoding="utf-8")
  lines = ["Cats and dogs", "cat", "", "DOG cat's"]
  full = tokenization.FullTokenizer(str(vocab_file))
  expected = [full.convert_tokens_to_ids(full.tokenize(line))
              for line in lines]
  assert expected[1] == [8]  # the last line number of "cat"
  fast = line_tokenizers.build_line_tokenizer("tensorflow", str(vocab_file))
  assert fast(lines) == expected
  assert fast([]) == []


def test_lines_holding_line_breaks_keep_their_rows(bert_vocab_file):
  # Batches normally cross into TensorFlow as one text split at "\n"; a
  # line that holds one must still give one row.
  full = tokenization.FullTokenizer(bert_vocab_file)
  fast = line_tokenizers.TensorFlowLineTokenizer(bert_vocab_file)
  for lines in (["two\nlines", "one"], ["", "a", ""], ["x\n", "\n"],
                ["Café", "plain"]):
    expected = [full.convert_tokens_to_ids(full.tokenize(line))
                for line in lines]
    assert fast(lines) == expected, lines


def test_unknown_kind_is_named(tmp_path):
  with pytest.raises(errors.DataError, match="unknown tokenizer 'fast'"):
    line_tokenizers.build_line_tokenizer("fast", str(tmp_path / "v.txt"))
