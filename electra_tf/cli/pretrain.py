"""Pretrain ELECTRA, or evaluate a pretrained one (`electra-pretrain`).

  electra-pretrain --preset electra_small --train_data 'gs://b/data/*' \\
      --model_dir gs://b/models/small --tpu my-tpu \\
      --hparams '{"precision": "mixed_bfloat16"}'

The original's `--data-dir`, `--model-name` and `--hparams` work unchanged:
data is then read from `<data-dir>/pretrain_tfrecords/`, the vocab from
`<data-dir>/vocab.txt`, and the model lives in `<data-dir>/models/<name>`.
Rerunning the same command resumes from the model dir's last checkpoint.
Without data, preset or hparams it runs the built-in demo (see `demo.py`).
"""

from absl import flags
from absl import logging

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf import hparams as hparams_lib
from electra_tf.cli import demo
from electra_tf.cli import entry_point
from electra_tf.data import dataset_checks
from electra_tf.data import pretrain_pipeline
from electra_tf.pretraining import train_loop
from electra_tf.training import distribute
from electra_tf.training import progress

NAME = "electra-pretrain"
DEFAULT_DEMO_DIR = "electra_demo"
translate_original_flags = entry_point.original_flag_translator(
    {"--data-dir": "--data_dir", "--model-name": "--model_name"})


def define_flags(fv):
  """The command's flags, on the flag set `fv`."""
  def string(name, help_text):
    flags.DEFINE_string(name, None, help_text, flag_values=fv)

  string("preset", "A preset in configs/pretrain/ ("
         f"{', '.join(hparams_lib.preset_names())}) or a JSON file.")
  flags.DEFINE_multi_string(
      "hparams", [], "Original-style hparams: a JSON object or a path to a "
      "JSON file; applied over --preset. Repeatable: later ones override "
      "earlier ones' keys.", flag_values=fv)
  string("data_dir", "The original's data dir: pretrain_tfrecords/, "
         "vocab.txt and models/<model_name> inside.")
  string("model_name", "Run name under <data_dir>/models/.")
  string("model_dir", "Checkpoints, config.json and TensorBoard logs "
         "(overrides the hparams' model_dir).")
  string("train_data", "Comma-separated TFRecord globs or directories "
         "(overrides pretrain_tfrecords).")
  string("eval_data", "TFRecords to evaluate on (default: eval_tfrecords, "
         "else pretrain_tfrecords).")
  string("tpu", "Cloud TPU name or grpc:// address (overrides tpu_name; "
         "implies --strategy=tpu).")
  string("init_checkpoint", "Start from this checkpoint when the model dir "
         "has none: a released TF1 ELECTRA checkpoint (original names) or "
         "one of ours.")
  flags.DEFINE_enum("mode", None, ["train", "eval", "train_and_eval"],
                    "What to run (default: from do_train/do_eval).",
                    flag_values=fv)
  flags.DEFINE_enum("strategy", "auto", list(distribute.STRATEGIES),
                    "Distribution strategy.", flag_values=fv)
  flags.DEFINE_float("max_seconds", None, "Stop (after saving) once this "
                     "much time has passed; rerun to continue.",
                     flag_values=fv)
  flags.DEFINE_float("peak_tflops", None, "Peak TFLOP/s of all devices, for "
                     "the utilisation figure (default: measured).",
                     flag_values=fv)
  flags.DEFINE_boolean("demo", None, "Run the built-in demo (the default "
                       "when no data, preset or hparams are given).",
                       flag_values=fv)
  string("demo_dir", "Where the demo keeps its files (default: "
         "./electra_demo).")
  string("text", "Demo only: comma-separated text files/globs to use "
         "instead of Python's docstrings (one sentence per line, blank "
         "line between documents).")


def load_config(fv):
  """The config from --preset, --hparams and the original's dir flags."""
  extra = {"model_name": fv.model_name} if fv.model_name else {}
  config = config_lib.load_pretraining_config(
      fv.preset, hparams_lib.merged_hparams(fv.hparams), **extra)
  if fv.data_dir:
    config = config_lib.PretrainingConfig.from_hparams(
        config.hparams_passed, data_dir=fv.data_dir)
  return config


def _files(value, what):
  if not value:
    raise errors.ConfigError(f"no {what}: give --train_data/--eval_data, "
                             "--data_dir or pretrain_tfrecords in --hparams")
  return pretrain_pipeline.match_shards(value)


def _wants_demo(fv):
  if fv.demo is not None:
    return fv.demo
  return not any((fv.preset, fv.hparams, fv.data_dir, fv.train_data,
                  fv.eval_data, fv.model_dir, fv.mode))


def pretrain(fv):
  """Runs what the flags ask for."""
  if _wants_demo(fv):
    summary = demo.run_demo(fv.demo_dir or DEFAULT_DEMO_DIR, fv.text,
                            hparams_lib.merged_hparams(fv.hparams),
                            fv.max_seconds)
    print("\n".join(demo.report(summary)))
    return entry_point.signal_exit_code(summary.get("stop_signal"))
  config = load_config(fv)
  model_dir = fv.model_dir or config.model_dir
  if not model_dir:
    raise errors.ConfigError("no model dir: give --model_dir or --data_dir")
  if not (fv.mode or config.do_train or config.do_eval):
    raise errors.ConfigError(
        "do_train and do_eval are both false: nothing to do (set one of "
        "them, or pass --mode)")
  mode = fv.mode or ("train_and_eval" if config.do_train and config.do_eval
                     else "eval" if config.do_eval else "train")
  special_ids = dataset_checks.special_token_ids(config)
  strategy = distribute.strategy_for_run(config, fv.strategy, fv.tpu)
  logging.info("%d replica(s); model dir %s", strategy.num_replicas_in_sync,
               model_dir)
  if mode != "eval":
    files = _files(fv.train_data or config.pretrain_tfrecords, "train data")
    dataset_checks.check_dataset_metadata(files, config)
    peak = fv.peak_tflops * 1e12 if fv.peak_tflops else (
        progress.measure_matmul_peak() * strategy.num_replicas_in_sync)
    held_out = fv.eval_data or config.eval_tfrecords
    result = train_loop.pretrain(
        config, strategy, model_dir, files, special_ids,
        init_checkpoint=fv.init_checkpoint, max_seconds=fv.max_seconds,
        peak_flops=peak,
        health_files=_files(held_out, "eval data") if held_out else None)
    logging.info("step %d; checkpoint %s", result.step, result.checkpoint)
    if result.stopped_early:
      return entry_point.signal_exit_code(result.stop_signal)
  if mode != "train":
    files = _files(fv.eval_data or config.eval_tfrecords
                   or config.pretrain_tfrecords, "eval data")
    train_loop.evaluate(config, strategy, model_dir, files, special_ids,
                        init_checkpoint=fv.init_checkpoint)


def main(argv=None):
  """Runs the command on `argv` (default `sys.argv`); returns the exit code."""
  return entry_point.run_tool(NAME, define_flags, pretrain, argv,
                              translate_original_flags)


def run():
  """Console-script entry point."""
  raise SystemExit(main())
