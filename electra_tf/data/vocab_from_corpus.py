"""Learns a vocab from a corpus (`FileCorpus` or `TFDSCorpus`) and writes it.

The learning itself is `tokenization.vocab_learning`; this module reads the
corpus, counts what it read, and writes the result whole or not at all.
"""

import random

from electra_tf import errors
from electra_tf import output_files
from electra_tf.data import build_stats
from electra_tf.tokenization import vocab_learning


def corpus_lines(corpus, stats):
  """All non-blank lines of a `FileCorpus` or `TFDSCorpus`, in file order."""
  for unit in corpus.units(0, 1, random.Random(0)):
    stats.files += 1
    for line in corpus.lines(unit, stats):
      line = line.strip()
      if line:
        yield line


def build_wordpiece_vocab(corpus, output_file, vocab_size, do_lower_case=True,
                          min_count=vocab_learning.DEFAULT_MIN_COUNT,
                          overwrite=False):
  """Learns and writes a vocab; returns the corpus `BuildStats`."""
  vocab_learning.check_output_path(output_file, overwrite)
  stats = build_stats.BuildStats()
  counts = vocab_learning.count_words(corpus_lines(corpus, stats),
                                      do_lower_case)
  tokens = vocab_learning.learn_wordpiece_vocab(counts, vocab_size, min_count)
  vocab_learning.write_vocab(tokens, output_file, overwrite)
  return stats


def build_sentencepiece_model(corpus, output_file, vocab_size,
                              do_lower_case=True, model_type="unigram",
                              overwrite=False):
  """Trains and writes a `.model` file; returns the corpus `BuildStats`."""
  vocab_learning.check_output_path(output_file, overwrite)
  stats = build_stats.BuildStats()
  lines = list(corpus_lines(corpus, stats))
  if not lines:
    raise errors.DataError(
        f"empty corpus: {corpus.describe()} has no text to learn from")
  model = vocab_learning.train_sentencepiece(lines, vocab_size, do_lower_case,
                                             model_type)
  output_files.write_atomically(output_file, model)
  return stats
