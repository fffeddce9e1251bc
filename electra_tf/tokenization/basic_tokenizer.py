"""The original BasicTokenizer: text cleaning, CJK splitting, lower-casing
and accent stripping, punctuation splitting."""

import unicodedata

from electra_tf.tokenization import char_classes


def as_text(text):
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
    text = space_cjk_chars(clean_text(as_text(text)))
    words = []
    for word in text.split():
      if self.do_lower_case:
        word = word.lower()
        if self.strip_accents:
          word = strip_accents(word)
      words.extend(split_punctuation(word))
    # Accent stripping can empty a word or expose a separator: split again.
    return " ".join(words).split()
