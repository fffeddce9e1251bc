"""Text corpora on disk: finding the files, reading their lines robustly.

A corpus is plain text, one sentence per line, a blank line between
documents (and the end of a file ends its last document). Files are read
through `tf.io.gfile` (local, `gs://`, `ram://`, ...) and split into lines
as the original's `GFile` iteration did: on "\\n" only, dropping every
"\\r". Unlike the original, which crashed on it, invalid UTF-8 is decoded
with U+FFFD (which the tokenizer then drops) and counted; a line longer than
`max_line_chars` is skipped and counted rather than stalling the build.
"""

import dataclasses
import itertools
from typing import Any
import zlib

import tensorflow as tf

from electra_tf import errors
from electra_tf.data import build_stats

# Lines longer than this (in characters) are skipped: in practice they are
# dumps, tables or binary junk, and tokenizing one would stall a worker.
MAX_LINE_CHARS = 1_000_000
# Bytes read from a file at once.
READ_CHUNK_BYTES = 1 << 20
# A UTF-8 character takes at most this many bytes.
MAX_BYTES_PER_CHAR = 4
GLOB_CHARS = "*?["
# TensorFlow's line reader, which the original used, drops every "\r" (not
# only before "\n"): "a\rb" is the word "ab", never "a b".
CARRIAGE_RETURN = b"\r"


def list_input_files(patterns):
  """Sorted, de-duplicated files named by paths, directories or globs.

  A directory stands for the files directly inside it (not recursively).

  Raises:
    DataError: naming a pattern that matches no file.
  """
  files = set()
  for pattern in patterns:
    if any(char in pattern for char in GLOB_CHARS):
      matches = [path for path in tf.io.gfile.glob(pattern)
                 if not tf.io.gfile.isdir(path)]
    elif tf.io.gfile.isdir(pattern):
      matches = [tf.io.gfile.join(pattern, name.rstrip("/"))
                 for name in tf.io.gfile.listdir(pattern)]
      matches = [path for path in matches if not tf.io.gfile.isdir(path)]
    elif tf.io.gfile.exists(pattern):
      matches = [pattern]
    else:
      raise errors.DataError(f"input file not found: {pattern}")
    if not matches:
      raise errors.DataError(f"no input files match {pattern}")
    files.update(matches)
  return sorted(files)


def decode_text(raw_text, source, stats):
  """UTF-8 bytes -> str; invalid bytes become U+FFFD and are counted."""
  try:
    return raw_text.decode("utf-8")
  except UnicodeDecodeError:
    stats.count_invalid_utf8(source)
    return raw_text.decode("utf-8", errors="replace")


def _raw_lines(f, stats, max_line_bytes):
  """Yields the bytes of each line, or None for a line over the byte cap."""
  pending = b""
  skipping = False  # inside a line already known to be too long
  while True:
    chunk = f.read(READ_CHUNK_BYTES)
    stats.bytes_read += len(chunk)
    if not chunk:
      if skipping or pending:
        yield None if skipping else pending.replace(CARRIAGE_RETURN, b"")
      return
    *complete, pending = (pending + chunk).split(b"\n")
    for raw_line in complete:
      yield None if skipping else raw_line.replace(CARRIAGE_RETURN, b"")
      skipping = False
    if len(pending) > max_line_bytes:
      skipping, pending = True, b""


def read_lines(path, stats, max_line_chars=MAX_LINE_CHARS):
  """Yields the lines of one file as str, without their "\\n".

  Args:
    path: a gfile path.
    stats: a `build_stats.BuildStats`, updated with bytes read, lines,
      invalid UTF-8 and skipped lines.
    max_line_chars: longer lines are skipped (never held whole in memory).

  Raises:
    DataError: if the file does not exist.
  """
  if not tf.io.gfile.exists(path):
    raise errors.DataError(f"input file not found: {path}")
  with tf.io.gfile.GFile(path, "rb") as f:
    for raw_line in _raw_lines(f, stats, max_line_chars * MAX_BYTES_PER_CHAR):
      line = None if raw_line is None else decode_text(raw_line, path, stats)
      if line is None or len(line) > max_line_chars:
        stats.skip_line(build_stats.LINE_TOO_LONG, path)
        continue
      stats.lines += 1
      yield line


@dataclasses.dataclass(frozen=True)
class FileCorpus:
  """Text files, split over workers and processes by file.

  Attributes:
    files: sorted paths (see `list_input_files`).
    max_line_chars: see `read_lines`.
  """
  files: tuple
  max_line_chars: int = MAX_LINE_CHARS

  @classmethod
  def from_patterns(cls, patterns, max_line_chars=MAX_LINE_CHARS):
    return cls(tuple(list_input_files(patterns)), max_line_chars)

  def describe(self):
    return ", ".join(self.files[:3]) + (" ..." if len(self.files) > 3 else "")

  def units(self, shard_index, num_shards, rng):
    """The files of one job: every `num_shards`-th from `shard_index`,
    shuffled by `rng` (as the original did, before building any example)."""
    files = list(self.files[shard_index::num_shards])
    rng.shuffle(files)
    return files

  def total_size(self, units):
    """Bytes of the given files, for progress estimates."""
    return sum(tf.io.gfile.stat(path).length for path in units)

  def total_bytes(self):
    """Bytes of the whole corpus."""
    return self.total_size(self.files)

  def lines(self, path, stats):
    return read_lines(path, stats, self.max_line_chars)


@dataclasses.dataclass(frozen=True)
class DocumentSplit:
  """The train or held-out part of a corpus, chosen document by document.

  A document (lines up to a blank line) is held out when a hash of its file
  and position falls in the first `held_out_per_mille` of 1000 buckets, so
  both parts are fixed by the corpus alone, whatever the job layout.

  >>> path = "ram://document_split_example/c.txt"  # the path is hashed
  >>> with tf.io.gfile.GFile(path, "w") as f:
  ...   _ = f.write("".join(f"doc {i}\\n\\n" for i in range(1000)))
  >>> corpus = FileCorpus((path,))
  >>> def docs(held_out):
  ...   split = DocumentSplit(corpus, 50, held_out)
  ...   return [l for l in split.lines(path, build_stats.BuildStats()) if l]
  >>> train, held = docs(False), docs(True)
  >>> len(train), len(held), set(train) & set(held)
  (939, 61, set())
  """
  corpus: Any
  held_out_per_mille: int
  held_out: bool
  salt: str = ""  # another salt draws another, independent split

  def describe(self):
    part = "held-out" if self.held_out else "training"
    return (f"{part} documents ({self.held_out_per_mille}/1000) of "
            f"{self.corpus.describe()}")

  def units(self, shard_index, num_shards, rng):
    return self.corpus.units(shard_index, num_shards, rng)

  def _part_of(self, size):
    """The expected bytes of this part in `size` bytes (None: unknown)."""
    if size is None:
      return None
    share = self.held_out_per_mille / 1000
    return int(size * (share if self.held_out else 1 - share))

  def total_size(self, units):
    return self._part_of(self.corpus.total_size(units))

  def total_bytes(self):
    return self._part_of(self.corpus.total_bytes())

  def is_held_out(self, unit, index):
    key = f"{self.salt}\0{unit}\0{index}".encode()
    return zlib.crc32(key) % 1000 < self.held_out_per_mille

  def lines(self, unit, stats):
    document, index = [], 0
    for line in itertools.chain(self.corpus.lines(unit, stats), [""]):
      if line.strip():
        document.append(line)
        continue
      if document and self.is_held_out(unit, index) == self.held_out:
        yield from document
        yield ""
      index += bool(document)
      document = []
