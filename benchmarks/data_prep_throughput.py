"""Dataset-builder throughput: ours against the original's approach.

  python benchmarks/data_prep_throughput.py
  python benchmarks/data_prep_throughput.py --input='corpus/*.txt' --vocab_file=vocab.txt
  python benchmarks/data_prep_throughput.py --input=corpus.txt --num_processes=1 --repeats=5

Builds the same pretraining TFRecords from the same corpus four times, each
build in a fresh process (so its peak memory and threads are its own):

  * reference, 1 process: the original's approach, written out here: for
    each line of each file, `FullTokenizer` (a line-by-line Python port of
    the original's), `ExampleBuilder.add_line`, a `tf.train.Example` message
    and `TFRecordWriter.write`;
  * ours, 1 process: `electra_tf.data.pretraining_dataset` as
    `electra-build-data` runs it (in-graph WordPiece tokenizer on batches of
    lines, records serialized directly), TensorFlow held to one thread, so
    the row is one core's work;
  * both again with one process per core (`--num_processes`), the corpus
    split by file as the original's --num-processes did (spawned whatever
    the corpus size: electra-build-data runs the jobs of a corpus under
    16 MB in its own process).

With --repeats=N each build runs N times, alternating between the two, and
the median build is reported. It prints wall and CPU seconds, tokens/s,
peak resident memory and the speed-up over the reference with the same
processes, and checks that each pair wrote byte-identical shards. The
clock starts after TensorFlow and the modules each build imports are loaded
(`BUILD_MODULES`: the import seconds are shown in their own column, and the
last column counts them in); it includes everything the build does, from
loading the vocab and building the tokenizer to closing the shards. The default corpus is the docstrings of
the installed Python and packages (`--corpus_mb` of them), the default
vocab the BERT uncased vocab in tests/testdata. See benchmarks/README.md.
"""

import glob
import hashlib
import importlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from absl import app
from absl import flags

import cpu_measurements

FLAGS = flags.FLAGS
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
flags.DEFINE_list("input", None, "Corpus files, dirs or globs (default: "
                  "--corpus_mb of Python docstrings written here).")
flags.DEFINE_integer("corpus_mb", 16, "Size of the default corpus, MB.")
flags.DEFINE_string("vocab_file", os.path.join(
    REPO, "tests", "testdata", "bert_uncased_vocab.txt"), "WordPiece vocab.")
flags.DEFINE_integer("max_seq_length", 128, "Tokens per example.")
flags.DEFINE_integer("num_processes", 0, "Processes of the all-cores rows "
                     "(0: all cores).")
flags.DEFINE_integer("num_output_files", 8, "Shards per build.")
flags.DEFINE_integer("seed", 0, "Seed of both builders.")
flags.DEFINE_integer("repeats", 1, "Builds per implementation and process "
                     "count, alternating between the two; the table shows "
                     "the median build (by wall time).")
flags.DEFINE_string("child", None, "Internal: run one build, print JSON.")

REFERENCE = "reference"
OURS = "ours"
NAMES = {REFERENCE: "reference (original's approach)",
         OURS: "electra-tf"}
BACKGROUND_WARNING_CORES = 0.25


def reference_job(spec, job_index):
  """One job of the original's builder loop; returns tokens written."""
  import random  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from electra_tf import tokenization  # pylint: disable=g-import-not-at-top
  from electra_tf.data import pretraining_examples  # pylint: disable=g-import-not-at-top
  from electra_tf.data import tfrecords  # pylint: disable=g-import-not-at-top
  tf.config.threading.set_intra_op_parallelism_threads(1)
  tf.config.threading.set_inter_op_parallelism_threads(1)
  num_jobs = spec["num_processes"]
  # The seeds and the split by file of our builder, so the shards compare.
  rng = (random.Random(spec["seed"]) if num_jobs == 1 else
         random.Random(f"{spec['seed']}/{job_index}/{num_jobs}"))
  files = spec["files"][job_index::num_jobs]
  rng.shuffle(files)
  builder = pretraining_examples.ExampleBuilder(
      tokenization.FullTokenizer(spec["vocab_file"]), spec["max_seq_length"],
      rng)
  num_shards = spec["num_output_files"]
  writers = [tf.io.TFRecordWriter(os.path.join(
      spec["output_dir"], tfrecords.shard_name(i, num_shards)))
             for i in range(num_shards) if i % num_jobs == job_index]
  written = tokens = 0
  for path in files:
    with tf.io.gfile.GFile(path) as f:
      lines = [line.strip() for line in f] + [""]  # "" ends the document
    for line in lines:
      example = builder.add_line(line)
      if example:
        record = tf.train.Example(features=tf.train.Features(feature={
            name: tf.train.Feature(int64_list=tf.train.Int64List(
                value=values))
            for name, values in example.as_features().items()}))
        writers[written % len(writers)].write(
            record.SerializeToString(deterministic=True))
        written += 1
        tokens += example.num_tokens
  for writer in writers:
    writer.close()
  return written, tokens


