"""Finetune ELECTRA on GLUE, SQuAD or chunking (`electra-finetune`).

  electra-finetune --data-dir $DATA_DIR --model-name electra_small \\
      --hparams '{"model_size": "small", "task_names": ["mnli"]}'

As the original `run_finetuning.py`: raw task data is read from
`<data-dir>/finetuning_data/<task>/`, the pretrained model from
`<data-dir>/models/<model-name>/` (ours or an original TF1 checkpoint),
and models, cached features and results are written below it. Each trial
t trains in `<model_dir>_<t>`; rerunning resumes or skips finished trials.
With `--export_dir`, each task of each trial is then exported to
`<export_dir>/<task>/<version>/` as a SavedModel taking raw text (see
`electra-export` to export an existing trial).
"""

from absl import flags
from absl import logging

from electra_tf import hparams as hparams_lib
from electra_tf import run_export
from electra_tf.cli import entry_point
from electra_tf.finetuning import config as finetuning_config
from electra_tf.finetuning import runner
from electra_tf.training import distribute

NAME = "electra-finetune"
PRESET_KIND = "finetune"
translate_original_flags = entry_point.original_flag_translator(
    {"--data-dir": "--data_dir", "--model-name": "--model_name"})
# Flags that set the hparam of the same name.
HPARAM_FLAGS = ("data_dir", "model_name", "task_names", "init_checkpoint",
                "model_dir")


def define_flags(fv):
  """The command's flags, on the flag set `fv`."""
  def string(name, help_text):
    flags.DEFINE_string(name, None, help_text, flag_values=fv)

  string("preset", "A preset in configs/finetune/ ("
         f"{', '.join(hparams_lib.preset_names(PRESET_KIND))}) or a JSON "
         "file.")
  flags.DEFINE_multi_string(
      "hparams", [], "Original-style hparams: a JSON object or a path to a "
      "JSON file; applied over --preset. Repeatable: later ones override "
      "earlier ones' keys.", flag_values=fv)
  string("data_dir", "The original's data dir: finetuning_data/, vocab.txt "
         "and models/<model_name> inside.")
  string("model_name", "The pretrained model under <data_dir>/models/.")
  string("task_names", "Comma-separated tasks (e.g. mnli or sst,sts); "
         "overrides the hparams' task_names.")
  string("init_checkpoint", "Start from this checkpoint (ours or an "
         "original TF1 one, a prefix or a directory) instead of "
         "<data_dir>/models/<model_name>.")
  string("model_dir", "Where the trials train (<model_dir>_<trial>).")
  string("tpu", "Cloud TPU name or grpc:// address (implies "
         "--strategy=tpu).")
  string("export_dir", "After training, export every task of every trial "
         "to <export_dir>/<task>/<version>/ (SavedModels taking raw text).")
  flags.DEFINE_enum("strategy", "auto", list(distribute.STRATEGIES),
                    "Distribution strategy.", flag_values=fv)
  flags.DEFINE_boolean("overwrite", False, "Retrain trial dirs that hold a "
                       "trial of other settings (they are wiped first, as "
                       "the original did); without it they are refused.",
                       flag_values=fv)
  flags.DEFINE_boolean("export_jit_compile", True, "With --export_dir: "
                       "run the exported models with XLA (see "
                       "electra-export --jit_compile; "
                       "--noexport_jit_compile exports the plain graph).",
                       flag_values=fv)


def load_config(fv):
  """The config from --preset, --hparams and the flags naming hparams."""
  hparams = (hparams_lib.preset_hparams(fv.preset, PRESET_KIND) if fv.preset
             else {})
  hparams.update(hparams_lib.merged_hparams(fv.hparams))
  for name in HPARAM_FLAGS:
    value = getattr(fv, name)
    if value is not None:
      hparams[name] = value
  if fv.tpu:
    hparams["tpu_name"] = fv.tpu
  return finetuning_config.FinetuningConfig.from_hparams(hparams)


def finetune(fv):
  """Runs what the flags ask for."""
  config = load_config(fv)
  runner.check_run(config)
  strategy = distribute.strategy_for_run(config, fv.strategy, fv.tpu)
  logging.info("%d replica(s); tasks %s", strategy.num_replicas_in_sync,
               ",".join(config.task_names))
  results = runner.run_finetuning(config, strategy, overwrite=fv.overwrite)
  for task, metrics in results.median.items():
    logging.info("median of %d trial(s) %s: %s", len(results.trials), task,
                 " - ".join(f"{k}: {v:.2f}" for k, v in metrics.items()))
  if fv.export_dir:
    for task, paths in run_export.export_finetuning_run(
        config, fv.export_dir, jit_compile=fv.export_jit_compile).items():
      logging.info("exported %s: %s", task, ", ".join(paths))


def main(argv=None):
  """Runs the command on `argv` (default `sys.argv`); returns the exit code."""
  return entry_point.run_tool(NAME, define_flags, finetune, argv,
                              translate_original_flags)


def run():
  """Console-script entry point."""
  raise SystemExit(main())
