"""Builds a pretraining dataset: corpus -> examples -> sharded TFRecords.

Work is split into jobs: `num_workers` machines (each run with its own
`worker_index`) times `jobs_per_worker` jobs per machine (by default one per
process), run by `num_processes` processes. Job j of n takes every n-th input
file (or TFDS record) from j, writes the shards i with i % n == j, and draws
from its own `random.Random`, so its examples depend only on the seed and the
job layout, never on scheduling or on the number of processes.

Exact mode: with one job (one worker running one job) the rng is
`random.Random(seed)` and the files are shuffled with it before building,
so the output equals the original `build_pretraining_dataset.py` run with
`--num-processes 1` after `random.seed(seed)`.

A machine's jobs run in spawned processes, except on a corpus under
`spawn_min_mb`: each spawned process first imports TensorFlow (seconds),
more than it saves there, so the jobs run one after another in this process.
The output is the same either way.
"""

import contextlib
import ctypes
import dataclasses
import gc
import multiprocessing
import os
import random
import signal

from absl import logging
import tensorflow as tf

import electra_tf
from electra_tf import errors
from electra_tf import run_lock
from electra_tf.data import build_stats
from electra_tf.data import pretraining_examples
from electra_tf.data import progress
from electra_tf.data import tfrecords
from electra_tf.tokenization import from_files
from electra_tf.tokenization import line_tokenizers

# The original wrote 1000 shards whatever the corpus size.
DEFAULT_NUM_OUTPUT_FILES = 1000
DEFAULT_SEED = 0
RAM_FILESYSTEM = "ram://"
_PR_SET_PDEATHSIG = 1  # prctl option (linux/prctl.h)
# Below this much text the jobs run in this process (see the module doc).
# Two jobs on 2 cores of an AMD EPYC: 5.7 MB took 1.4-1.6 s in one process
# and 5.2-5.9 s in two spawned ones, 32 MB 6.8 s and 6.6 s; more processes
# pay off sooner, but none below ~15 MB (their imports take that long).
DEFAULT_SPAWN_MIN_MB = 16


@dataclasses.dataclass(frozen=True)
class BuildConfig:
  """How to build a dataset (see the CLI flags for each field's meaning)."""
  output_dir: str
  vocab_file: str = None
  sp_model_file: str = None
  do_lower_case: bool = True
  max_seq_length: int = 128
  blanks_separate_docs: bool = True
  num_output_files: int = DEFAULT_NUM_OUTPUT_FILES
  num_processes: int = 1
  jobs_per_worker: int = 0  # 0: one job per process
  spawn_min_mb: float = DEFAULT_SPAWN_MIN_MB
  num_workers: int = 1
  worker_index: int = 0
  seed: int = DEFAULT_SEED
  overwrite: bool = False
  tokenizer: str = line_tokenizers.TENSORFLOW
  progress_seconds: float = progress.DEFAULT_INTERVAL_SECONDS

  @property
  def worker_jobs(self):
    """Jobs this worker runs (fixes the data, with the seed and workers)."""
    return self.jobs_per_worker or self.num_processes

  @property
  def num_jobs(self):
    return self.num_workers * self.worker_jobs

  @property
  def pool_size(self):
    """Processes that run this worker's jobs (no more than the jobs)."""
    return min(self.num_processes, self.worker_jobs)

  def job_index(self, local_index):
    """The global index of this worker's job `local_index`."""
    return self.worker_index * self.worker_jobs + local_index

  def validate(self):
    """Raises DataError naming the first inconsistent setting."""
    if not 0 <= self.worker_index < self.num_workers:
      raise errors.DataError(f"worker_index={self.worker_index} is not in "
                             f"[0, num_workers={self.num_workers})")
    if self.num_processes < 1:
      raise errors.DataError(f"num_processes={self.num_processes} must be >= 1")
    if self.jobs_per_worker < 0:
      raise errors.DataError(f"jobs_per_worker={self.jobs_per_worker} must "
                             "be >= 0 (0: one job per process)")
    if self.num_output_files < self.num_jobs:
      raise errors.DataError(
          f"num_output_files={self.num_output_files} is smaller than the "
          f"{self.num_jobs} jobs (workers x jobs per worker): each job needs "
          "a shard")
    if self.max_seq_length < pretraining_examples.NUM_SPECIAL_TOKENS + 2:
      raise errors.DataError(f"max_seq_length={self.max_seq_length} is too "
                             "short for [CLS] A [SEP] B [SEP]")
    if self.tokenizer not in line_tokenizers.KINDS:
      raise errors.DataError(f"tokenizer={self.tokenizer!r} is not one of "
                             f"{', '.join(line_tokenizers.KINDS)}")
    if self.output_dir.startswith(RAM_FILESYSTEM) and self.pool_size > 1:
      raise errors.DataError(f"{self.output_dir}: ram:// files live in one "
                             "process; use num_processes=1")

  def job_shards(self, job_index):
    """Indices of the shards one job writes."""
    return [i for i in range(self.num_output_files)
            if i % self.num_jobs == job_index]

  def worker_shards(self):
    """Indices of the shards this worker's jobs write."""
    return sorted(i for local_index in range(self.worker_jobs)
                  for i in self.job_shards(self.job_index(local_index)))

  def job_rng(self, job_index):
    """The job's rng: `Random(seed)` in exact mode (a single job)."""
    if self.num_jobs == 1:
      return random.Random(self.seed)
    return random.Random(f"{self.seed}/{job_index}/{self.num_jobs}")


