"""The character classes of the original BERT/ELECTRA BasicTokenizer.

Every class is defined by Python's `unicodedata` of the running interpreter,
as in the original. The Python tokenizer tests single characters with the
predicates below; the in-graph tokenizer compiles the same classes into
explicit code point ranges (`codepoint_ranges`) so that TensorFlow's own,
differently versioned Unicode tables never decide a token boundary.

Scanning every code point takes about 0.15 s, so the in-graph tokenizer's
classes are also stored, computed, in `precomputed_ranges` for one Unicode
version; `class_ranges` takes them from there only when the running
interpreter's `unicodedata` has that version.
"""

import dataclasses
import functools
import re
import sys
import unicodedata

import numpy as np

from electra_tf.tokenization import precomputed_ranges

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


def _chars_of(ranges):
  return frozenset(chr(code_point) for low, high in ranges
                   for code_point in range(low, high + 1))


@dataclasses.dataclass(frozen=True)
class CharClass:
  """Characters of some Unicode general categories, plus and minus a few.

  Attributes:
    categories: general categories ("Zs") or major classes ("P" = P*).
    added: characters in the class whatever their category.
    removed: characters never in the class (checked first).
  """
  categories: frozenset
  added: frozenset = frozenset()
  removed: frozenset = frozenset()

  def __contains__(self, char):
    if char in self.removed:
      return False
    if char in self.added:
      return True
    category = unicodedata.category(char)
    return category in self.categories or category[0] in self.categories

  def mask(self):
    """Membership of every code point of `_all_chars`, as a bool array."""
    categories = _categories()  # [C]
    wanted = [category.encode("ascii") for category in self.categories]
    member = np.isin(categories, wanted) | np.isin(
        categories.astype("S1"), wanted)  # [C]
    member[_indices(self.added)] = True
    member[_indices(self.removed)] = False
    return member


WHITESPACE = CharClass(frozenset({"Zs"}),
                       added=frozenset((" ",) + WHITESPACE_CONTROLS))
DROPPED = CharClass(frozenset({"C"}),
                    added=frozenset(map(chr, (NUL, REPLACEMENT_CHARACTER))),
                    removed=frozenset(WHITESPACE_CONTROLS))
PUNCTUATION = CharClass(frozenset({"P"}),
                        added=_chars_of(ASCII_PUNCTUATION_RANGES))
NONSPACING_MARK = CharClass(frozenset({"Mn"}))


def is_whitespace(char):
  """Space, tab, newline, carriage return or any Zs (space separator)."""
  return char in WHITESPACE


def is_dropped(char):
  """Characters text cleaning removes: NUL, U+FFFD and controls (any
  category C*, unassigned included, except tab, newline and return)."""
  return char in DROPPED


def is_punctuation(char):
  """Category P* or non-alphanumeric printable ASCII."""
  return char in PUNCTUATION


def is_cjk(char):
  """A code point of one of the `CJK_RANGES` blocks."""
  code_point = ord(char)
  return any(low <= code_point <= high for low, high in CJK_RANGES)


def is_nonspacing_mark(char):
  """Category Mn, the accents removed after NFD decomposition."""
  return char in NONSPACING_MARK


@functools.lru_cache(maxsize=None)
def word_separators():
  """Characters `str.split()` splits on that survive text cleaning.

  Besides the cleaned whitespace (all turned into " ") these are the line
  and paragraph separators (Zl, Zp), which the original leaves in the text
  yet splits words on.
  """
  chars, _ = _all_chars()
  # In a str pattern, `\s` matches exactly where `str.isspace()` is true.
  return frozenset(char for char in re.findall(r"\s", chars)
                   if char not in DROPPED)


def is_word_separator(char):
  """See `word_separators`."""
  return char in word_separators()


# Code points from here on sit 0x800 lower in `_all_chars` (no surrogates).
_SURROGATES = (0xD800, 0xDFFF)


@functools.lru_cache(maxsize=None)
def _all_chars():
  """Every code point but the surrogates (never in UTF-8): (str, int array)."""
  code_points = np.concatenate([
      np.arange(_SURROGATES[0]),
      np.arange(_SURROGATES[1] + 1, sys.maxunicode + 1)])
  chars = code_points.astype("<u4").tobytes().decode("utf-32-le")
  return chars, code_points


@functools.lru_cache(maxsize=None)
def _categories():
  """The general category of every code point of `_all_chars`, as bytes
  (b"Lu", ...). [C]"""
  chars, _ = _all_chars()
  return np.frombuffer("".join(map(unicodedata.category, chars)).encode(
      "ascii"), dtype="S2")


def _indices(chars):
  """Positions of (non-surrogate) `chars` in `_all_chars`."""
  gap = _SURROGATES[1] - _SURROGATES[0] + 1
  return np.array([ord(char) - gap * (ord(char) > _SURROGATES[1])
                   for char in chars], dtype=np.int64)


