"""Checks that a pretraining run and its data and vocab belong together."""

import os

import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf.data import tfrecords
from electra_tf.tokenization import special_tokens
from electra_tf.tokenization import vocab_files


def special_token_ids(config):
  """Special-token ids from `config.vocab_file`, checked against vocab_size.

  `vocab_file` may be a WordPiece vocab or a SentencePiece `.model`.
  """
  if not config.vocab_file:
    logging.warning("no vocab_file: assuming BERT's special-token ids")
    return special_tokens.SpecialTokenIds()
  vocab = vocab_files.load_any_vocab(config.vocab_file)
  vocab_files.check_fits(vocab, config.vocab_size, config.vocab_file)
  return special_tokens.SpecialTokenIds.from_vocab(vocab, config.vocab_file)


def check_dataset_metadata(files, config):
  """Compares the builder's metadata (when present) with the config.

  Datasets written by the original builder have no metadata; they pass.
  """
  for directory in sorted({os.path.dirname(f) for f in files}):
    try:
      settings = tfrecords.read_metadata(directory)["settings"]
    except errors.DataError as e:
      if "no dataset metadata" in str(e):
        continue
      raise
    _compare(directory, settings, config)


def _compare(directory, settings, config):
  problems = []
  if settings.get("max_seq_length") != config.max_seq_length:
    problems.append(f"max_seq_length {settings.get('max_seq_length')} in the "
                    f"data, {config.max_seq_length} in the config")
  vocab = settings.get("vocab", {})
  vocab_size = vocab.get("size")
  if vocab_size and vocab_size > config.vocab_size:
    problems.append(f"the data's vocab has {vocab_size} tokens, more than "
                    f"vocab_size {config.vocab_size}")
  data_hash = vocab.get("sha256")
  if data_hash and config.vocab_file and tf.io.gfile.exists(config.vocab_file):
    if tfrecords.file_sha256(config.vocab_file) != data_hash:
      problems.append(f"the data was tokenized with another vocab than "
                      f"{config.vocab_file}")
  if problems:
    raise errors.DataError(f"dataset {directory} does not fit this run: "
                           + "; ".join(problems))
