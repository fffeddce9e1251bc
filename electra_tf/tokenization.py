"""WordPiece vocabulary loading and tokenization, token-exact to the original.

`FullTokenizer` gives exactly the tokens of the original BERT/ELECTRA
`FullTokenizer`: a basic pass (text cleaning, CJK splitting, lower-casing and
accent stripping, punctuation splitting) then greedy longest-match-first
WordPiece. `SentencePieceTokenizer` offers the same methods over a
SentencePiece model. All file reads go through `tf.io.gfile`.
"""

import collections
import unicodedata

import sentencepiece
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import char_classes
from electra_tf.data import special_tokens

# Words longer than this many characters become [UNK] without a lookup.
MAX_CHARS_PER_WORD = 200

# Marks a WordPiece that continues a word.
CONTINUATION_PREFIX = "##"


def load_vocab(vocab_file):
  """Reads a vocab file (one token per line) into an ordered token -> id dict.

  As in the original, ids are line numbers, surrounding whitespace is
  stripped, and a token listed twice keeps its last line number.
  """
  if not tf.io.gfile.exists(vocab_file):
    raise errors.DataError(f"vocab file not found: {vocab_file}")
  with tf.io.gfile.GFile(vocab_file, "rb") as f:
    data = f.read()
  # Lines end at "\n" only, as a gfile line reader splits them.
  lines = data.split(b"\n")
  if lines[-1] == b"":
    lines.pop()
  return collections.OrderedDict(
      (line.decode("utf-8", errors="replace").strip(), index)
      for index, line in enumerate(lines))


def _as_text(text):
  """Decodes bytes as the original did: UTF-8, dropping invalid bytes."""
  if isinstance(text, bytes):
    return text.decode("utf-8", errors="ignore")
  if isinstance(text, str):
    return text
  raise TypeError(f"expected str or bytes, got {type(text).__name__}")


def clean_text(text):
  """Drops NUL, U+FFFD and controls; turns every whitespace into " "."""
  return "".join(" " if char_classes.is_whitespace(char) else char
                 for char in text if not char_classes.is_dropped(char))


def space_cjk_chars(text):
  """Surrounds each CJK ideograph with spaces so it becomes its own word."""
  return "".join(f" {char} " if char_classes.is_cjk(char) else char
                 for char in text)


def strip_accents(text):
  """NFD-decomposes `text` and removes the nonspacing marks (Mn)."""
  return "".join(char for char in unicodedata.normalize("NFD", text)
                 if not char_classes.is_nonspacing_mark(char))


def split_punctuation(word):
  """Splits `word` so every punctuation character is a word of its own."""
  pieces = []
  continues_piece = False
  for char in word:
    if char_classes.is_punctuation(char):
      pieces.append(char)
      continues_piece = False
    elif continues_piece:
      pieces[-1] += char
    else:
      pieces.append(char)
      continues_piece = True
  return pieces


class BasicTokenizer:
  """Splits text into words and punctuation, optionally lower-cased.

  Lower-casing is `str.lower()` per whitespace-separated word followed, when
  `strip_accents`, by NFD decomposition without nonspacing marks. With
  `do_lower_case=False` the original strips no accents either.
  """

  def __init__(self, do_lower_case=True, strip_accents=True):
    self.do_lower_case = do_lower_case
    self.strip_accents = strip_accents

  def tokenize(self, text):
    """Returns the list of words of `text` (str or UTF-8 bytes)."""
    text = space_cjk_chars(clean_text(_as_text(text)))
    words = []
    for word in text.split():
      if self.do_lower_case:
        word = word.lower()
        if self.strip_accents:
          word = strip_accents(word)
      words.extend(split_punctuation(word))
    # Accent stripping can empty a word or expose a separator: split again.
    return " ".join(words).split()


class WordpieceTokenizer:
  """Greedy longest-match-first WordPiece over a token -> id vocab.

  A word longer than `max_chars_per_word` characters, or with a remainder
  that no vocab entry prefixes, becomes the single token `unk_token`.
  """

  def __init__(self, vocab, unk_token=special_tokens.UNK,
               max_chars_per_word=MAX_CHARS_PER_WORD):
    self.vocab = vocab
    self.unk_token = unk_token
    self.max_chars_per_word = max_chars_per_word

  def tokenize_word(self, word):
    """Returns the word pieces of one word."""
    if len(word) > self.max_chars_per_word:
      return [self.unk_token]
    pieces = []
    start = 0
    while start < len(word):
      for end in range(len(word), start, -1):
        piece = word[start:end]
        if start > 0:
          piece = CONTINUATION_PREFIX + piece
        if piece in self.vocab:
          pieces.append(piece)
          start = end
          break
      else:
        return [self.unk_token]
    return pieces

  def tokenize(self, text):
    """Returns the word pieces of whitespace-separated words."""
    return [piece for word in _as_text(text).split()
            for piece in self.tokenize_word(word)]


