"""The built-in demo: text on this machine -> a pretrained, exported ELECTRA.

Steps, each skipped when its output is already there (so a rerun resumes):
  1. corpus: docstrings of the installed Python (or the given --text files);
  2. a WordPiece vocab learned from it;
  3. pretraining TFRecords (train, and a held-out eval file);
  4. pretraining of the `tiny` preset (resumes from the last checkpoint);
  5. the original's eval metrics on the held-out data;
  6. the discriminator exported as a SavedModel that takes raw text.
"""

import os
import time

import tensorflow as tf
from absl import logging

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf.checkpoints import object_format
from electra_tf.cli import replacement_probe
from electra_tf.data import corpus as corpus_lib
from electra_tf.data import dataset_checks
from electra_tf.data import docstring_corpus
from electra_tf.data import pretraining_dataset
from electra_tf.data import tfrecords
from electra_tf.data import vocab_from_corpus
from electra_tf.pretraining import health
from electra_tf.pretraining import model as model_lib
from electra_tf.pretraining import train_loop
from electra_tf.serving import encoder_module
from electra_tf.tokenization import vocab_files
from electra_tf.training import distribute
from electra_tf.training import progress

DEMO_PRESET = "tiny"
VOCAB_SIZE = 4000  # learned in well under a minute on 2 cores
CORPUS_BYTES = 4_000_000
# Build jobs per dataset, whatever the core count (they fix the data).
BUILD_JOBS = 2


def _corpus_files(demo_dir, text_patterns):
  """The demo corpus files; written once from docstrings unless given."""
  if text_patterns:
    return corpus_lib.list_input_files(text_patterns.split(","))
  folder = os.path.join(demo_dir, "corpus")
  logging.info("docstrings of the installed Python in %s", folder)
  return docstring_corpus.docstring_corpus_files(folder, CORPUS_BYTES)


def _vocab(demo_dir, files):
  path = os.path.join(demo_dir, "vocab.txt")
  if not tf.io.gfile.exists(path):
    logging.info("learning a %d-token WordPiece vocab", VOCAB_SIZE)
    vocab_from_corpus.build_wordpiece_vocab(  # written whole or not at all
        corpus_lib.FileCorpus(tuple(files)), path, VOCAB_SIZE, overwrite=True)
  return path


def _dataset(output_dir, files, vocab_file, max_seq_length):
  """Builds (or reuses) one TFRecord dataset; returns its shard paths."""
  try:
    tfrecords.read_metadata(output_dir)
    return tfrecords.finished_shards(output_dir)
  except errors.DataError:
    pass  # absent or half-written: build it (again)
  pretraining_dataset.build_pretraining_dataset(
      pretraining_dataset.BuildConfig(
          output_dir=output_dir, vocab_file=vocab_file,
          max_seq_length=max_seq_length, num_output_files=len(files),
          jobs_per_worker=min(len(files), BUILD_JOBS),
          num_processes=os.cpu_count() or 1,
          overwrite=True),
      corpus_lib.FileCorpus(tuple(files)))
  return tfrecords.finished_shards(output_dir)


def _export(config, model_dir, vocab_file, export_dir, special_ids):
  """Exports the latest checkpoint unless that step was exported already."""
  latest = tf.train.latest_checkpoint(model_dir)
  marker = os.path.join(export_dir, f"exported-{os.path.basename(latest)}")
  if tf.io.gfile.exists(marker):
    versions = sorted(int(v.rstrip("/")) for v in tf.io.gfile.listdir(
        export_dir) if v.rstrip("/").isdigit())
    return os.path.join(export_dir, str(versions[-1]))
  model = model_lib.ElectraPretrainer(config, special_ids=special_ids)
  model.build()
  object_format.read_strictly(tf.train.Checkpoint(model=model), latest,
                              f"cannot restore {latest}")
  path = encoder_module.export_encoder(model, vocab_file, export_dir)
  with tf.io.gfile.GFile(marker, "w") as f:
    f.write(path + "\n")
  return path