def _own_outputs(config):
  """File names this worker writes: its shards and its metadata."""
  names = [tfrecords.shard_name(i, config.num_output_files)
           for i in config.worker_shards()]
  return set(names) | {tfrecords.metadata_name(config.worker_index,
                                               config.num_workers)}


def prepare_output_dir(config):
  """Creates the output dir; refuses to mix runs unless `overwrite`.

  A single worker needs an empty directory; one of several workers needs
  none of its own files there. `overwrite` deletes only files this builder
  writes (all of them for a single worker, its own otherwise).
  """
  tf.io.gfile.makedirs(config.output_dir)
  entries = [name.rstrip("/") for name in tf.io.gfile.listdir(
      config.output_dir) if not run_lock.is_lock_file(name)]
  if config.num_workers > 1:
    own = _own_outputs(config)
    entries = [name for name in entries
               if name in own or name.replace(tfrecords.TEMP_SUFFIX, "") in own]
  if not entries:
    return
  if not config.overwrite:
    raise errors.DataError(
        f"output dir {config.output_dir} is not empty ({len(entries)} "
        f"entries, e.g. {sorted(entries)[0]}); pass --overwrite to replace "
        "the dataset files")
  for name in entries:
    if tfrecords.is_builder_output(name):
      tf.io.gfile.remove(tf.io.gfile.join(config.output_dir, name))
    else:
      logging.warning("keeping %s in the output dir: not a dataset file", name)


def _lines_counting_documents(lines, stats, blanks_separate_docs):
  """Passes lines through, counting the documents that have any text."""
  in_document = False
  for line in lines:
    if line.strip():
      stats.documents += not in_document
      in_document = True
    elif blanks_separate_docs:
      in_document = False
    yield line


def _use_one_thread():
  """One TensorFlow thread per process when processes share the cores."""
  try:
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
  except RuntimeError:  # TensorFlow already started in this process
    pass


@contextlib.contextmanager
def _long_lived_objects_frozen():
  """Leaves the objects that exist before the build out of collections.

  The build allocates millions of small lists; every collection of the
  oldest generation would also walk all objects TensorFlow and the
  tokenizers hold.
  """
  gc.freeze()
  try:
    yield
  finally:
    gc.unfreeze()


def run_job(config, corpus, local_index):
  """Builds and writes this worker's job `local_index`; returns its
  `BuildStats`."""
  job_index = config.job_index(local_index)
  rng = config.job_rng(job_index)
  tokenizer = from_files.build_tokenizer(
      config.vocab_file, config.sp_model_file, config.do_lower_case)
  line_tokenizer = line_tokenizers.build_line_tokenizer(
      config.tokenizer, config.vocab_file, config.sp_model_file,
      config.do_lower_case, tokenizer=tokenizer)
  builder = pretraining_examples.ExampleBuilder(
      tokenizer, config.max_seq_length, rng)
  writer = tfrecords.ShardWriter(config.output_dir,
                                 config.job_shards(job_index),
                                 config.num_output_files)
  stats = build_stats.BuildStats()
  units = corpus.units(job_index, config.num_jobs, rng)
  reporter = progress.ProgressLogger(
      f"job {job_index + 1}/{config.num_jobs}", stats,
      corpus.total_size(units), config.progress_seconds)
  with _long_lived_objects_frozen():
    for unit in units:
      stats.files += 1
      lines = _lines_counting_documents(
          corpus.lines(unit, stats), stats, config.blanks_separate_docs)
      for example in pretraining_examples.examples_from_lines(
          builder, lines, config.blanks_separate_docs, line_tokenizer):
        writer.write(example)
        stats.count_example(example)
        reporter.maybe_log()
  writer.close()
  logging.info("%s (done)", reporter.line())
  return stats


