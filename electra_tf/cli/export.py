"""Export a trained model as a SavedModel that takes raw text (`electra-export`).

  electra-export --model_dir $MODELS/mnli_model_1 --export_dir $SERVING/mnli
  electra-export --model_dir $MODELS/electra_small --export_dir $SERVING/enc

`--model_dir` (or `--checkpoint`, a prefix inside one) is either a
finetuning trial dir, whose task head is exported (`--task` picks one of a
multi-task run), or a pretraining run's model dir, whose discriminator
encoder is exported. Each export is a new version `<export_dir>/<n>/` in TF
Serving's layout. `--vocab_file` overrides the vocab the run's config
names. See `electra_tf/serving/` for the signatures.
"""

from absl import flags

from electra_tf import errors
from electra_tf.cli import entry_point
from electra_tf import run_export

NAME = "electra-export"


def define_flags(fv):
  """The command's flags, on the flag set `fv`."""
  def string(name, help_text):
    flags.DEFINE_string(name, None, help_text, flag_values=fv)

  string("model_dir", "A finetuning trial dir (<model_dir>_<trial>) or a "
         "pretraining run's model dir; its latest checkpoint is exported.")
  string("checkpoint", "A checkpoint prefix to export instead of the "
         "latest one in --model_dir.")
  string("export_dir", "TF Serving model dir; the export becomes its next "
         "version <export_dir>/<n>/.")
  string("task", "The task head to export (needed for multi-task runs).")
  string("vocab_file", "The WordPiece vocab (default: the run config's).")
  flags.DEFINE_integer("version", None, "Version number (default: one more "
                       "than the largest in --export_dir).", lower_bound=1,
                       flag_values=fv)
  flags.DEFINE_boolean(
      "jit_compile", True, "Run the model with XLA in the SavedModel, "
      "compiled on the first call of each power-of-two batch size: faster "
      "on CPUs at batch 1 and 32. TF Serving on CPUs then needs "
      "--xla_cpu_compilation_enabled=true; --nojit_compile exports the plain "
      "graph, which any TF Serving runs.",
      flag_values=fv)


def export(fv):
  """Runs what the flags ask for."""
  if not fv.export_dir:
    raise errors.ConfigError("no --export_dir given")
  if bool(fv.model_dir) == bool(fv.checkpoint):
    raise errors.ConfigError("give one of --model_dir or --checkpoint")
  path = run_export.export_model_dir(
      fv.checkpoint or fv.model_dir, fv.export_dir, fv.task, fv.vocab_file,
      fv.version, fv.jit_compile)
  print(path)


def main(argv=None):
  """Runs the command on `argv` (default `sys.argv`); returns the exit code."""
  return entry_point.run_tool(NAME, define_flags, export, argv)


def run():
  """Console-script entry point."""
  raise SystemExit(main())
