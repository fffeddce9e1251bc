"""Counters of a dataset build: what was read, written and skipped, and why."""

import collections
import dataclasses

# Reasons a line is skipped (keys of `BuildStats.skipped_lines`).
LINE_TOO_LONG = "longer_than_max_line_chars"
# Not a skip: the line is kept with U+FFFD, which the tokenizer drops.
INVALID_UTF8 = "invalid_utf8"
# Files named per reason in the summary, to find the offending input.
MAX_FILES_NAMED = 5


@dataclasses.dataclass
class BuildStats:
  """Mutable counts of one job; jobs' stats add up with `merge`."""
  files: int = 0
  bytes_read: int = 0
  lines: int = 0
  invalid_utf8_lines: int = 0
  documents: int = 0
  examples: int = 0
  tokens: int = 0
  skipped_lines: dict = dataclasses.field(
      default_factory=collections.Counter)
  files_by_issue: dict = dataclasses.field(default_factory=dict)

  def _note_file(self, issue, path):
    named = self.files_by_issue.setdefault(issue, [])
    if path not in named and len(named) < MAX_FILES_NAMED:
      named.append(path)

  def count_invalid_utf8(self, path):
    self.invalid_utf8_lines += 1
    self._note_file(INVALID_UTF8, path)

  def skip_line(self, reason, path):
    self.skipped_lines[reason] += 1
    self._note_file(reason, path)

  def count_example(self, example):
    self.examples += 1
    self.tokens += example.num_tokens

  def merge(self, other):
    """Adds `other`'s counts into these."""
    for field in ("files", "bytes_read", "lines", "invalid_utf8_lines",
                  "documents", "examples", "tokens"):
      setattr(self, field, getattr(self, field) + getattr(other, field))
    self.skipped_lines.update(other.skipped_lines)
    for issue, paths in other.files_by_issue.items():
      for path in paths:
        self._note_file(issue, path)
    return self

  def to_json(self):
    record = dataclasses.asdict(self)
    record["skipped_lines"] = dict(sorted(self.skipped_lines.items()))
    return record

  @classmethod
  def from_json(cls, record):
    stats = cls(**record)
    stats.skipped_lines = collections.Counter(stats.skipped_lines)
    return stats

  def summary(self):
    """One line: files, lines, documents, examples, tokens, lines skipped."""
    skipped = ", ".join(
        f"{count} {reason} (e.g. in {', '.join(self.files_by_issue[reason])})"
        for reason, count in sorted(self.skipped_lines.items())) or "none"
    invalid = ""
    if self.invalid_utf8_lines:
      invalid = (f"; {self.invalid_utf8_lines} lines with invalid UTF-8 kept "
                 f"with the bad bytes dropped (e.g. in "
                 f"{', '.join(self.files_by_issue[INVALID_UTF8])})")
    counts = f"{self.files} files, {self.lines} lines"
    if self.documents or self.examples:  # a vocab build counts no examples
      counts += (f", {self.documents} documents -> {self.examples} examples, "
                 f"{self.tokens} tokens")
    return f"{counts}; lines skipped: {skipped}{invalid}"