def _spawned_worker_setup():
  """Pool worker setup: one TensorFlow thread (the processes share the
  cores), and on Linux the kernel kills this worker when the build's main
  process dies (even by kill -9), so no orphan keeps writing."""
  _use_one_thread()
  try:
    libc = ctypes.CDLL(None)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
  except (OSError, AttributeError):
    pass  # not Linux: workers end when their task queue closes
  if os.getppid() == 1:  # the parent died before the line above ran
    os._exit(1)  # pylint: disable=protected-access


def _spawns_processes(config, corpus):
  """Whether the jobs run in spawned processes (see the module doc)."""
  if config.pool_size == 1:
    return False
  size = corpus.total_bytes()
  return size is None or size >= config.spawn_min_mb * (1 << 20)


def _run_jobs(config, corpus):
  if not _spawns_processes(config, corpus):
    if config.pool_size > 1:
      logging.info("a corpus under spawn_min_mb=%g: the %d jobs run one "
                   "after another in this process (same output)",
                   config.spawn_min_mb, config.worker_jobs)
    return [run_job(config, corpus, local_index)
            for local_index in range(config.worker_jobs)]
  # Spawned, not forked: TensorFlow's threads do not survive a fork.
  context = multiprocessing.get_context("spawn")
  with context.Pool(config.pool_size,
                    initializer=_spawned_worker_setup) as pool:
    return pool.starmap(run_job, [(config, corpus, local_index)
                                  for local_index in
                                  range(config.worker_jobs)], chunksize=1)


def _settings(config, corpus):
  """What the metadata records about how the data was made."""
  vocab_path = config.sp_model_file or config.vocab_file
  tokenizer = from_files.build_tokenizer(
      config.vocab_file, config.sp_model_file, config.do_lower_case)
  return {
      "vocab": {"kind": "sentencepiece" if config.sp_model_file
                else "wordpiece", "file": vocab_path,
                "sha256": tfrecords.file_sha256(vocab_path),
                "size": max(tokenizer.vocab.values()) + 1},
      "do_lower_case": config.do_lower_case,
      "max_seq_length": config.max_seq_length,
      "blanks_separate_docs": config.blanks_separate_docs,
      "num_output_files": config.num_output_files,
      "jobs_per_worker": config.worker_jobs,
      "seed": config.seed,
      "source": corpus.describe(),
      "builder": {"name": "electra_tf ExampleBuilder",
                  "version": electra_tf.__version__},
  }


def build_pretraining_dataset(config, corpus):
  """Writes this worker's shards and metadata; returns the metadata dict.

  Args:
    config: a `BuildConfig`.
    corpus: a `corpus.FileCorpus` or `tfds_corpus.TFDSCorpus`.

  Raises:
    DataError: for bad settings, a non-empty output dir, unreadable input or
      a corpus without any text.
  """
  config.validate()
  settings = _settings(config, corpus)  # checks the vocab before any work
  with run_lock.RunLock(config.output_dir, "dataset build",
                        f"{run_lock.LOCK_FILE}.worker-{config.worker_index}"):
    return _build(config, corpus, settings)


def _build(config, corpus, settings):
  prepare_output_dir(config)
  stats = build_stats.BuildStats()
  for job_stats in _run_jobs(config, corpus):
    stats.merge(job_stats)
  shards = config.worker_shards()
  if not stats.examples:
    tfrecords.finalize_shards(config.output_dir, shards,
                              config.num_output_files, keep=False)
    raise errors.DataError(f"empty corpus: {corpus.describe()} has no text "
                           f"to build examples from ({stats.summary()})")
  tfrecords.finalize_shards(config.output_dir, shards, config.num_output_files)
  tfrecords.write_metadata(config.output_dir, config.worker_index,
                           config.num_workers, settings, stats)
  logging.info("built %s: %s", config.output_dir, stats.summary())
  return {"settings": settings, "counts": stats.to_json()}
