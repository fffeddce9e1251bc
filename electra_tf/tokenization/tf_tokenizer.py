"""An in-graph WordPiece tokenizer with exactly `FullTokenizer`'s output.

tensorflow-text's `BasicTokenizer` differs from the original Python one in
ways that change tokens: it case-folds with NFKC (so "ﬁ" -> "fi", "²" -> "2"),
judges whitespace, controls, punctuation and accents with its own Unicode
tables, and caps words by bytes rather than characters. This module rebuilds
the basic pass from `tf.strings` ops instead, with every character class
compiled from Python's `unicodedata` (`char_classes`), and keeps only
tensorflow-text's `FastWordpieceTokenizer` (on words already split, it
gives the original's greedy longest-match-first pieces) and NFD normalizer:

1. invalid UTF-8 -> U+FFFD (then dropped, as the original's "ignore" decode);
2. drop NUL, U+FFFD and controls; whitespace, line/paragraph separators -> " ";
3. surround CJK ideographs with spaces;
4. lower-case: `tf.strings.lower` (full mapping with final sigma, as
   `str.lower`), after mapping the characters whose lower case TF's older
   tables lack to Python's lower case;
5. NFD, then drop nonspacing marks (Mn);
6. surround punctuation with spaces, split on spaces;
7. words longer than 200 characters -> [UNK]; WordPiece the rest.

A line of printable ASCII alone (most lines of English text) takes a
shorter road with the same result: ASCII lower case, then tensorflow-text's
end-to-end `FastWordpieceTokenizer`, which splits on whitespace and on
BERT's punctuation itself (for ASCII, the original's classes: space, and
the 32 symbols in 33-47, 58-64, 91-96 and 123-126) and caps words at 200
bytes, which are 200 ASCII characters.

The tests check equality with `FullTokenizer` on every Unicode code point,
on invalid UTF-8 and on the golden text. Known residual difference: none.
tensorflow-text's NFD tables may be newer than Python's, which only matters
for code points Python thinks unassigned, and those are dropped (category
Cn) before normalization, as in the original.

Shape legend: B batch of strings, W words, T word pieces.
"""

import functools

import numpy as np
import tensorflow as tf
import tensorflow_text as tf_text

from electra_tf.tokenization import char_classes
from electra_tf.tokenization import special_tokens
from electra_tf.tokenization import vocab_files
from electra_tf.tokenization import wordpiece

# Upper bound on the UTF-8 bytes of a word of MAX_CHARS_PER_WORD characters;
# longer words are replaced by [UNK] before tensorflow-text sees them.
MAX_BYTES_PER_CHAR = 4
UTF8 = "UTF-8"  # spelling of tf.strings.unicode_* ops
LOWER_UTF8 = "utf-8"  # spelling of tf.strings.lower
PRINTABLE_ASCII = "[ -~]*"  # RE2: a string of U+0020 .. U+007E only


@functools.lru_cache(maxsize=None)
def _lowercase_fixes():
  """Characters TF lower-cases unlike `str.lower()`, as code point pairs.

  TensorFlow's case tables predate Python's for some recent letters. Returns
  (keys, values): the code points and their Python lower case. The only
  multi-character lower case (U+0130) and final sigma agree already; the
  every-code-point test guards both.
  """
  changed = char_classes.changed_by_lower()
  # Characters that lower-case to one other character and survive cleaning.
  candidates = [char for char in changed if len(char.lower()) == 1 and
                not char_classes.is_dropped(char)]
  with tf.init_scope():
    tf_lowered = tf.strings.lower(candidates, encoding=LOWER_UTF8).numpy()
  keys, values = [], []
  for char, lowered in zip(candidates, tf_lowered):
    if lowered.decode("utf-8") != char.lower():
      keys.append(ord(char))
      values.append(ord(char.lower()))
  return tuple(keys), tuple(values)


def _wordpiece_vocab(id_to_token):
  """The vocab as the id-ordered list tensorflow-text expects.

  An id that no token maps to (the earlier line of a token listed twice)
  gets a placeholder with a space: words never hold one, so it never
  matches, and the token keeps its last line number as in `load_vocab`.
  """
  return [token or f" unused {index}" for index, token in
          enumerate(id_to_token)]


def _fast_wordpiece(vocab_list, max_bytes_per_word, no_pretokenization):
  """tensorflow-text's `FastWordpieceTokenizer` with int32 ids.

  The model is handed over as a uint8 tensor made from its bytes at once
  (given the vocab, the class would convert them through a list of ints).
  """
  model = tf_text.build_fast_wordpiece_model(
      vocab_list, max_bytes_per_word, wordpiece.CONTINUATION_PREFIX,
      special_tokens.UNK, no_pretokenization, False)  # no detokenization
  return tf_text.FastWordpieceTokenizer(
      model_buffer=tf.constant(np.frombuffer(model, np.uint8)),
      token_out_type=tf.int32)