def _run_reference(spec):
  import multiprocessing  # pylint: disable=g-import-not-at-top
  os.makedirs(spec["output_dir"])
  jobs = range(spec["num_processes"])
  if len(jobs) == 1:
    results = [reference_job(spec, 0)]
  else:
    with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
      results = pool.starmap(reference_job, [(spec, job) for job in jobs])
  return {"examples": sum(r[0] for r in results),
          "tokens": sum(r[1] for r in results),
          "bytes": sum(os.path.getsize(path) for path in spec["files"])}


def _run_ours(spec):
  from electra_tf.data import corpus  # pylint: disable=g-import-not-at-top
  from electra_tf.data import pretraining_dataset  # pylint: disable=g-import-not-at-top
  config = pretraining_dataset.BuildConfig(
      output_dir=spec["output_dir"], vocab_file=spec["vocab_file"],
      max_seq_length=spec["max_seq_length"], seed=spec["seed"],
      num_output_files=spec["num_output_files"],
      num_processes=spec["num_processes"], progress_seconds=1e9,
      spawn_min_mb=0)  # the rows of several processes measure processes
  counts = pretraining_dataset.build_pretraining_dataset(
      config, corpus.FileCorpus(tuple(spec["files"])))["counts"]
  return {"examples": counts["examples"], "tokens": counts["tokens"],
          "bytes": counts["bytes_read"]}


# The modules each build imports, loaded before its clock starts (their
# import seconds are measured and shown apart).
BUILD_MODULES = {
    REFERENCE: ("electra_tf.tokenization", "electra_tf.data.tfrecords",
                "electra_tf.data.pretraining_examples"),
    OURS: ("electra_tf.data.corpus", "electra_tf.data.pretraining_dataset"),
}


def run_child(spec):
  """Runs one build in this process; prints its measurements as JSON."""
  # Imported here so that TensorFlow starts with one thread.
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  tf.config.threading.set_intra_op_parallelism_threads(1)
  tf.config.threading.set_inter_op_parallelism_threads(1)
  start = time.perf_counter()
  for module in BUILD_MODULES[spec["kind"]]:
    importlib.import_module(module)
  imports = time.perf_counter() - start
  run = _run_reference if spec["kind"] == REFERENCE else _run_ours
  meter = cpu_measurements.CpuMeter()
  own_before, workers_before = _cpu_seconds()
  with meter:
    start = time.perf_counter()
    counts = run(spec)
    wall = time.perf_counter() - start
  own_after, workers_after = _cpu_seconds()
  workers_cpu = workers_after - workers_before
  print(json.dumps(dict(
      counts, wall=wall, imports=imports,
      cpu=own_after - own_before + workers_cpu,
      # The meter counts our pool workers as other processes.
      other_cores=max(0.0, meter.other_seconds - workers_cpu) / wall,
      peak_mb=_peak_mb(resource.RUSAGE_SELF),
      worker_peak_mb=_peak_mb(resource.RUSAGE_CHILDREN))))


def _cpu_seconds():
  """CPU seconds of this process, and of its finished children."""
  own = resource.getrusage(resource.RUSAGE_SELF)
  children = resource.getrusage(resource.RUSAGE_CHILDREN)
  return (own.ru_utime + own.ru_stime,
          children.ru_utime + children.ru_stime)


def _peak_mb(who):
  return resource.getrusage(who).ru_maxrss / 1024  # Linux: KiB


