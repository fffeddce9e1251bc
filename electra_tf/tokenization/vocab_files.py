"""Reading vocabularies: WordPiece vocab files and SentencePiece models.

Every other module gets a vocab (token -> id) from here, and checks that it
fits an embedding with `check_fits`. All reads go through `tf.io.gfile`.
"""

import collections

import sentencepiece
import tensorflow as tf

from electra_tf import errors

# A vocab path ending so is a SentencePiece model (its pieces are the vocab).
SENTENCEPIECE_SUFFIX = ".model"


def _read_bytes(path, what):
  if not tf.io.gfile.exists(path):
    raise errors.DataError(f"{what} not found: {path}")
  with tf.io.gfile.GFile(path, "rb") as f:
    return f.read()


def load_vocab(vocab_file):
  """Reads a vocab file (one token per line) into an ordered token -> id dict.

  As in the original, ids are line numbers, surrounding whitespace is
  stripped, and a token listed twice keeps its last line number.
  """
  data = _read_bytes(vocab_file, "vocab file")
  # Lines end at "\n" only, as a gfile line reader splits them.
  lines = data.split(b"\n")
  if lines[-1] == b"":
    lines.pop()
  return collections.OrderedDict(
      (line.decode("utf-8", errors="replace").strip(), index)
      for index, line in enumerate(lines))


def load_sentencepiece(model_file):
  """The `SentencePieceProcessor` of a model file and its piece -> id vocab."""
  model_proto = _read_bytes(model_file, "sentencepiece model")
  try:
    processor = sentencepiece.SentencePieceProcessor(model_proto=model_proto)
  except RuntimeError as e:
    raise errors.DataError(
        f"not a sentencepiece model: {model_file} ({e})") from e
  vocab = collections.OrderedDict(
      (processor.id_to_piece(index), index)
      for index in range(processor.get_piece_size()))
  return processor, vocab


def load_any_vocab(path):
  """Token -> id of a WordPiece vocab file or a SentencePiece `.model`."""
  if path.endswith(SENTENCEPIECE_SUFFIX):
    return load_sentencepiece(path)[1]
  return load_vocab(path)


def num_ids(vocab):
  """How many embedding rows `vocab` needs: its largest id + 1."""
  return max(vocab.values()) + 1 if vocab else 0


def check_fits(vocab, vocab_size, source, remedy="set vocab_size"):
  """Raises `ConfigError` naming `source` if `vocab` has ids beyond
  `vocab_size` (the rows of the embedding it feeds)."""
  if num_ids(vocab) > vocab_size:
    raise errors.ConfigError(
        f"vocab {source} has {num_ids(vocab)} ids but vocab_size is "
        f"{vocab_size}; {remedy}")


def lookup(mapping, items, kind):
  """Maps each item through `mapping`; names the first unknown one."""
  try:
    return [mapping[item] for item in items]
  except KeyError as e:
    raise errors.DataError(f"{kind} {e.args[0]!r} is not in the vocab") from e
