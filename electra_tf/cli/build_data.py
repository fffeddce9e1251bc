"""Command line: text corpus -> pretraining TFRecords (+ metadata JSON).

  python data_prep/build_pretraining_dataset.py --input=corpus/ \
      --vocab_file=vocab.txt --output_dir=data/ --max_seq_length=128

The original's flag spellings (--corpus-dir, --vocab-file, --output-dir,
--max-seq-length, --num-processes, --blanks-separate-docs,
--do-lower-case/--no-lower-case) are accepted too. Unlike the original, a
non-empty output dir is refused unless --overwrite, and
--blanks-separate-docs=false really turns the option off.

Exact mode: with one process on one worker (the defaults) the examples are
those of the original run with `--num-processes 1` after `random.seed(seed)`.
"""

from absl import flags
from absl import logging

from electra_tf.cli import corpus_flags
from electra_tf.cli import entry_point
from electra_tf.data import pretraining_dataset
from electra_tf.tokenization import line_tokenizers

NAME = "build_pretraining_dataset"
# Original flag -> ours; the original took these as "--flag value".
translate_original_flags = entry_point.original_flag_translator(
    {"--corpus-dir": "--input", "--vocab-file": "--vocab_file",
     "--output-dir": "--output_dir", "--max-seq-length": "--max_seq_length",
     "--num-processes": "--num_processes",
     "--blanks-separate-docs": "--blanks_separate_docs"},
    {"--do-lower-case": "--do_lower_case",
     "--no-lower-case": "--nodo_lower_case"})


def define_flags(flag_values):
  corpus_flags.define_corpus_flags(flag_values)
  defaults = pretraining_dataset.BuildConfig(output_dir="")
  for name, help_text in [
      ("vocab_file", "WordPiece vocab (one token per line)."),
      ("sp_model_file", "Instead of --vocab_file: a SentencePiece model."),
      ("output_dir", "Where to write the shards and metadata.")]:
    flags.DEFINE_string(name, None, help_text, flag_values=flag_values)
  flags.mark_flag_as_required("output_dir", flag_values=flag_values)
  for name, lower_bound, help_text in [
      ("max_seq_length", 5, "Tokens per example, [CLS]/[SEP] included."),
      ("num_output_files", 1, "Shards over all workers and jobs."),
      ("num_processes", 1, "Processes on this machine."),
      ("jobs_per_worker", 0, "Jobs on this machine, each with its own "
       "files, shards and random stream: with the seed and --num_workers "
       "they fix the data, whatever --num_processes runs them. 0: one per "
       "process."),
      ("num_workers", 1, "Machines sharing the corpus (by file)."),
      ("worker_index", 0, "This machine's index in [0, num_workers)."),
      ("seed", None, "Seed of the random segment/length choices; one "
       "job (one process, one worker) reproduces the original after "
       "random.seed(seed).")]:
    flags.DEFINE_integer(name, getattr(defaults, name), help_text,
                         lower_bound=lower_bound, flag_values=flag_values)
  flags.DEFINE_boolean(
      "blanks_separate_docs", True, "Blank lines end documents; else only "
      "file ends do.", flag_values=flag_values)
  flags.DEFINE_enum(
      "tokenizer", defaults.tokenizer, line_tokenizers.KINDS,
      "How lines are tokenized (the ids are the same): 'tensorflow' runs "
      "the in-graph WordPiece tokenizer on batches of lines (fast); "
      "'python' runs FullTokenizer line by line, as the original.",
      flag_values=flag_values)
  flags.DEFINE_float(
      "spawn_min_mb", defaults.spawn_min_mb, "With --num_processes > 1, a "
      "corpus under this many MB runs its jobs one after another in this "
      "process (same output; a spawned process first imports TensorFlow). "
      "0: always spawn.", lower_bound=0, flag_values=flag_values)
  flags.DEFINE_float("progress_seconds", defaults.progress_seconds,
                     "Seconds between progress lines.", lower_bound=0,
                     flag_values=flag_values)


def build(flag_values):
  """Builds the dataset the flags describe."""
  config = pretraining_dataset.BuildConfig(
      output_dir=flag_values.output_dir, vocab_file=flag_values.vocab_file,
      sp_model_file=flag_values.sp_model_file,
      do_lower_case=flag_values.do_lower_case,
      max_seq_length=flag_values.max_seq_length,
      blanks_separate_docs=flag_values.blanks_separate_docs,
      num_output_files=flag_values.num_output_files,
      num_processes=flag_values.num_processes,
      jobs_per_worker=flag_values.jobs_per_worker,
      spawn_min_mb=flag_values.spawn_min_mb,
      num_workers=flag_values.num_workers,
      worker_index=flag_values.worker_index, seed=flag_values.seed,
      overwrite=flag_values.overwrite,
      progress_seconds=flag_values.progress_seconds,
      tokenizer=flag_values.tokenizer)
  source = corpus_flags.corpus_from_flags(flag_values)
  logging.info("building %s from %s", config.output_dir, source.describe())
  pretraining_dataset.build_pretraining_dataset(config, source)


def main(argv=None):
  """Runs the tool on `argv` (default `sys.argv`); returns the exit code."""
  return entry_point.run_tool(NAME, define_flags, build, argv,
                              translate_original_flags)


def run():
  """Console-script entry point."""
  raise SystemExit(main())


if __name__ == "__main__":
  run()