def default_corpus(directory):
  """Writes `--corpus_mb` MB of docstrings (repeated if too few)."""
  from electra_tf.data import docstring_corpus  # pylint: disable=g-import-not-at-top
  target = FLAGS.corpus_mb << 20
  paths = docstring_corpus.write_docstring_corpus(directory, target)
  size, copies = sum(map(os.path.getsize, paths)), 0
  originals = list(paths)
  while size < target:
    copies += 1
    for path in originals:
      copy = path.replace(".txt", f"-copy{copies}.txt")
      with open(path, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
      size += os.path.getsize(copy)
  return sorted(glob.glob(os.path.join(directory, "*.txt"))), size, copies


def shard_digests(output_dir):
  digests = {}
  for path in sorted(glob.glob(os.path.join(output_dir, "*.tfrecord-*"))):
    with open(path, "rb") as f:
      digests[os.path.basename(path)] = hashlib.sha256(f.read()).hexdigest()
  return digests


def median_build(runs):
  """The build with the median wall time (the lower middle one of an even
  count), with every build's wall seconds."""
  ordered = sorted(runs, key=lambda r: r["wall"])
  return dict(ordered[(len(ordered) - 1) // 2],
              walls=[r["wall"] for r in runs])


def build(kind, num_processes, files, workdir, repeat=0):
  output_dir = os.path.join(workdir,
                            f"out-{kind}-{num_processes}-{repeat}")
  spec = {"kind": kind, "output_dir": output_dir, "files": files,
          "vocab_file": FLAGS.vocab_file, "seed": FLAGS.seed,
          "max_seq_length": FLAGS.max_seq_length,
          "num_output_files": FLAGS.num_output_files,
          "num_processes": num_processes}
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(
      [REPO, os.path.dirname(os.path.abspath(__file__)),
       os.environ.get("PYTHONPATH", "")]), TF_CPP_MIN_LOG_LEVEL="2")
  result = subprocess.run(
      [sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)],
      env=env, capture_output=True, text=True, check=False)
  if result.returncode:
    raise SystemExit(f"build {kind} x{num_processes} failed:\n"
                     f"{result.stderr[-3000:]}")
  measured = json.loads(result.stdout.strip().splitlines()[-1])
  measured["digests"] = shard_digests(output_dir)
  shutil.rmtree(output_dir)
  return measured


def main(argv):
  del argv
  if FLAGS.child:
    run_child(json.loads(FLAGS.child))
    return
  num_processes = FLAGS.num_processes or os.cpu_count()
  workdir = tempfile.mkdtemp(prefix="data_prep_throughput_")
  if FLAGS.input:
    from electra_tf.data import corpus  # pylint: disable=g-import-not-at-top
    files = list(corpus.list_input_files(FLAGS.input))
    note = ", ".join(FLAGS.input)
  else:
    files, size, copies = default_corpus(os.path.join(workdir, "corpus"))
    note = (f"{size / 2**20:.1f} MB of Python docstrings"
            + (f" ({copies} extra copies)" if copies else ""))
  print(f"{cpu_measurements.cpu_name()}, {os.cpu_count()} cores; corpus: "
        f"{note}; vocab {FLAGS.vocab_file}; max_seq_length "
        f"{FLAGS.max_seq_length}")
  rows = []
  for processes in sorted({1, num_processes}):
    builds = {REFERENCE: [], OURS: []}
    for repeat in range(max(1, FLAGS.repeats)):
      for kind in (REFERENCE, OURS):
        builds[kind].append(build(kind, processes, files, workdir, repeat))
      identical = (builds[REFERENCE][-1]["digests"] ==
                   builds[OURS][-1]["digests"])
      if not identical:
        raise SystemExit(f"{processes} process(es): the shards differ")
    pair = {kind: median_build(runs) for kind, runs in builds.items()}
    for kind in (REFERENCE, OURS):
      rows.append(dict(pair[kind], name=NAMES[kind], processes=processes,
                       speedup=pair[REFERENCE]["wall"] / pair[kind]["wall"],
                       speedup_with_imports=(
                           _with_imports(pair[REFERENCE]) /
                           _with_imports(pair[kind])),
                       identical=identical))
  print_table(rows)
  busy = [r for r in rows if r["other_cores"] > BACKGROUND_WARNING_CORES]
  for r in busy:
    print(f"warning: other processes used {r['other_cores']:.2f} cores "
          f"during '{r['name']}' x{r['processes']}")


def _with_imports(build):
  return build["wall"] + build["imports"]


def print_table(rows):
  print(f"\n{rows[0]['tokens']:,} tokens in {rows[0]['examples']:,} examples "
        f"from {rows[0]['bytes'] / 2**20:.1f} MB; each pair wrote "
        "byte-identical shards\n")
  print("| implementation | processes | wall s | CPU s | tokens/s | "
        "tokens per CPU s | peak RSS MB (main / workers) | speed-up | "
        "imports s | speed-up counting imports |")
  print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
  for r in rows:
    workers = f" / {r['worker_peak_mb']:.0f}" if r["processes"] > 1 else ""
    print(f"| {r['name']} | {r['processes']} | {r['wall']:.1f} | "
          f"{r['cpu']:.1f} | {r['tokens'] / r['wall']:,.0f} | "
          f"{r['tokens'] / r['cpu']:,.0f} | {r['peak_mb']:.0f}{workers} | "
          f"{r['speedup']:.1f}x | {r['imports']:.2f} | "
          f"{r['speedup_with_imports']:.1f}x |")
  if len(rows[0]["walls"]) > 1:
    print(f"\nmedian of {len(rows[0]['walls'])} builds each; every build's "
          "wall seconds:")
    for r in rows:
      print(f"- {r['name']}, {r['processes']} process(es): "
            + ", ".join(f"{w:.2f}" for w in r["walls"]))


if __name__ == "__main__":
  app.run(main)
