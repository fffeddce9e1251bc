"""The character classes of the original BERT/ELECTRA BasicTokenizer.

Every class is defined by Python's `unicodedata` of the running interpreter,
as in the original. The Python tokenizer tests single characters with the
predicates below; the in-graph tokenizer compiles the same classes into
explicit code point ranges (`codepoint_ranges`) so that TensorFlow's own,
differently versioned Unicode tables never decide a token boundary.
"""

import functools
import sys
import unicodedata

# Tab, newline and carriage return have category Cc but count as whitespace.
WHITESPACE_CONTROLS = ("\t", "\n", "\r")

# Code points dropped outright by text cleaning besides the controls.
NUL = 0
REPLACEMENT_CHARACTER = 0xFFFD

# Code points treated as one-character words, as the original's "Chinese
# characters": the CJK Unified Ideographs blocks and their compatibility
# blocks (but not Hangul, Hiragana or Katakana).
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)

# Non-alphanumeric printable ASCII, punctuation whatever its Unicode category
# (so "$", "^", "`", "+", "<" ... split words too).
ASCII_PUNCTUATION_RANGES = ((33, 47), (58, 64), (91, 96), (123, 126))


def is_whitespace(char):
  """Space, tab, newline, carriage return or any Zs (space separator)."""
  return char in (" ",) + WHITESPACE_CONTROLS or (
      unicodedata.category(char) == "Zs")


def is_control(char):
  """Any category C* (incl. unassigned) except tab, newline, return."""
  if char in WHITESPACE_CONTROLS:
    return False
  return unicodedata.category(char).startswith("C")


def is_dropped(char):
  """Characters text cleaning removes: NUL, U+FFFD and controls."""
  return ord(char) in (NUL, REPLACEMENT_CHARACTER) or is_control(char)


def is_punctuation(char):
  """Category P* or non-alphanumeric printable ASCII."""
  code_point = ord(char)
  if any(low <= code_point <= high for low, high in ASCII_PUNCTUATION_RANGES):
    return True
  return unicodedata.category(char).startswith("P")


def is_cjk(char):
  """A code point of one of the `CJK_RANGES` blocks."""
  code_point = ord(char)
  return any(low <= code_point <= high for low, high in CJK_RANGES)


def is_nonspacing_mark(char):
  """Category Mn, the accents removed after NFD decomposition."""
  return unicodedata.category(char) == "Mn"


def is_word_separator(char):
  """A character `str.split()` splits on that survives text cleaning.

  Besides the cleaned whitespace (all turned into " ") these are the line
  and paragraph separators (Zl, Zp), which the original leaves in the text
  yet splits words on.
  """
  return char.isspace() and not is_dropped(char)


def _all_code_points():
  for code_point in range(sys.maxunicode + 1):
    if not 0xD800 <= code_point <= 0xDFFF:  # surrogates never occur in UTF-8
      yield code_point


@functools.lru_cache(maxsize=None)
def codepoint_ranges(predicate):
  """Inclusive (low, high) code point ranges of the characters `predicate` accepts."""
  ranges = []
  for code_point in _all_code_points():
    if not predicate(chr(code_point)):
      continue
    if ranges and ranges[-1][1] == code_point - 1:
      ranges[-1][1] = code_point
    else:
      ranges.append([code_point, code_point])
  return tuple((low, high) for low, high in ranges)


def regex_class(ranges):
  """An RE2 character class `[...]` matching exactly the given ranges."""
  parts = []
  for low, high in ranges:
    parts.append(f"\\x{{{low:X}}}" if low == high
                 else f"\\x{{{low:X}}}-\\x{{{high:X}}}")
  return "[" + "".join(parts) + "]"
