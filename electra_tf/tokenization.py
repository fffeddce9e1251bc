"""WordPiece vocabulary loading and tokenization, token-exact to the original."""

import collections

import tensorflow as tf

from electra_tf import errors


def load_vocab(vocab_file):
  """Reads a vocab file (one token per line) into an ordered token -> id dict.

  As in the original, ids are line numbers, surrounding whitespace is
  stripped, and a token listed twice keeps its last line number.
  """
  if not tf.io.gfile.exists(vocab_file):
    raise errors.DataError(f"vocab file not found: {vocab_file}")
  vocab = collections.OrderedDict()
  with tf.io.gfile.GFile(vocab_file, "rb") as f:
    for index, line in enumerate(f):
      vocab[line.decode("utf-8", errors="replace").strip()] = index
  return vocab
