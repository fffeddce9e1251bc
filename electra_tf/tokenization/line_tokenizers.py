"""Batched tokenization of corpus lines for the dataset builder.

The builder needs the ids of every line. `FullTokenizer` gives them one line
at a time in Python (about 0.1M tokens/s per core); the tokenizers here take
a batch of lines per call and run compiled code:

- `TensorFlowLineTokenizer`: the in-graph `TFWordpieceTokenizer`, whose ids
  equal `FullTokenizer`'s on every Unicode code point and on real text (its
  tests), in one `tf.function` call per batch;
- `SentencePieceLineTokenizer`: SentencePiece's own batch encoder;
- `PythonLineTokenizer`: `FullTokenizer` line by line, the reference.

Each is a callable `list[str] -> list[list[int]]` whose batches are bounded
by `batch_lines` lines and `batch_chars` characters.
"""

import tensorflow as tf

from electra_tf import errors
from electra_tf.tokenization import from_files
from electra_tf.tokenization import tf_tokenizer

TENSORFLOW = "tensorflow"
PYTHON = "python"
KINDS = (TENSORFLOW, PYTHON)
# Lines per call: large enough to hide the per-call cost of TensorFlow,
# small enough that a batch's strings stay in the CPU caches.
DEFAULT_BATCH_LINES = 1024
# Bounds a batch of very long lines (the corpus reader caps a line at 1M).
DEFAULT_BATCH_CHARS = 4_000_000
LINE_BREAK = "\n"


class PythonLineTokenizer:
  """`FullTokenizer` (or `SentencePieceTokenizer`) one line at a time."""

  batch_lines = DEFAULT_BATCH_LINES
  batch_chars = DEFAULT_BATCH_CHARS

  def __init__(self, tokenizer):
    self._tokenizer = tokenizer

  def __call__(self, lines):
    return [self._tokenizer.convert_tokens_to_ids(self._tokenizer.tokenize(
        line)) for line in lines]


def _ragged_to_lists(ragged):
  """A 2-D RaggedTensor as a list of Python lists (one conversion)."""
  values = ragged.flat_values.numpy().tolist()
  splits = ragged.row_splits.numpy().tolist()
  return [values[start:end] for start, end in zip(splits[:-1], splits[1:])]


class TensorFlowLineTokenizer:
  """`FullTokenizer`'s ids from `TFWordpieceTokenizer`, a batch per call.

  >>> import tensorflow as tf
  >>> with tf.io.gfile.GFile("ram://line_doc_vocab.txt", "w") as f:
  ...   _ = f.write("\\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
  ...                          "hello", "world", "##s", "!"]))
  >>> TensorFlowLineTokenizer("ram://line_doc_vocab.txt")(
  ...     ["Hello worlds!", "", "hi"])
  [[5, 6, 7, 8], [], [1]]
  """

  batch_lines = DEFAULT_BATCH_LINES
  batch_chars = DEFAULT_BATCH_CHARS

  def __init__(self, vocab_file, do_lower_case=True):
    self._tokenizer = tf_tokenizer.TFWordpieceTokenizer(
        vocab_file, do_lower_case=do_lower_case)
    # Lines are Python strs: valid UTF-8 by construction.
    self._tokenize = tf.function(
        lambda lines: self._tokenizer.tokenize(lines, valid_utf8=True),
        input_signature=[tf.TensorSpec([None], tf.string)], autograph=False)
    self._tokenize_joined = tf.function(
        lambda text: self._tokenizer.tokenize(
            tf.strings.split(text, LINE_BREAK), valid_utf8=True),
        input_signature=[tf.TensorSpec([], tf.string)], autograph=False)

  def __call__(self, lines):
    if not lines:
      return []
    text = LINE_BREAK.join(lines)
    if text.count(LINE_BREAK) == len(lines) - 1:  # no line holds a break
      # One string crosses into TensorFlow instead of a list of them.
      return _ragged_to_lists(self._tokenize_joined(text))  # [B, (T)]
    return _ragged_to_lists(self._tokenize(tf.constant(lines)))  # [B, (T)]


class SentencePieceLineTokenizer:
  """A `SentencePieceTokenizer`'s ids from its batch encoder."""

  batch_lines = DEFAULT_BATCH_LINES
  batch_chars = DEFAULT_BATCH_CHARS

  def __init__(self, tokenizer):
    self._processor = tokenizer.processor

  def __call__(self, lines):
    return self._processor.encode(list(lines), out_type=int)


def build_line_tokenizer(kind, vocab_file=None, sp_model_file=None,
                         do_lower_case=True, tokenizer=None):
  """The line tokenizer of `kind` (one of `KINDS`) for a vocab or model.

  SentencePiece models always use their own batch encoder with
  `TENSORFLOW` (the fast kind), and `SentencePieceTokenizer` with `PYTHON`.
  `tokenizer`: the `from_files.build_tokenizer` of the same files, if the
  caller has one already (else it is built here).

  Raises:
    DataError: for an unknown kind or a bad vocab/model (see
      `from_files.build_tokenizer`).
  """
  if kind not in KINDS:
    raise errors.DataError(f"unknown tokenizer {kind!r}; use one of "
                           f"{', '.join(KINDS)}")
  if tokenizer is None:
    tokenizer = from_files.build_tokenizer(vocab_file, sp_model_file,
                                             do_lower_case)
  if kind == PYTHON:
    return PythonLineTokenizer(tokenizer)
  if sp_model_file is not None:
    return SentencePieceLineTokenizer(tokenizer)
  return TensorFlowLineTokenizer(vocab_file, do_lower_case)
