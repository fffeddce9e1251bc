"""The in-graph tokenizer gives exactly FullTokenizer's ids."""

import random
import string
import sys

import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf import tokenization
from electra_tf.tokenization import tf_tokenizer

BATCH = 512


@pytest.fixture(scope="module")
def tokenizers(bert_vocab_file):
  return (tokenization.FullTokenizer(bert_vocab_file),
          tf_tokenizer.TFWordpieceTokenizer(bert_vocab_file))


def _tf_ids(tokenizer, lines):
  tokenize = tf.function(tokenizer.tokenize)
  ids = []
  for start in range(0, len(lines), BATCH):
    ids += tokenize(tf.constant(lines[start:start + BATCH])).to_list()
  return ids


def test_golden_ids_and_pieces_on_every_line(tokenizers, golden_tokens):
  _, tokenizer = tokenizers
  texts = tf.constant([record["text"] for record in golden_tokens])
  ids = tf.function(tokenizer.tokenize)(texts)
  assert ids.dtype == tf.int32
  pieces = tokenizer.tokenize_to_pieces(texts).to_list()
  for record, line_ids, line_pieces in zip(golden_tokens, ids.to_list(),
                                           pieces):
    assert line_ids == record["ids"], record["text"]
    assert [p.decode() for p in line_pieces] == record["tokens"]


def _every_code_point_lines():
  """Each code point inside and after a word, 64 per line."""
  words = [f"A{chr(cp)}b{chr(cp)}" for cp in range(1, sys.maxunicode + 1)
           if not 0xD800 <= cp <= 0xDFFF]
  return [" ".join(words[i:i + 64]) for i in range(0, len(words), 64)]


def test_every_code_point_like_full_tokenizer(tokenizers):
  full, in_graph = tokenizers
  lines = _every_code_point_lines()
  for line, ids in zip(lines, _tf_ids(in_graph, lines)):
    assert ids == full.convert_tokens_to_ids(full.tokenize(line)), ascii(line)


HARD_LINES = [
    "Café NAÏVE résumé ΟΔΟΣ. Σ İstanbul a\u2028b\u2029c",
    "tab\tnew\nline\u3000ideo\u00a0nbsp zero\u200bwidth\x00nul\ufffd\x85",
    "中文字 \uf900 $5^2`~ u.s.a. don't \u1fef ﬁne ² \u2c2f\U00010570",
    "x" * 201 + " " + "é" * 150 + " " + "x" * 200,
    "",
]


@pytest.mark.parametrize("do_lower_case", [True, False])
def test_hard_lines_like_full_tokenizer(bert_vocab_file, do_lower_case):
  full = tokenization.FullTokenizer(bert_vocab_file, do_lower_case)
  in_graph = tf_tokenizer.TFWordpieceTokenizer(bert_vocab_file, do_lower_case)
  expected = [full.convert_tokens_to_ids(full.tokenize(line))
              for line in HARD_LINES]
  assert _tf_ids(in_graph, HARD_LINES) == expected


def _random_ascii_lines(num_lines, seed):
  """Printable ASCII lines: words, runs of punctuation and digits, long
  words around the 200-character cap, any mix of cases."""
  rng = random.Random(seed)
  pieces = (string.ascii_letters, string.punctuation, string.digits, " ",
            string.printable[:95])
  lines = []
  for _ in range(num_lines):
    words = []
    for _ in range(rng.randint(0, 12)):
      alphabet = rng.choice(pieces)
      length = rng.choice([1, 2, 5, 12, 199, 200, 201])
      words.append("".join(rng.choice(alphabet) for _ in range(length)))
    lines.append(rng.choice(["", " ", "  "]).join(words))
  return lines


ASCII_LINES = [
    "", " ", "The Dogs' bark--it's LOUD!!", "u.s.a. $5^2`~ {x}[y](z) a|b\\c",
    "x" * 200, "x" * 201, "y" * 199 + "!" + "y" * 201, "  lead and trail  ",
]


@pytest.mark.parametrize("do_lower_case", [True, False])
def test_printable_ascii_lines_like_full_tokenizer(bert_vocab_file,
                                                   do_lower_case):
  # These lines take the end-to-end WordPiece road (see tf_tokenizer).
  full = tokenization.FullTokenizer(bert_vocab_file, do_lower_case)
  in_graph = tf_tokenizer.TFWordpieceTokenizer(bert_vocab_file, do_lower_case)
  lines = ASCII_LINES + _random_ascii_lines(1500, seed=do_lower_case)
  expected = [full.convert_tokens_to_ids(full.tokenize(line))
              for line in lines]
  assert _tf_ids(in_graph, lines) == expected


def test_ascii_and_other_lines_keep_their_order(tokenizers):
  full, in_graph = tokenizers
  lines = ["Plain words.", "Café au lait", "", "naïve", "more plain", "中文"]
  expected = [full.convert_tokens_to_ids(full.tokenize(line))
              for line in lines]
  for order in ([0, 1, 2, 3, 4, 5], [1, 3, 5, 0, 2, 4], [5, 4, 3, 2, 1, 0]):
    ids = in_graph.tokenize(tf.constant([lines[i] for i in order])).to_list()
    assert ids == [expected[i] for i in order]
  empty = in_graph.tokenize(tf.constant([], tf.string))
  assert empty.shape[0] == 0 and empty.flat_values.shape[0] == 0


def test_invalid_utf8_dropped_like_full_tokenizer(tokenizers):
  full, in_graph = tokenizers
  lines = [b"caf\xc3\xa9 \xff\xfeok", b"\xc3", b"ab\xed\xa0\x80cd \xf0\x9f\x98",
           b"\xc0\xafhello\xf4\x90\x80\x80world"]
  expected = [full.convert_tokens_to_ids(full.tokenize(line))
              for line in lines]
  assert _tf_ids(in_graph, lines) == expected


def test_saved_model_round_trip(tiny_vocab_file, tmp_path):
  module = tf.Module()
  module.tokenizer = tf_tokenizer.TFWordpieceTokenizer(tiny_vocab_file)
  module.serve = tf.function(
      module.tokenizer.tokenize,
      input_signature=[tf.TensorSpec([None], tf.string)])
  tf.saved_model.save(module, str(tmp_path / "model"))
  restored = tf.saved_model.load(str(tmp_path / "model"))
  ids = restored.serve(tf.constant(["The dogs sat.", "a cat ran"]))
  assert ids.to_list() == [[104, 112, 113, 106, 109], [111, 105, 114]]


def test_vocab_lacking_special_tokens_is_a_clear_error(tmp_path):
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("[PAD]\n[UNK]\nthe\n", encoding="utf-8")
  with pytest.raises(errors.DataError, match=r"\[CLS\], \[SEP\], \[MASK\]"):
    tf_tokenizer.TFWordpieceTokenizer(str(vocab))


def test_letters_tf_lower_cases_unlike_python_are_fixed(tokenizers):
  # TF 2.21's case tables lack Unicode 14's GLAGOLITIC CAPITAL LETTER CAUDATE
  # CHRIVI; str.lower() maps it to U+2C5F.
  full, in_graph = tokenizers
  words = in_graph.split_words(tf.constant(["\u2c2f"])).to_list()
  assert [w.decode() for w in words[0]] == full.basic_tokenizer.tokenize(
      "\u2c2f") == ["\u2c5f"]