def _mask(members):
  """Bool array over `_all_chars` of a `CharClass`, a set of characters or
  a predicate (fast only when it is a builtin such as `str.isspace`)."""
  if isinstance(members, CharClass):
    return members.mask()
  chars, _ = _all_chars()
  if isinstance(members, (set, frozenset)):
    mask = np.zeros(len(chars), dtype=bool)
    mask[_indices(members)] = True
    return mask
  return np.fromiter(map(members, chars), dtype=bool, count=len(chars))


def all_chars():
  """Every Unicode character but the surrogates, in code point order."""
  return _all_chars()[0]


_LOWER_BLOCK = 4096  # characters lower-cased in one `str.lower()` call


def changed_by_lower():
  """The characters whose `str.lower()` differs from them, in code point
  order. Lower-cases blocks at once; a block where some character lowers
  to several characters is checked one character at a time."""
  chars, code_points = _all_chars()
  changed = []
  for start in range(0, len(chars), _LOWER_BLOCK):
    block = chars[start:start + _LOWER_BLOCK]
    lowered = block.lower()
    if len(lowered) != len(block):
      changed.extend(char for char in block if char.lower() != char)
      continue
    lowered_points = np.frombuffer(lowered.encode("utf-32-le"), "<u4")
    differs = lowered_points != code_points[start:start + len(block)]
    changed.extend(block[i] for i in np.flatnonzero(differs))
  return changed


def members(char_class):
  """The characters of `char_class` (see `_mask`) as a frozenset."""
  _, code_points = _all_chars()
  return frozenset(map(chr, code_points[_mask(char_class)].tolist()))


@functools.lru_cache(maxsize=None)
def codepoint_ranges(members):
  """Inclusive (low, high) code point ranges of `members` (see `_mask`)."""
  _, code_points = _all_chars()
  accepted = code_points[_mask(members)]
  if not accepted.size:
    return ()
  gaps = np.flatnonzero(np.diff(accepted) != 1)  # last index of each range
  lows = np.concatenate([accepted[:1], accepted[gaps + 1]])
  highs = np.concatenate([accepted[gaps], accepted[-1:]])
  return tuple(zip(lows.tolist(), highs.tolist()))


def regex_class(ranges):
  """An RE2 character class `[...]` matching exactly the given ranges."""
  parts = []
  for low, high in ranges:
    parts.append(f"\\x{{{low:X}}}" if low == high
                 else f"\\x{{{low:X}}}-\\x{{{high:X}}}")
  return "[" + "".join(parts) + "]"


def other_separators():
  """What the in-graph tokenizer turns into " ": whitespace and the word
  separators, other than " " itself."""
  return (members(WHITESPACE) | word_separators()) - {" "}


# The in-graph tokenizer's classes: name -> how to compute its ranges.
IN_GRAPH_CLASSES = {
    "dropped": lambda: codepoint_ranges(DROPPED),
    "separators": lambda: codepoint_ranges(other_separators()),
    "nonspacing_marks": lambda: codepoint_ranges(NONSPACING_MARK),
    "punctuation": lambda: codepoint_ranges(PUNCTUATION),
}


def class_ranges(name):
  """Code point ranges of one of `IN_GRAPH_CLASSES`: the stored ones when
  they were computed with this interpreter's Unicode version."""
  if precomputed_ranges.UNIDATA_VERSION == unicodedata.unidata_version:
    return precomputed_ranges.RANGES[name]
  return IN_GRAPH_CLASSES[name]()


_RANGES_PER_LINE = 3


def precomputed_ranges_source():
  """The source of `precomputed_ranges` for this interpreter's Unicode."""
  lines = [
      '"""Code point ranges of the in-graph tokenizer\'s character classes.',
      "",
      f"Computed from Python's unicodedata {unicodedata.unidata_version}"
      " and written by",
      "`char_classes.write_precomputed_ranges()`; do not edit.",
      "`char_classes.class_ranges` uses them only under that Unicode version.",
      '"""',
      "",
      f'UNIDATA_VERSION = "{unicodedata.unidata_version}"',
      "",
      "RANGES = {",
  ]
  for name, compute in IN_GRAPH_CLASSES.items():
    ranges = [f"({low:#x}, {high:#x})," for low, high in compute()]
    lines.append(f'    "{name}": (')
    for start in range(0, len(ranges), _RANGES_PER_LINE):
      lines.append("        " + " ".join(ranges[start:start +
                                                 _RANGES_PER_LINE]))
    lines.append("    ),")
  lines.append("}")
  return "\n".join(lines) + "\n"


def write_precomputed_ranges():
  """Rewrites `precomputed_ranges` for this interpreter's Unicode version."""
  with open(precomputed_ranges.__file__, "w", encoding="utf-8") as output:
    output.write(precomputed_ranges_source())