def run_demo(demo_dir, text_patterns=None, hparams=None, max_seconds=None):
  """Runs (or resumes) the whole demo under `demo_dir`; returns a summary."""
  started = time.time()
  tf.io.gfile.makedirs(demo_dir)
  files = _corpus_files(demo_dir, text_patterns)
  if len(files) < 2:
    raise errors.DataError("the demo needs at least two text files (one is "
                           "held out for evaluation)")
  vocab_file = _vocab(demo_dir, files)
  vocab_size = vocab_files.num_ids(vocab_files.load_vocab(vocab_file))
  config = config_lib.load_pretraining_config(
      DEMO_PRESET, hparams, vocab_size=vocab_size, vocab_file=vocab_file)
  if config.objective in config_lib.OBJECTIVES_WITHOUT_DETECTOR:
    raise errors.ConfigError(
        f"the demo exports and probes a replaced-token detector; objective "
        f"{config.objective!r} trains none (run electra-pretrain for it)")
  data_dir = os.path.join(demo_dir, "data")
  train = _dataset(os.path.join(data_dir, "train"), files[:-1], vocab_file,
                   config.max_seq_length)
  held_out = _dataset(os.path.join(data_dir, "eval"), files[-1:], vocab_file,
                      config.max_seq_length)
  special_ids = dataset_checks.special_token_ids(config)
  strategy = distribute.build_strategy("auto")
  model_dir = os.path.join(demo_dir, "model")
  result = train_loop.pretrain(
      config, strategy, model_dir, train, special_ids,
      max_seconds=max_seconds,
      peak_flops=progress.measure_matmul_peak() * strategy.num_replicas_in_sync,
      health_files=held_out)
  summary = {"model_dir": model_dir, "step": result.step,
             "checkpoint": result.checkpoint, "vocab": vocab_file,
             "train_data": os.path.dirname(train[0]),
             "eval_data": os.path.dirname(held_out[0])}
  if result.stopped_early:
    summary["stopped_early"] = True
    summary["stop_signal"] = result.stop_signal
    return summary
  summary["eval"] = train_loop.evaluate(config, strategy, model_dir, held_out,
                                        special_ids, num_steps=0)
  summary["export"] = _export(config, model_dir, vocab_file,
                              os.path.join(demo_dir, "export"), special_ids)
  summary["probe"] = _probe(files[-1], summary["export"], vocab_file)
  summary["seconds"] = time.time() - started
  return summary


def _probe(held_out_file, export_dir, vocab_file):
  """The exported model on held-out sentences, one word of each replaced."""
  with tf.io.gfile.GFile(held_out_file) as f:
    sentences = replacement_probe.pick_sentences(f)
  return replacement_probe.probe(export_dir, vocab_file, sentences)


def report(summary):
  """The lines printed at the end of the demo."""
  lines = [f"ELECTRA demo: step {summary['step']}",
           f"  vocab:        {summary['vocab']}",
           f"  train data:   {summary['train_data']}",
           f"  model dir:    {summary['model_dir']} (checkpoint "
           f"{summary['checkpoint']})"]
  if summary.get("stopped_early"):
    lines.append("  stopped early: run the same command again to continue")
    return lines
  metrics = summary["eval"]
  lines.append(
      "  eval (held out): " + ", ".join(
          f"{k} {metrics[k]:.3f}" for k in (
              "masked_lm_accuracy", "sampled_masked_lm_accuracy",
              "disc_accuracy", "disc_auc") if k in metrics))
  lines.append(f"  {health.verdict(metrics).message()}")
  lines += replacement_probe.report_lines(summary.get("probe") or [])
  lines += [f"  SavedModel:   {summary['export']}",
            f"  TensorBoard:  tensorboard --logdir {summary['model_dir']}",
            "  Try it:       python -c \"import tensorflow as tf, "
            "tensorflow_text; m = tf.saved_model.load('"
            f"{summary['export']}'); print(m.signatures['serving_default']("
            "text=tf.constant(['The quick brown fox.']))['rtd_probs'])\""]
  return lines
