"""Learns a WordPiece vocab or a SentencePiece model from text.

WordPiece: words come from the original BasicTokenizer (so the vocab fits
`FullTokenizer`), are counted, and tensorflow-text's WordPiece learner picks
the pieces. The vocab starts with BERT's reserved block ([PAD]=0,
[unused0..98]=1..99, [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103), then the
single characters (and their "##" forms), then pieces by count. Ties are
broken alphabetically, so the same corpus always gives the same vocab.

SentencePiece: the trainer runs over the lines with [PAD]=0, [UNK]=1
and [CLS], [SEP], [MASK] as user-defined symbols (so they are single pieces
even in raw text); `do_lower_case` selects NFKC with case folding.
"""

import collections
import io
import os

import sentencepiece
import tensorflow as tf
from tensorflow_text.tools.wordpiece_vocab import (
    wordpiece_tokenizer_learner_lib as wordpiece_learner)

from electra_tf import errors
from electra_tf import output_files
from electra_tf.tokenization import basic_tokenizer
from electra_tf.tokenization import special_tokens
from electra_tf.tokenization import wordpiece

NUM_UNUSED_TOKENS = 99
BERT_RESERVED_TOKENS = (
    [special_tokens.PAD] + [f"[unused{i}]" for i in range(NUM_UNUSED_TOKENS)]
    + [special_tokens.UNK, special_tokens.CLS, special_tokens.SEP,
       special_tokens.MASK])
# The learner ignores pieces seen fewer times (its own default).
DEFAULT_MIN_COUNT = 10
# Longest word (in characters) the learner splits into pieces.
MAX_WORD_CHARS = 50
# SentencePiece normalization rules (see the sentencepiece docs).
SP_RULE_CASED = "nmt_nfkc"
SP_RULE_LOWER_CASED = "nmt_nfkc_cf"
SP_MODEL_TYPES = ("unigram", "bpe")


def count_words(lines, do_lower_case=True):
  """Counter of the BasicTokenizer words of `lines`."""
  words = basic_tokenizer.BasicTokenizer(do_lower_case=do_lower_case)
  counts = collections.Counter()
  for line in lines:
    counts.update(words.tokenize(line))
  return counts


def learn_wordpiece_vocab(word_counts, vocab_size,
                          min_count=DEFAULT_MIN_COUNT):
  """A WordPiece vocab (list of tokens) of at most `vocab_size` entries,
  or of the reserved tokens and the corpus' single characters alone where
  those are more.

  Raises:
    DataError: if there are no words or `vocab_size` cannot hold the
      reserved tokens.
  """
  if not word_counts:
    raise errors.DataError("empty corpus: no words to learn a vocab from")
  if vocab_size <= len(BERT_RESERVED_TOKENS):
    raise errors.DataError(
        f"vocab_size={vocab_size} leaves no room after the "
        f"{len(BERT_RESERVED_TOKENS)} reserved tokens")
  # A fixed order of the input keeps the learner's output order-independent.
  ordered = sorted(word_counts.items(), key=lambda item: (-item[1], item[0]))
  tokens = wordpiece_learner.learn(
      ordered, vocab_size, list(BERT_RESERVED_TOKENS),
      lower_thresh=min_count, max_token_length=MAX_WORD_CHARS,
      joiner=wordpiece.CONTINUATION_PREFIX)
  # The learner's search for a count threshold can stop a few tokens above
  # the target. Its list ends with the rarest pieces: those are dropped, but
  # never the reserved block or a single character.
  keep = 1 + max(i for i, token in enumerate(tokens)
                 if i < len(BERT_RESERVED_TOKENS) or _is_character(token))
  return tokens[:max(vocab_size, keep)]


def _is_character(token):
  prefix = wordpiece.CONTINUATION_PREFIX
  return len(token[len(prefix):] if token.startswith(prefix) else token) == 1


def check_output_path(path, overwrite):
  """Refuses an existing `path` unless `overwrite`; makes its folder."""
  if tf.io.gfile.exists(path) and not overwrite:
    raise errors.DataError(f"{path} exists; pass --overwrite to replace it")
  if os.path.dirname(path):
    output_files.make_dir(os.path.dirname(path))  # fail before learning


def write_vocab(tokens, path, overwrite=False):
  """Writes one token per line (through gfile; whole or not at all)."""
  check_output_path(path, overwrite)
  output_files.write_atomically(path, "".join(token + "\n" for token in tokens))


def train_sentencepiece(lines, vocab_size, do_lower_case=True,
                        model_type="unigram"):
  """Trains a SentencePiece model; returns its serialized bytes."""
  if model_type not in SP_MODEL_TYPES:
    raise errors.DataError(f"sentencepiece model type {model_type!r} is not "
                           f"one of {', '.join(SP_MODEL_TYPES)}")
  model = io.BytesIO()
  try:
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model,
        vocab_size=vocab_size, model_type=model_type,
        normalization_rule_name=(SP_RULE_LOWER_CASED if do_lower_case
                                 else SP_RULE_CASED),
        pad_id=0, pad_piece=special_tokens.PAD,
        unk_id=1, unk_piece=special_tokens.UNK, bos_id=-1, eos_id=-1,
        user_defined_symbols=[special_tokens.CLS, special_tokens.SEP,
                              special_tokens.MASK],
        hard_vocab_limit=False, minloglevel=2)
  except RuntimeError as e:
    raise errors.DataError(f"sentencepiece training failed: {e}") from e
  return model.getvalue()
