"""FullTokenizer and SentencePieceTokenizer against the original's output."""

import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf import tokenization


@pytest.fixture(scope="module")
def bert_tokenizer(bert_vocab_file):
  return tokenization.FullTokenizer(bert_vocab_file)


def test_golden_tokens_and_ids_on_every_line(bert_tokenizer, golden_tokens):
  assert len(golden_tokens) == 1387
  for record in golden_tokens:
    tokens = bert_tokenizer.tokenize(record["text"])
    assert tokens == record["tokens"], record["text"]
    assert bert_tokenizer.convert_tokens_to_ids(tokens) == record["ids"]
    assert bert_tokenizer.convert_ids_to_tokens(record["ids"]) == tokens


# Words of the original BasicTokenizer on hard inputs.
ORIGINAL_WORDS = [
    ("Café NAÏVE résumé", ["cafe", "naive", "resume"]),
    ("ΟΔΟΣ. Σ", ["\u03bf\u03b4\u03bf\u03c2", ".", "\u03c3"]),  # final sigma
    ("İstanbul", ["istanbul"]),  # İ lower-cases to i + U+0307, stripped
    ("a\u2028b\u2029c", ["a", "b", "c"]),  # Zl/Zp survive cleaning, yet split
    ("tab\tnew\nline\u3000ideo\u00a0nbsp",
     ["tab", "new", "line", "ideo", "nbsp"]),
    ("zero\u200bwidth\x00nul\ufffdrepl\x85", ["zerowidthnulrepl"]),
    ("中文字", ["中", "文", "字"]),
    ("\uf900", ["\u8c48"]),  # CJK compatibility ideograph, then NFD
    ("$5^2`~", ["$", "5", "^", "2", "`", "~"]),
    ("u.s.a. don't", ["u", ".", "s", ".", "a", ".", "don", "'", "t"]),
    ("\u1fef", ["`"]),  # GREEK VARIA decomposes to the ASCII grave accent
    ("ﬁne ²", ["ﬁne", "²"]),  # no NFKC folding: the ligature is no "fi"
    ("", []),
]


@pytest.mark.parametrize("text,expected", ORIGINAL_WORDS)
def test_original_basic_words_on_hard_inputs(bert_tokenizer, text, expected):
  assert bert_tokenizer.basic_tokenizer.tokenize(text) == expected


def test_original_word_pieces(bert_tokenizer):
  assert bert_tokenizer.tokenize("ﬁne ² unaffable İstanbul") == [
      "ﬁ", "##ne", "²", "una", "##ffa", "##ble", "istanbul"]
  assert bert_tokenizer.tokenize("x" * 201 + " " + "x" * 200) == [
      "[UNK]", "xx"] + ["##xx"] * 99


def test_bytes_are_decoded_dropping_invalid_utf8(bert_tokenizer):
  assert bert_tokenizer.tokenize(b"caf\xc3\xa9 \xff\xfeok") == ["cafe", "ok"]


def test_no_lower_case_keeps_case_and_accents(tiny_vocab_file):
  tokenizer = tokenization.FullTokenizer(tiny_vocab_file, do_lower_case=False)
  assert tokenizer.tokenize("The cat sat.") == ["[UNK]", "cat", "sat", "."]
  assert tokenizer.basic_tokenizer.tokenize("Café") == ["Café"]


def test_wordpiece_of_an_unmatchable_word_is_one_unk(tiny_vocab_file):
  tokenizer = tokenization.FullTokenizer(tiny_vocab_file)
  assert tokenizer.tokenize("dogs catz") == ["dog", "##s", "[UNK]"]


def test_vocab_lacking_unk_is_a_clear_error(tmp_path):
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("[PAD]\n[CLS]\n[SEP]\n[MASK]\nthe\n", encoding="utf-8")
  with pytest.raises(errors.DataError, match=r"vocab\.txt lacks .*\[UNK\]"):
    tokenization.FullTokenizer(str(vocab))


def test_missing_vocab_file_is_named(tmp_path):
  with pytest.raises(errors.DataError, match="nothere.txt"):
    tokenization.FullTokenizer(str(tmp_path / "nothere.txt"))


def test_unknown_token_conversion_names_it(tiny_vocab_file):
  tokenizer = tokenization.FullTokenizer(tiny_vocab_file)
  with pytest.raises(errors.DataError, match="'zebra'"):
    tokenizer.convert_tokens_to_ids(["zebra"])


def test_vocab_read_from_ram_path(tiny_vocab_file):
  with open(tiny_vocab_file, "rb") as f:
    content = f.read()
  with tf.io.gfile.GFile("ram://tokenization_test/vocab.txt", "wb") as f:
    f.write(content)
  tokenizer = tokenization.FullTokenizer("ram://tokenization_test/vocab.txt")
  assert tokenizer.convert_tokens_to_ids(tokenizer.tokenize("The dogs")) == [
      104, 112, 113]


def test_build_tokenizer_needs_exactly_one_file(tiny_vocab_file):
  assert isinstance(tokenization.build_tokenizer(vocab_file=tiny_vocab_file),
                    tokenization.FullTokenizer)
  with pytest.raises(errors.DataError, match="exactly one"):
    tokenization.build_tokenizer()
  with pytest.raises(errors.DataError, match="exactly one"):
    tokenization.build_tokenizer(tiny_vocab_file, "model.spm")


@pytest.mark.parametrize("ending", ["", "\n"])
def test_load_vocab_numbers_lines_like_a_line_reader(tmp_path, ending):
  path = tmp_path / "vocab.txt"
  path.write_bytes(("[PAD]\r\n  cat \n\ndog\ncat\n\xff" + ending).encode(
      "latin-1"))
  vocab = tokenization.load_vocab(str(path))
  # Stripped tokens, the empty line kept, a repeated token at its last line.
  assert dict(vocab) == {"[PAD]": 0, "cat": 4, "": 2, "dog": 3, "\ufffd": 5}
  assert list(vocab) == ["[PAD]", "cat", "", "dog", "\ufffd"]
