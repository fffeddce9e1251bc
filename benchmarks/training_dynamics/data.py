"""The demo's pretraining data, built once with electra-tf's builder.

As `electra-pretrain --demo` builds it: the installed Python's docstrings
(`demo.CORPUS_BYTES` of them), a `demo.VOCAB_SIZE`-token WordPiece vocab
learned from them, TFRecords of every corpus file but the last for
training and of the last one for evaluation. And, for runs that share one
batch order, a stream file per seed: the training records in a seeded order.
"""

import os

import numpy as np
import tensorflow as tf

from electra_tf import errors
from electra_tf import tokenization
from electra_tf.cli import demo
from electra_tf.data import corpus as corpus_lib
from electra_tf.data import docstring_corpus
from electra_tf.data import pretraining_dataset
from electra_tf.data import tfrecords
from electra_tf.data import vocab_from_corpus

MAX_SEQ_LENGTH = 128  # the tiny preset's
CORPUS_DONE = "COMPLETE"


def _corpus(folder):
  if not os.path.exists(os.path.join(folder, CORPUS_DONE)):
    docstring_corpus.write_docstring_corpus(folder, demo.CORPUS_BYTES)
    with open(os.path.join(folder, CORPUS_DONE), "w"):
      pass
  return corpus_lib.list_input_files([os.path.join(folder, "corpus-*.txt")])


def _shards(output_dir, files, vocab_file):
  try:
    tfrecords.read_metadata(output_dir)
  except errors.DataError:  # absent or half-written: build it (again)
    pretraining_dataset.build_pretraining_dataset(
        pretraining_dataset.BuildConfig(
            output_dir=output_dir, vocab_file=vocab_file,
            max_seq_length=MAX_SEQ_LENGTH, num_output_files=len(files),
            overwrite=True),  # one process: a few MB of text
        corpus_lib.FileCorpus(tuple(files)))
  return tfrecords.finished_shards(output_dir)


def demo_data(data_dir):
  """Builds what is missing under `data_dir`; returns the paths."""
  files = _corpus(os.path.join(data_dir, "corpus"))
  vocab_file = os.path.join(data_dir, "vocab.txt")
  if not os.path.exists(vocab_file):
    vocab_from_corpus.build_wordpiece_vocab(
        corpus_lib.FileCorpus(tuple(files)), vocab_file, demo.VOCAB_SIZE,
        overwrite=True)
  return {"train": _shards(os.path.join(data_dir, "train"), files[:-1],
                           vocab_file),
          "eval": _shards(os.path.join(data_dir, "eval"), files[-1:],
                          vocab_file),
          "vocab": vocab_file,
          "vocab_size": len(tokenization.load_vocab(vocab_file))}


def shared_stream(data_dir, train_files, seed, num_records):
  """One TFRecord file of `num_records` training records in a fixed order:
  a seeded permutation of all of them, a new one for each pass. Both sides
  of a shared-order run read it front to back with no shuffle, so they see
  the same batches in the same order. Built once per seed."""
  path = os.path.join(data_dir, "streams", f"seed{seed}.tfrecord")
  if os.path.exists(path):
    return path
  records = [r.numpy() for r in tf.data.TFRecordDataset(train_files)]
  order = []
  for epoch in range(-(-num_records // len(records))):
    rng = np.random.default_rng([seed, epoch])
    order.extend(rng.permutation(len(records)).tolist())
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with tf.io.TFRecordWriter(path + ".tmp") as writer:
    for index in order[:num_records]:
      writer.write(records[index])
  os.replace(path + ".tmp", path)  # whole or absent
  return path
