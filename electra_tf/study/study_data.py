"""A study's pretraining data: vocab, training and held-out TFRecords.

Built once into `<output_dir>/data/` and reused while the settings recorded
there (corpus files and sizes, vocab, length, held-out share) are the same.
Held-out documents (`corpus.DocumentSplit`) never reach the training shards,
so the pretraining eval metrics are measured on unseen text.
"""

import dataclasses
import os
import time

from absl import logging
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import corpus as corpus_lib
from electra_tf.data import docstring_corpus
from electra_tf.data import pretraining_dataset
from electra_tf.data import tfds_corpus
from electra_tf.data import tfrecords
from electra_tf.data import vocab_from_corpus
from electra_tf.study import budget
from electra_tf.study import progress as progress_lib
from electra_tf.study import sub_runs
from electra_tf.tokenization import vocab_files

TRAIN_SHARDS = 16
EVAL_SHARDS = 1
# Build jobs per dataset, whatever the core count, so every machine builds
# the same bytes; two, as the studies in README were built on 2 cores.
BUILD_JOBS = 2
VOCAB_SAMPLE_SALT = "vocab"


@dataclasses.dataclass(frozen=True)
class StudyData:
  vocab_file: str
  vocab_size: int
  train_files: tuple
  eval_files: tuple
  fingerprint: dict  # what the data was built from (a sub-run setting)
  cost: float  # FLOP-equivalents, for the study's ETA
  seconds: float = None  # None when reused


def _corpus(study, output_dir):
  if study.tfds_name:
    return tfds_corpus.TFDSCorpus(study.tfds_name,
                                  text_key=study.tfds_text_key)
  if study.docstring_corpus_bytes:
    folder = os.path.join(output_dir, "corpus")
    logging.info("docstrings of the installed Python in %s", folder)
    return corpus_lib.FileCorpus(tuple(docstring_corpus.docstring_corpus_files(
        folder, study.docstring_corpus_bytes)))
  return corpus_lib.FileCorpus.from_patterns(
      [study.path(p) for p in study.corpus])


def _corpus_fingerprint(study, corpus):
  if study.tfds_name:
    return {"tfds_name": study.tfds_name, "text_key": study.tfds_text_key}
  return {"files": [[path, tf.io.gfile.stat(path).length]
                    for path in corpus.files]}


def _settings(study, corpus, config):
  vocab = ({"file": study.vocab_file,
            "sha256": tfrecords.file_sha256(study.path(study.vocab_file))}
           if study.vocab_file else {
               "learned_size": study.vocab_size,
               "sample_per_mille": study.vocab_sample_per_mille})
  return {"corpus": _corpus_fingerprint(study, corpus), "vocab": vocab,
          "max_seq_length": config.max_seq_length,
          "do_lower_case": config.do_lower_case,
          "held_out_per_mille": study.held_out_per_mille}


def _built(folder):
  try:
    tfrecords.read_metadata(folder)
  except errors.DataError:
    return False
  return bool(tfrecords.finished_shards(folder))


def _learn_vocab(corpus, path, size, do_lower_case):
  logging.info("learning a %d-token WordPiece vocab into %s", size, path)
  vocab_from_corpus.build_wordpiece_vocab(corpus, path, size, do_lower_case,
                                      overwrite=True)  # whole or not at all


def _build(corpus, folder, vocab_file, config, num_shards):
  logging.info("building %s", folder)
  pretraining_dataset.build_pretraining_dataset(
      pretraining_dataset.BuildConfig(
          output_dir=folder, vocab_file=vocab_file,
          do_lower_case=config.do_lower_case,
          max_seq_length=config.max_seq_length, num_output_files=num_shards,
          jobs_per_worker=min(BUILD_JOBS, num_shards),
          num_processes=os.cpu_count() or 1,
          overwrite=True), corpus)


def prepare(study, output_dir):
  """Builds (or reuses) the study's data; returns a `StudyData`."""
  data_dir = os.path.join(output_dir, "data")
  corpus = _corpus(study, output_dir)
  # Length and casing are shared by every objective: the reference's.
  config = budget.objective_config(study, study.reference_objective,
                                   study.pretrain_seeds[0], None, None)
  settings = _settings(study, corpus, config)
  sub_runs.claim(data_dir, {"kind": "data", **settings})
  vocab_file = (study.path(study.vocab_file) if study.vocab_file
                else os.path.join(data_dir, "vocab.txt"))
  train_dir = os.path.join(data_dir, "train")
  eval_dir = os.path.join(data_dir, "eval")
  size = corpus.total_bytes() or 0  # TFDS: unknown before reading
  started = time.time()
  ran = False
  splits = {held_out: corpus_lib.DocumentSplit(
      corpus, study.held_out_per_mille, held_out) for held_out in (False, True)}
  if not tf.io.gfile.exists(vocab_file):
    sample = splits[False]
    if study.vocab_sample_per_mille < 1000:
      sample = corpus_lib.DocumentSplit(sample, study.vocab_sample_per_mille,
                                        True, salt=VOCAB_SAMPLE_SALT)
    _learn_vocab(sample, vocab_file, study.vocab_size, config.do_lower_case)
    ran = True
  for folder, held_out, shards in ((train_dir, False, TRAIN_SHARDS),
                                   (eval_dir, True, EVAL_SHARDS)):
    if not _built(folder):
      _build(splits[held_out], folder, vocab_file, config, shards)
      ran = True
  return StudyData(
      vocab_file=vocab_file,
      vocab_size=vocab_files.num_ids(vocab_files.load_vocab(vocab_file)),
      train_files=tuple(tfrecords.finished_shards(train_dir)),
      eval_files=tuple(tfrecords.finished_shards(eval_dir)),
      fingerprint=settings,
      cost=size * progress_lib.DATA_COST_PER_BYTE,
      seconds=time.time() - started if ran else None)
