"""Code point ranges of the character classes equal per-character tests."""

import sys
import unicodedata

import pytest

from electra_tf.tokenization import char_classes
from electra_tf.tokenization import precomputed_ranges


def _ranges_one_by_one(accepts):
  ranges = []
  for code_point in range(sys.maxunicode + 1):
    if 0xD800 <= code_point <= 0xDFFF or not accepts(chr(code_point)):
      continue
    if ranges and ranges[-1][1] == code_point - 1:
      ranges[-1][1] = code_point
    else:
      ranges.append([code_point, code_point])
  return tuple(map(tuple, ranges))


@pytest.mark.parametrize("name", ["WHITESPACE", "DROPPED", "PUNCTUATION",
                                  "NONSPACING_MARK"])
def test_class_ranges_equal_membership_of_each_character(name):
  char_class = getattr(char_classes, name)
  assert char_classes.codepoint_ranges(char_class) == _ranges_one_by_one(
      char_class.__contains__)


def test_membership_follows_the_original_definitions():
  assert all(char_classes.is_whitespace(c) for c in " \t\n\r\u00a0\u3000")
  assert not char_classes.is_whitespace("\x0b")
  assert char_classes.is_dropped("\x00") and char_classes.is_dropped("\ufffd")
  assert char_classes.is_dropped("\u200b")  # Cf
  assert char_classes.is_dropped("\U000e0000")  # unassigned (Cn)
  assert not char_classes.is_dropped("\t")
  assert char_classes.is_punctuation("$") and char_classes.is_punctuation("«")
  assert not char_classes.is_punctuation("a")
  assert char_classes.is_nonspacing_mark("\u0301")
  assert char_classes.word_separators() == frozenset(
      c for c in map(chr, range(sys.maxunicode + 1))
      if c.isspace() and (unicodedata.category(c) != "Cc" or c in "\t\n\r"))
  assert char_classes.codepoint_ranges(str.isspace) == _ranges_one_by_one(
      str.isspace)


def test_the_block_wise_scans_equal_one_character_at_a_time():
  chars = char_classes.all_chars()
  assert char_classes.changed_by_lower() == [
      char for char in chars if char.lower() != char]
  assert char_classes.word_separators() == frozenset(
      char for char in chars
      if char.isspace() and not char_classes.is_dropped(char))
  # A block holding a character that lowers to two (U+0130) takes the slow
  # path; the result is the same.
  assert "\u0130" in char_classes.changed_by_lower()


def test_the_stored_ranges_are_this_unicode_versions_computation():
  if precomputed_ranges.UNIDATA_VERSION != unicodedata.unidata_version:
    pytest.skip(f"stored for Unicode {precomputed_ranges.UNIDATA_VERSION}")
  with open(precomputed_ranges.__file__, encoding="utf-8") as f:
    assert f.read() == char_classes.precomputed_ranges_source()
  for name, compute in char_classes.IN_GRAPH_CLASSES.items():
    assert char_classes.class_ranges(name) == compute()


def test_another_unicode_version_computes_the_ranges(monkeypatch):
  monkeypatch.setitem(precomputed_ranges.RANGES, "punctuation", ((0, 0),))
  assert char_classes.class_ranges("punctuation") == ((0, 0),)
  monkeypatch.setattr(precomputed_ranges, "UNIDATA_VERSION", "0.0.0")
  assert char_classes.class_ranges("punctuation") == (
      char_classes.codepoint_ranges(char_classes.PUNCTUATION))
  assert (33, 47) in char_classes.class_ranges("punctuation")
