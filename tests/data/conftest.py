"""Fixtures of the data-preparation tests: paths to the copied goldens."""

import gzip
import json
import os

import pytest

TESTDATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "testdata")
BERT_VOCAB = os.path.join(TESTDATA, "bert_uncased_vocab.txt")
DATA_BUILDER = os.path.join(TESTDATA, "data_builder")

# The five special tokens at their BERT ids, then a few words and pieces.
TINY_VOCAB_TOKENS = (["[PAD]"] + [f"[unused{i}]" for i in range(99)] +
                     ["[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat",
                      "on", "mat", ".", ",", "a", "dog", "##s", "ran"])


def read_testdata(*parts):
  """Text of a file under tests/testdata, gunzipped if it ends in .gz."""
  path = os.path.join(TESTDATA, *parts)
  opener = gzip.open if path.endswith(".gz") else open
  with opener(path, "rt", encoding="utf-8") as f:
    return f.read()


@pytest.fixture(scope="session")
def bert_vocab_file():
  return BERT_VOCAB


@pytest.fixture(scope="session")
def golden_tokens():
  """Records {text, tokens, ids} of the original FullTokenizer."""
  text = read_testdata("tokenization", "tokens.jsonl.gz")
  return [json.loads(line) for line in text.splitlines() if line]


@pytest.fixture()
def tiny_vocab_file(tmp_path):
  path = tmp_path / "vocab.txt"
  path.write_text("\n".join(TINY_VOCAB_TOKENS) + "\n", encoding="utf-8")
  return str(path)


@pytest.fixture(scope="session")
def golden_example_sets():
  """(text, vocab path, golden {seed, max_seq_length, examples}) per set."""
  return {
      "len128_seed3": (
          read_testdata("data_builder", "text.txt.gz"), BERT_VOCAB,
          json.loads(read_testdata("data_builder",
                                   "examples_len128_seed3.json.gz"))),
      "synthetic_len32_seed1": (
          read_testdata("data_builder", "synthetic_text.txt"),
          os.path.join(DATA_BUILDER, "synthetic_vocab.txt"),
          json.loads(read_testdata("data_builder",
                                   "synthetic_examples_len32_seed1.json"))),
  }
