"""Converting between per-word chunk tags and typed spans (the original's).

Tags are `O` or `<position>-<type>` with position B, I, E or S (`B-NP`). The
span reading is the original's `get_span_labels`: a span starts at B or S,
or at any tag following O, and ends just before the next B, S or O. E does
not end a span, and a change of type inside a span does not split it (the
span takes the type of its last tag); on well-formed BIO or BIOES tags this
is the usual chunk reading.
"""

from electra_tf import errors

OUTSIDE = "O"
BEGIN, INSIDE, END, SINGLE = "B", "I", "E", "S"
POSITIONS = (BEGIN, INSIDE, END, SINGLE)
# The original's label scheme for chunking.
BIOES = "BIOES"


def split_tag(tag):
  """(position, type) of a tag; (None, None) for `O`."""
  if tag == OUTSIDE:
    return None, None
  position, separator, chunk_type = tag.partition("-")
  if position not in POSITIONS or not separator or not chunk_type:
    raise errors.DataError(f"malformed chunk tag {tag!r}; expected O or "
                           "B-/I-/E-/S-<type>")
  return position, chunk_type


def spans(tags):
  """Typed spans `(first, last, type)` (inclusive word indices) of `tags`."""
  result = []
  start = None
  previous = OUTSIDE
  for index, tag in enumerate(tags):
    position, _ = split_tag(tag)
    starts_new = position in (BEGIN, SINGLE) or tag == OUTSIDE
    if starts_new and previous != OUTSIDE:
      result.append((start, index - 1, split_tag(previous)[1]))
    if position in (BEGIN, SINGLE) or previous == OUTSIDE:
      start = index
    previous = tag
  if tags and tags[-1] != OUTSIDE:
    result.append((start, len(tags) - 1, split_tag(tags[-1])[1]))
  return result


def tags_from_spans(typed_spans, length, encoding=BIOES):
  """Per-word tags of `typed_spans` in `encoding` (letters used, e.g. BIO)."""
  tags = [OUTSIDE] * length
  for first, last, chunk_type in typed_spans:
    for index in range(first, last + 1):
      tags[index] = f"{INSIDE}-{chunk_type}"
    if END in encoding:
      tags[last] = f"{END}-{chunk_type}"
    if BEGIN in encoding:
      tags[first] = f"{BEGIN}-{chunk_type}"
    if SINGLE in encoding and first == last:
      tags[first] = f"{SINGLE}-{chunk_type}"
  return tags


def convert(tags, encoding=BIOES):
  """Re-tags a sentence in `encoding` (BIO -> BIOES, BIOES -> BIO, ...)."""
  return tags_from_spans(spans(tags), len(tags), encoding)