class TFWordpieceTokenizer(tf.Module):
  """`FullTokenizer` as TensorFlow ops, usable inside `tf.function`.

  Args:
    vocab_file: WordPiece vocab, one token per line (any gfile path).
    do_lower_case: lower-case and strip accents, as `FullTokenizer`.
    strip_accents: with `do_lower_case`, remove accents after NFD.

  >>> import tensorflow as tf
  >>> with tf.io.gfile.GFile("ram://tf_doc_vocab.txt", "w") as f:
  ...   _ = f.write("\\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
  ...                          "cafe", "world", "##s", "!"]))
  >>> tokenizer = TFWordpieceTokenizer("ram://tf_doc_vocab.txt")
  >>> tokenizer.tokenize(tf.constant(["Café WORLDS!", ""])).to_list()
  [[5, 6, 7, 8], []]
  """

  def __init__(self, vocab_file, do_lower_case=True, strip_accents=True,
               name=None):
    super().__init__(name=name)
    vocab = vocab_files.load_vocab(vocab_file)
    special_tokens.SpecialTokenIds.from_vocab(vocab, source=vocab_file)
    self.do_lower_case = do_lower_case
    self.strip_accents = do_lower_case and strip_accents
    id_to_token = [""] * (max(vocab.values()) + 1)
    for token, index in vocab.items():
      id_to_token[index] = token
    self._vocab_tokens = np.array(id_to_token, dtype=object)  # [V]
    vocab_list = _wordpiece_vocab(id_to_token)
    self._wordpiece = _fast_wordpiece(
        vocab_list, wordpiece.MAX_CHARS_PER_WORD * MAX_BYTES_PER_CHAR,
        no_pretokenization=True)
    # Splits the words of printable-ASCII lines itself (see the docstring).
    self._ascii_wordpiece = _fast_wordpiece(
        vocab_list, wordpiece.MAX_CHARS_PER_WORD, no_pretokenization=False)
    self._compile_patterns()

  def _compile_patterns(self):
    """RE2 classes of the original's character classes, from `unicodedata`."""
    def pattern(name):
      return char_classes.regex_class(char_classes.class_ranges(name))
    self._dropped = pattern("dropped")
    self._separators = pattern("separators")
    self._cjk = char_classes.regex_class(char_classes.CJK_RANGES)
    self._marks = pattern("nonspacing_marks")
    self._punctuation = pattern("punctuation")
    self._lower_fixes = None
    if self.do_lower_case:
      keys, values = _lowercase_fixes()
      if keys:
        self._lower_fixes = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                keys, values, key_dtype=tf.int32, value_dtype=tf.int32),
            default_value=-1)
        self._needs_lower_fix = "(?s).*{}.*".format(char_classes.regex_class(
            [(key, key) for key in keys]))

  def _fix_lower_case(self, strings):
    """Maps the characters TF lower-cases unlike Python. [F] -> [F]."""
    code_points = tf.strings.unicode_decode(strings, UTF8)  # [F, (chars)]
    flat = code_points.flat_values  # [sum(chars)]
    fixed = self._lower_fixes.lookup(flat)
    return tf.strings.unicode_encode(
        code_points.with_flat_values(tf.where(fixed >= 0, fixed, flat)), UTF8)

  def _lower(self, strings):
    """`str.lower()` of each string. [B] -> [B]."""
    if self._lower_fixes is not None:
      # The fixes are rare letters and decoding is slow: decode only the
      # strings that hold one.
      needs_fix = tf.where(tf.strings.regex_full_match(
          strings, self._needs_lower_fix))  # [F, 1]
      strings = tf.tensor_scatter_nd_update(
          strings, needs_fix,
          self._fix_lower_case(tf.gather_nd(strings, needs_fix)))
    return tf.strings.lower(strings, encoding=LOWER_UTF8)

  def split_words(self, strings, valid_utf8=False):
    """The original BasicTokenizer's words. [B] string -> [B, (W)] string.

    `valid_utf8=True` promises valid UTF-8 (as from Python `str`s) and skips
    the replacement of invalid bytes.
    """
    strings = self._valid(strings, valid_utf8)
    # A string of printable ASCII (most lines of English text) has nothing
    # to drop, no separator but " ", no CJK, no accent and an ASCII lower
    # case: only the strings with another character take those steps.
    others = tf.where(~tf.strings.regex_full_match(
        strings, PRINTABLE_ASCII))  # [N, 1]
    cleaned = self._clean(tf.gather_nd(strings, others))  # [N]
    if self.do_lower_case:
      strings = tf.strings.lower(strings)  # ASCII letters only
    strings = tf.tensor_scatter_nd_update(strings, others, cleaned)
    return self._split_on_punctuation(strings)  # [B, (W)]

  def _valid(self, strings, valid_utf8):
    """Invalid UTF-8 replaced by U+FFFD, unless `valid_utf8` promises none."""
    if valid_utf8:
      return strings
    return tf.strings.unicode_transcode(
        strings, UTF8, UTF8, errors="replace",
        replacement_char=char_classes.REPLACEMENT_CHARACTER)

  def _split_on_punctuation(self, strings):
    """Cleaned strings [B] -> words [B, (W)], punctuation apart."""
    strings = tf.strings.regex_replace(
        strings, f"({self._punctuation})", r" \1 ")
    return tf.strings.split(strings)

  def _clean(self, strings):
    """Text cleaning, CJK spacing, lower case and accent stripping. [N]"""
    strings = tf.strings.regex_replace(strings, self._dropped, "")
    strings = tf.strings.regex_replace(strings, self._separators, " ")
    strings = tf.strings.regex_replace(strings, f"({self._cjk})", r" \1 ")
    if self.do_lower_case:
      strings = self._lower(strings)
    if self.strip_accents:
      strings = tf_text.normalize_utf8(strings, "NFD")
      strings = tf.strings.regex_replace(strings, self._marks, "")
    return strings

  def tokenize(self, strings, valid_utf8=False):
    """Word-piece ids. `strings` [B] tf.string -> int32 RaggedTensor [B, (T)].

    `valid_utf8`: see `split_words`.
    """
    is_ascii = tf.strings.regex_full_match(strings, PRINTABLE_ASCII)  # [B]
    ascii_rows = tf.where(is_ascii)[:, 0]  # [A]
    other_rows = tf.where(~is_ascii)[:, 0]  # [B - A]
    ascii_strings = tf.gather(strings, ascii_rows)
    if self.do_lower_case:
      ascii_strings = tf.strings.lower(ascii_strings)  # ASCII letters only
    ascii_ids = self._ascii_wordpiece.tokenize(ascii_strings)  # [A, (T)]
    other_ids = self._tokenize_words(tf.gather(strings, other_rows),
                                     valid_utf8)  # [B - A, (T)]
    ids = tf.concat([ascii_ids, other_ids], axis=0)  # rows in that order
    # Row i of the result is row rank[i] of `ids`.
    rank = tf.math.invert_permutation(tf.concat([ascii_rows, other_rows], 0))
    return tf.gather(ids, rank)  # [B, (T)]

  def _tokenize_words(self, strings, valid_utf8):
    """`tokenize` of strings that are not printable ASCII: `split_words`
    without its ASCII test, which all of them fail (an invalid byte becomes
    U+FFFD, not ASCII either). [N] -> [N, (T)]."""
    words = self._split_on_punctuation(
        self._clean(self._valid(strings, valid_utf8)))  # [N, (W)]
    word_strings = words.flat_values  # [sum(W)]
    too_long = tf.where(tf.strings.length(word_strings, unit="UTF8_CHAR") >
                        wordpiece.MAX_CHARS_PER_WORD)  # [U, 1]
    word_strings = tf.tensor_scatter_nd_update(
        word_strings, too_long,
        tf.fill(tf.shape(too_long)[:1], special_tokens.UNK))
    ids = self._wordpiece.tokenize(word_strings)  # [sum(W), (pieces)]
    word_ends = tf.gather(ids.row_splits, words.row_splits)  # [N + 1]
    return tf.RaggedTensor.from_row_splits(ids.values, word_ends,
                                           validate=False)  # [N, (T)]

  @functools.cached_property
  def _id_to_token(self):
    """The vocab as a string tensor [V], made on first use (eagerly, also
    when first asked for inside a `tf.function`)."""
    with tf.init_scope():
      return tf.constant(self._vocab_tokens)

  def ids_to_tokens(self, ids):
    """Vocab strings of `ids` (any shape, ragged or not)."""
    if isinstance(ids, tf.RaggedTensor):
      return ids.with_flat_values(self.ids_to_tokens(ids.flat_values))
    return tf.gather(self._id_to_token, ids)

  def tokenize_to_pieces(self, strings):
    """Word-piece strings. [B] tf.string -> string RaggedTensor [B, (T)]."""
    return self.ids_to_tokens(self.tokenize(strings))
