"""Packs sentences into pretraining examples, exactly as the original.

The original `build_pretraining_dataset.ExampleBuilder` reads one sentence
per line; a blank line ends a document. Sentences are gathered until their
tokens reach a target length, then split into `[CLS] A [SEP] B [SEP]`:

- 10% of examples get a single segment (the first segment's target length
  is then 100000, so every sentence goes to A);
- otherwise A takes sentences while they fit in (target - 3) // 2 tokens; the
  first sentence that overflows goes to A with probability 1/2, as long as
  B is still empty and A has not reached its target;
- A is cut to max_length - 2 tokens and B to what is left after [CLS] A [SEP];
- 5% of the following targets are `randint(5, max_length)`, else max_length.

All randomness comes from an injected `random.Random`, drawn in the
original's order, so `random.Random(seed)` reproduces the original run that
seeded the global `random` with the same seed.
"""

import dataclasses

from electra_tf.data import features

# Share of examples with a single segment (as in classification inputs).
SINGLE_SEGMENT_PROB = 0.1
# First-segment target of a single-segment example: beyond any real length.
SINGLE_SEGMENT_TARGET = 100000
# Chance that the sentence overflowing segment A still goes into A.
OVERFLOW_INTO_FIRST_PROB = 0.5
# Share of examples whose successor gets a random, shorter target length.
RANDOM_LENGTH_PROB = 0.05
MIN_RANDOM_LENGTH = 5
# [CLS] and two [SEP]: room the segments must leave.
NUM_SPECIAL_TOKENS = 3


@dataclasses.dataclass(frozen=True)
class PretrainingExample:
  """One packed example; each list has max_seq_length ints."""
  input_ids: list
  input_mask: list
  segment_ids: list

  @property
  def num_tokens(self):
    """Tokens before padding, [CLS] and [SEP]s included."""
    return sum(self.input_mask)

  def as_features(self):
    """Feature name -> values, named as in the TFRecords."""
    return {features.INPUT_IDS: self.input_ids,
            features.INPUT_MASK: self.input_mask,
            features.SEGMENT_IDS: self.segment_ids}


