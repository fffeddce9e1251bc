"""Fixtures for the finetuning tests: a small stand-in WordPiece tokenizer.

The stand-in lower-cases, splits off ASCII punctuation and applies greedy
longest-match WordPiece over `VOCAB`, like the original FullTokenizer on
plain ASCII text, so that hand-computed expectations stay readable.
"""

import string

import pytest

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = """
the a an cat dog sat on mat is hairy was born in who what when where which
year john smith leader jack ##son ##ville no it not yes this same , . ? ( )
- ' 1895 1943 japan ##ese electronics industry largest world steve ##s
paris capital of france city river seine flows through he she they play
##ing ##ed run fast slow big red un ##believ ##able and or but
""".split()
VOCAB = SPECIAL + WORDS


class StandInBasicTokenizer:
  """Lower-cases and splits on whitespace and ASCII punctuation."""

  def tokenize(self, text):
    words = []
    for word in text.lower().split():
      current = ""
      for char in word:
        if char in string.punctuation:
          words += [current] if current else []
          words.append(char)
          current = ""
        else:
          current += char
      words += [current] if current else []
    return words


class StandInTokenizer:
  """`tokenize` / `convert_tokens_to_ids` over the fixed `VOCAB`."""

  def __init__(self):
    self.vocab = {token: index for index, token in enumerate(VOCAB)}
    self.basic_tokenizer = StandInBasicTokenizer()

  def _pieces(self, word):
    pieces, start = [], 0
    while start < len(word):
      for end in range(len(word), start, -1):
        piece = ("##" if start else "") + word[start:end]
        if piece in self.vocab:
          pieces.append(piece)
          start = end
          break
      else:
        return ["[UNK]"]
    return pieces

  def tokenize(self, text):
    return [piece for word in self.basic_tokenizer.tokenize(text)
            for piece in self._pieces(word)]

  def convert_tokens_to_ids(self, tokens):
    return [self.vocab[token] for token in tokens]

  def ids(self, tokens):
    """Ids of space-separated tokens, for writing expectations."""
    return self.convert_tokens_to_ids(tokens.split())


@pytest.fixture
def tokenizer():
  return StandInTokenizer()