class FullTokenizer:
  """The original BERT/ELECTRA tokenizer: basic split, then WordPiece.

  Args:
    vocab_file: WordPiece vocab, one token per line (any gfile path).
    do_lower_case: lower-case (and strip accents) before WordPiece.
    strip_accents: with `do_lower_case`, remove accents after NFD.

  Raises:
    DataError: if the vocab file is missing or lacks a special token.

  >>> import tensorflow as tf
  >>> with tf.io.gfile.GFile("ram://doc_vocab.txt", "w") as f:
  ...   _ = f.write("\\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
  ...                          "hello", "world", "##s", "!"]))
  >>> tokenizer = FullTokenizer("ram://doc_vocab.txt")
  >>> tokenizer.tokenize("Hello, WORLDS!")
  ['hello', '[UNK]', 'world', '##s', '!']
  >>> tokenizer.convert_tokens_to_ids(["world", "##s"])
  [6, 7]
  """

  def __init__(self, vocab_file, do_lower_case=True, strip_accents=True):
    self.vocab = load_vocab(vocab_file)
    self.special_ids = special_tokens.SpecialTokenIds.from_vocab(
        self.vocab, source=vocab_file)
    self.inv_vocab = {index: token for token, index in self.vocab.items()}
    self.do_lower_case = do_lower_case
    self.basic_tokenizer = BasicTokenizer(do_lower_case, strip_accents)
    self.wordpiece_tokenizer = WordpieceTokenizer(self.vocab)

  def tokenize(self, text):
    """Returns the word pieces of `text` (str or UTF-8 bytes)."""
    return [piece for word in self.basic_tokenizer.tokenize(text)
            for piece in self.wordpiece_tokenizer.tokenize_word(word)]

  def convert_tokens_to_ids(self, tokens):
    return _convert(self.vocab, tokens, "token")

  def convert_ids_to_tokens(self, ids):
    return _convert(self.inv_vocab, ids, "id")


def _convert(mapping, items, kind):
  """Maps each item through `mapping`; names the first unknown one."""
  try:
    return [mapping[item] for item in items]
  except KeyError as e:
    raise errors.DataError(f"{kind} {e.args[0]!r} is not in the vocab") from e


class SentencePieceTokenizer:
  """A SentencePiece model behind the `FullTokenizer` methods.

  The model's pieces are its vocab (piece -> id); it must define the
  special tokens [PAD], [UNK], [CLS], [SEP] and [MASK] (as `build_vocab`'s
  SentencePiece models do). The model file is read through gfile.

  Args:
    model_file: a serialized SentencePiece `ModelProto` (`*.model`).
  """

  def __init__(self, model_file):
    if not tf.io.gfile.exists(model_file):
      raise errors.DataError(f"sentencepiece model not found: {model_file}")
    with tf.io.gfile.GFile(model_file, "rb") as f:
      model_proto = f.read()
    try:
      self.processor = sentencepiece.SentencePieceProcessor(
          model_proto=model_proto)
    except RuntimeError as e:
      raise errors.DataError(
          f"not a sentencepiece model: {model_file} ({e})") from e
    self.vocab = collections.OrderedDict(
        (self.processor.id_to_piece(index), index)
        for index in range(self.processor.get_piece_size()))
    self.inv_vocab = {index: piece for piece, index in self.vocab.items()}
    self.special_ids = special_tokens.SpecialTokenIds.from_vocab(
        self.vocab, source=model_file)

  def tokenize(self, text):
    """Returns the pieces of `text`; text outside the vocab becomes [UNK]."""
    ids = self.processor.encode(_as_text(text), out_type=int)
    return [self.inv_vocab[index] for index in ids]

  def convert_tokens_to_ids(self, tokens):
    return _convert(self.vocab, tokens, "piece")

  def convert_ids_to_tokens(self, ids):
    return _convert(self.inv_vocab, ids, "id")


def build_tokenizer(vocab_file=None, sp_model_file=None, do_lower_case=True):
  """A `FullTokenizer` for `vocab_file` or a `SentencePieceTokenizer`.

  Raises:
    DataError: unless exactly one of the two files is given.
  """
  if (vocab_file is None) == (sp_model_file is None):
    raise errors.DataError(
        "give exactly one of vocab_file (WordPiece) and sp_model_file "
        f"(SentencePiece); got vocab_file={vocab_file!r}, "
        f"sp_model_file={sp_model_file!r}")
  if sp_model_file is not None:
    return SentencePieceTokenizer(sp_model_file)
  return FullTokenizer(vocab_file, do_lower_case=do_lower_case)
