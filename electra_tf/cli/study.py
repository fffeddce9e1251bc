"""Compare pretraining objectives at equal compute (`electra-study`).

  electra-study --config configs/study/electra_vs_mlm.json \\
      --data_dir study_data --output_dir studies/electra_vs_mlm

Builds the vocab and TFRecords once, pretrains every objective of the
config at equal pretraining FLOPs for each seed, finetunes checkpoints along
the budget on every task for each finetuning seed, adds the references
(random initialisation, TF-IDF) and writes results.json, results.md and the
plots into the output dir. Killed or stopped by --max_seconds, the same
command continues where it stopped; a finished sub-run is reused only if
its settings are unchanged. --pretrain_dir takes the data and the
pretraining runs from another study's output dir, so a study that changes
only the finetuning recipe pretrains nothing again.

  electra-study --pool studies/seed0,studies/seed1 --output_dir studies/pooled

writes one report over the finished studies of the same config run with
other pretraining seeds (`pretrain_seeds`) in other output dirs.

  electra-study --pick_on_dev studies/lr_1e-3,studies/lr_3e-4 \\
      --output_dir studies/picked_on_dev

writes one report over finished studies of the same pretrained models
finetuned with other settings: for each model and task, the runs of the
setting with the best mean dev score.
"""

import json
import os

from absl import flags
from absl import logging
import tensorflow as tf

from electra_tf import errors
from electra_tf.cli import entry_point
from electra_tf.study import collect
from electra_tf.study import dev_selection
from electra_tf.study import report
from electra_tf.study import runner
from electra_tf.study import study_config

NAME = "electra-study"


def define_flags(fv):
  """The command's flags, on the flag set `fv`."""
  flags.DEFINE_string("config", None, "The study's JSON file (see "
                      "electra_tf/study/study_config.py for its keys).",
                      flag_values=fv)
  flags.DEFINE_string("profile", None, "A profile of the config to apply "
                      "(e.g. quick).", flag_values=fv)
  flags.DEFINE_string("data_dir", None, "Base of the config's relative "
                      "corpus and task paths (overrides its data_dir).",
                      flag_values=fv)
  flags.DEFINE_string("output_dir", None, "Where the study's runs and "
                      "report go.", flag_values=fv)
  flags.DEFINE_string("pretrain_dir", None, "Where the data and the "
                      "pretraining runs are (default: --output_dir). Give "
                      "another study's output dir to finetune its models "
                      "with other finetuning settings: its pretraining runs "
                      "are reused when their settings are identical.",
                      flag_values=fv)
  flags.DEFINE_float("max_seconds", None, "Stop (after saving) once this "
                     "much time has passed; rerun to continue.",
                     flag_values=fv)
  flags.DEFINE_list("pool", None, "Instead of --config: output dirs of "
                    "finished studies that differ only in their pretraining "
                    "seeds; writes one report over all their runs.",
                    flag_values=fv)
  flags.DEFINE_list("pick_on_dev", None, "Instead of --config: output "
                    "dirs of finished studies of the same pretrained models "
                    "that differ only in their finetuning settings; per "
                    "model and task, reports the setting with the best "
                    "mean dev score.", flag_values=fv)
  flags.mark_flags_as_mutual_exclusive(["config", "pool", "pick_on_dev"],
                                       required=True, flag_values=fv)
  flags.mark_flags_as_required(["output_dir"], flag_values=fv)


def _read_results(flag, output_dir):
  path = os.path.join(output_dir, report.RESULTS_JSON)
  if not tf.io.gfile.exists(path):
    raise errors.ConfigError(f"--{flag}: {path} does not exist (has that "
                             "study finished?)")
  with tf.io.gfile.GFile(path) as f:
    return json.load(f)


def combine(flag, output_dirs, combine_fn, output_dir):
  """Writes the report of `combine_fn` over the results of `output_dirs`."""
  try:
    combined = combine_fn([_read_results(flag, d) for d in output_dirs])
  except ValueError as e:
    raise errors.ConfigError(
        f"--{flag} {','.join(output_dirs)}: {e}") from None
  tf.io.gfile.makedirs(output_dir)
  for name, path in report.write(combined, output_dir).items():
    logging.info("%s: %s", name, path)


def study(fv):
  if fv.pool:
    return combine("pool", fv.pool, collect.pool, fv.output_dir)
  if fv.pick_on_dev:
    return combine("pick_on_dev", fv.pick_on_dev, dev_selection.pick_on_dev,
                   fv.output_dir)
  config = study_config.StudyConfig.from_json(fv.config, fv.profile,
                                              data_dir=fv.data_dir)
  try:
    written = runner.run_study(config, fv.output_dir, fv.max_seconds,
                               pretrain_dir=fv.pretrain_dir)
  except runner.StudyStopped as stopped:
    logging.info("stopped by signal %d (pretraining saved first): run the "
                 "same command again to continue", stopped.signal)
    return entry_point.signal_exit_code(stopped.signal)
  if written is None:
    logging.info("stopped early: run the same command again to continue")
    return
  for name, path in written.items():
    logging.info("%s: %s", name, path)


def main(argv=None):
  """Runs the command on `argv` (default `sys.argv`); returns the exit code."""
  return entry_point.run_tool(NAME, define_flags, study, argv)


def run():
  """Console-script entry point."""
  raise SystemExit(main())


if __name__ == "__main__":
  run()