class ExampleBuilder:
  """Turns a stream of lines into `PretrainingExample`s.

  Args:
    tokenizer: a `FullTokenizer` or `SentencePieceTokenizer` (anything with
      `tokenize`, `convert_tokens_to_ids` and `special_ids`).
    max_seq_length: length of every example, padding included.
    rng: a `random.Random`; the only source of randomness.

  >>> import random
  >>> class ToyTokenizer:
  ...   special_ids = __import__("electra_tf").SpecialTokenIds()
  ...   tokenize = staticmethod(str.split)
  ...   convert_tokens_to_ids = staticmethod(lambda ts: [int(t) for t in ts])
  >>> builder = ExampleBuilder(ToyTokenizer(), 8, random.Random(0))
  >>> builder.add_line("7 8 9") is None
  True
  >>> builder.end_document().input_ids
  [101, 7, 8, 9, 102, 0, 0, 0]
  """

  def __init__(self, tokenizer, max_seq_length, rng):
    self._tokenizer = tokenizer
    self._special_ids = tokenizer.special_ids
    self._max_length = max_seq_length
    self._target_length = max_seq_length
    self._rng = rng
    self._sentences = []
    self._num_pending_tokens = 0

  def add_line(self, line):
    """Adds one sentence; returns an example once the target is reached.

    An empty line ends the document: it returns the pending sentences as an
    example, if they hold any token. As in the original, an empty line with
    nothing pending (and a line without tokens) adds an empty sentence.
    """
    line = line.strip().replace("\n", " ")
    return self.add_tokenized_line(line, self._tokenizer.convert_tokens_to_ids(
        self._tokenizer.tokenize(line)))

  def add_tokenized_line(self, line, token_ids):
    """`add_line` for a stripped `line` whose `token_ids` are known."""
    if not line and self._num_pending_tokens:
      return self._create_example()
    self._sentences.append(token_ids)
    self._num_pending_tokens += len(token_ids)
    if self._num_pending_tokens >= self._target_length:
      return self._create_example()
    return None

  def end_document(self):
    """Flushes the pending sentences (the original's `add_line("")`)."""
    return self.add_line("")

  def _split_segments(self):
    """Distributes the pending sentences over segments A and B."""
    if self._rng.random() < SINGLE_SEGMENT_PROB:
      first_target = SINGLE_SEGMENT_TARGET
    else:
      first_target = (self._target_length - NUM_SPECIAL_TOKENS) // 2
    first, second = [], []
    for sentence in self._sentences:
      # Short-circuit order matters: it decides when the rng is drawn.
      if (not first or len(first) + len(sentence) < first_target or
          (not second and len(first) < first_target and
           self._rng.random() < OVERFLOW_INTO_FIRST_PROB)):
        first += sentence
      else:
        second += sentence
    first = first[:self._max_length - 2]
    second = second[:max(0, self._max_length - len(first) -
                         NUM_SPECIAL_TOKENS)]
    return first, second

  def _create_example(self):
    first, second = self._split_segments()
    self._sentences = []
    self._num_pending_tokens = 0
    if self._rng.random() < RANDOM_LENGTH_PROB:
      self._target_length = self._rng.randint(MIN_RANDOM_LENGTH,
                                              self._max_length)
    else:
      self._target_length = self._max_length
    return self._pack(first, second)

  def _pack(self, first, second):
    """[CLS] A [SEP] (B [SEP]), padded with zeros to max_seq_length."""
    ids = self._special_ids
    input_ids = [ids.cls] + first + [ids.sep]
    segment_ids = [0] * len(input_ids)
    if second:
      input_ids += second + [ids.sep]
      segment_ids += [1] * (len(second) + 1)
    input_mask = [1] * len(input_ids)
    padding = [0] * (self._max_length - len(input_ids))
    return PretrainingExample(input_ids=input_ids + padding,
                              input_mask=input_mask + padding,
                              segment_ids=segment_ids + padding)


def _stripped_lines(lines, blanks_separate_docs):
  for line in lines:
    line = line.strip()
    if line or blanks_separate_docs:
      yield line


def _batches(lines, max_lines, max_chars):
  """Groups lines into lists of at most `max_lines` lines / `max_chars`."""
  batch, num_chars = [], 0
  for line in lines:
    batch.append(line)
    num_chars += len(line)
    if len(batch) >= max_lines or num_chars >= max_chars:
      yield batch
      batch, num_chars = [], 0
  if batch:
    yield batch


def examples_from_lines(builder, lines, blanks_separate_docs=True,
                        line_tokenizer=None):
  """Feeds one file's lines to `builder`, as the original did per file.

  Lines are stripped; blank lines end documents if `blanks_separate_docs`
  (else they are skipped), and the end of the lines ends the last document.

  Args:
    builder: an `ExampleBuilder`.
    lines: iterable of str.
    blanks_separate_docs: see above.
    line_tokenizer: optional; tokenizes lines in batches (see
      `line_tokenizers`) with the same ids as the builder's tokenizer. The
      examples are the same either way.

  Yields:
    `PretrainingExample`s.
  """
  stripped = _stripped_lines(lines, blanks_separate_docs)
  if line_tokenizer is None:
    sentences = ((line, None) for line in stripped)
  else:
    sentences = ((line, ids) for batch in _batches(
        stripped, line_tokenizer.batch_lines, line_tokenizer.batch_chars)
                 for line, ids in zip(batch, line_tokenizer(batch)))
  for line, token_ids in sentences:
    if token_ids is None:
      example = builder.add_line(line)
    else:
      example = builder.add_tokenized_line(line, token_ids)
    if example:
      yield example
  example = builder.end_document()
  if example:
    yield example
