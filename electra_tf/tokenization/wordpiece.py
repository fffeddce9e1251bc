"""WordPiece tokenization, token-exact to the original BERT/ELECTRA.

`FullTokenizer` gives exactly the tokens of the original `FullTokenizer`:
the basic pass (`basic_tokenizer`), then greedy longest-match-first
WordPiece.
"""

from electra_tf.tokenization import basic_tokenizer
from electra_tf.tokenization import special_tokens
from electra_tf.tokenization import vocab_files

# Words longer than this many characters become [UNK] without a lookup.
MAX_CHARS_PER_WORD = 200

# Marks a WordPiece that continues a word.
CONTINUATION_PREFIX = "##"


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
    return [piece for word in basic_tokenizer.as_text(text).split()
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
    self.vocab = vocab_files.load_vocab(vocab_file)
    self.special_ids = special_tokens.SpecialTokenIds.from_vocab(
        self.vocab, source=vocab_file)
    self.inv_vocab = {index: token for token, index in self.vocab.items()}
    self.do_lower_case = do_lower_case
    self.basic_tokenizer = basic_tokenizer.BasicTokenizer(do_lower_case,
                                                          strip_accents)
    self.wordpiece_tokenizer = WordpieceTokenizer(self.vocab)

  def tokenize(self, text):
    """Returns the word pieces of `text` (str or UTF-8 bytes)."""
    return [piece for word in self.basic_tokenizer.tokenize(text)
            for piece in self.wordpiece_tokenizer.tokenize_word(word)]

  def convert_tokens_to_ids(self, tokens):
    return vocab_files.lookup(self.vocab, tokens, "token")

  def convert_ids_to_tokens(self, ids):
    return vocab_files.lookup(self.inv_vocab, ids, "id")
