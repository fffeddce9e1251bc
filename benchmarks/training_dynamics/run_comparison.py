"""Training dynamics: electra-tf against the original ELECTRA, over seeds.

  python benchmarks/training_dynamics/run_comparison.py \\
      --electra_dir=/path/to/google-research/electra \\
      --original_python=/path/to/origenv/bin/python \\
      --work_dir=/tmp/electra_dynamics

Trains the original (in its own environment, `original_driver.py`) and ours
(`ours_driver.py`) on the same TFRecords with the same hparams, for each
configuration and seed, evaluates every checkpoint of both with the
original's eval metrics on the same held-out batches, and writes
`report.md`, `results.json` and one PNG per configuration to `--output_dir`
(see `report.py`). Finished runs are reused: rerun the command after a kill
and only the unfinished runs start again (each resumes from its last
checkpoint). The data is the demo's: the installed Python's docstrings, a
WordPiece vocab learned from them, train shards and one held-out shard,
built by electra-tf's builder unless `--work_dir` holds them already.
`tiny_shared` and `variant_shared` repeat `tiny` and `variant` with one batch
order for both sides (see `data.shared_stream`), to tell the data stream's
effect from the rest.
"""

import json
import os
import resource
import subprocess
import sys
import time

from absl import app
from absl import flags

import report

FLAGS = flags.FLAGS
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

flags.DEFINE_string("electra_dir", None, "A checkout of google-research/"
                    "electra (run unchanged; never part of this project).")
flags.DEFINE_string("original_python", None, "The Python of the original's "
                    "environment (TF 2.21 + tf-keras; setup_original_env.sh).")
flags.DEFINE_string("work_dir", None, "Data and runs (large; resumable).")
flags.DEFINE_string("output_dir", os.path.join(HERE, "results"),
                    "Where report.md, results.json and the plots go.")
flags.DEFINE_list("configs", ["tiny", "variant", "tiny_shared",
                               "variant_shared"],
                  "Configurations to run (`tiny_shared_no_dropout` and "
                  "`tiny_original_stream` on request; see configurations()).")
flags.DEFINE_list("seeds", ["1", "2", "3"], "Seeds of each side.")
flags.DEFINE_integer("tiny_steps", 600, "Training steps of `tiny`.")
flags.DEFINE_integer("variant_steps", 300, "Training steps of `variant`.")
flags.DEFINE_integer("eval_points", 4, "Checkpoints evaluated per run, "
                     "evenly spaced (steps / eval_points apart).")
flags.DEFINE_integer("eval_batches", 40, "Held-out batches per evaluation "
                     "(the same batches for both).")
flags.DEFINE_integer("niceness", 19, "`nice -n` of every run.")
flags.DEFINE_boolean("report_only", False, "Only rewrite the report from "
                     "the runs that finished.")

DEMO_PRESET = "tiny"
# The second configuration: a generator as wide as the discriminator, more
# masking and the original's sampling temperature.
VARIANT = {"generator_hidden_size": 1.0, "mask_prob": 0.25, "temperature": 1.0}
# `tiny_shared` without dropout (on request): rules dropout in or out as the
# cause of a gap (the preset's model_hparam_overrides, dropout probs 0).
NO_DROPOUT = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}
# `tiny` with ours reading its own stream through the original input_fn's
# sizes (on request): 4 files at once, a 100-record shuffle buffer. Ours-only
# settings, so its original side is `tiny`'s runs.
ORIGINAL_STREAM_SIZES = {"input_files_interleaved": 4,
                         "input_shuffle_buffer": 100}
ORIGINAL_RUNS_OF = {"tiny_original_stream": "tiny"}
IMPLEMENTATIONS = ("original", "ours")
OWN_ORDER = ("each side its own shuffled stream over the training shards "
             "(the original's input function; ours' pipeline)")
SHARED_ORDER = ("one shared batch order: a stream file per seed (a seeded "
                "permutation of all training records per pass) read front to "
                "back by both sides, `--shared_order`")
DONE = "DONE.json"
RUNNING = "RUNNING"  # the pid of the process running a run


def configurations():
  """name -> (hparams over the `tiny` preset, training steps, whether both
  sides read one shared batch order)."""
  from electra_tf import hparams as hparams_lib  # pylint: disable=g-import-not-at-top
  model = hparams_lib.read_preset(DEMO_PRESET)["model_hparam_overrides"]
  return {"tiny": ({}, FLAGS.tiny_steps, False),
          "variant": (dict(VARIANT), FLAGS.variant_steps, False),
          # `tiny` with the data order taken out of the comparison.
          "tiny_shared": ({}, FLAGS.tiny_steps, True),
          "variant_shared": (dict(VARIANT), FLAGS.variant_steps, True),
          "tiny_shared_no_dropout": (
              {"model_hparam_overrides": dict(model, **NO_DROPOUT)},
              FLAGS.tiny_steps, True),
          "tiny_original_stream": (dict(ORIGINAL_STREAM_SIZES),
                                   FLAGS.tiny_steps, False)}


def data_orders():
  """name -> how the runs of a configuration read their training data."""
  return {name: SHARED_ORDER if shared else OWN_ORDER
          for name, (_, _, shared) in configurations().items()}


def run_hparams(name, seed, vocab_file, vocab_size):
  """The hparams both sides get: the preset's values written out in full,
  then this configuration's changes and the run settings."""
  from electra_tf import hparams as hparams_lib
  changes, steps, _ = configurations()[name]
  hparams = hparams_lib.read_preset(DEMO_PRESET)
  hparams.update(changes)
  hparams.update(
      num_train_steps=steps,
      save_checkpoints_steps=steps // FLAGS.eval_points,
      keep_checkpoint_max=FLAGS.eval_points + 1,
      vocab_file=vocab_file, vocab_size=vocab_size,
      preset=DEMO_PRESET,  # ours only: the values above are its values
      seed=seed,  # ours only; the original's driver gets --seed
      health_eval_batches=0)  # ours only: no health checks during training
  return hparams


def build_data(work_dir):
  """The demo's corpus, vocab and TFRecords (reused when already built)."""
  import data  # pylint: disable=g-import-not-at-top
  return data.demo_data(os.path.join(work_dir, "data"))


def _command(implementation, run_dir, seed, train_files, files):
  """The driver command line of one run."""
  common = [f"--hparams={os.path.join(run_dir, 'hparams.json')}",
            f"--train_data={','.join(train_files)}",
            f"--eval_data={','.join(files['eval'])}",
            f"--run_dir={run_dir}", f"--eval_batches={FLAGS.eval_batches}"]
  nice = ["nice", "-n", str(FLAGS.niceness)]
  if implementation == "original":
    return nice + [FLAGS.original_python,
                   os.path.join(HERE, "original_driver.py"),
                   f"--electra_dir={FLAGS.electra_dir}",
                   f"--seed={seed}"] + common
  return nice + [sys.executable, os.path.join(HERE, "ours_driver.py")] + common


def driver_environment(implementation):
  env = dict(os.environ)
  if implementation == "original":
    env["TF_USE_LEGACY_KERAS"] = "1"  # tf.compat.v1.layers needs tf-keras
    env.pop("PYTHONPATH", None)
  else:
    env["PYTHONPATH"] = os.pathsep.join(
        [REPO] + [p for p in [env.get("PYTHONPATH")] if p])
  return env


def _claim(run_dir):
  """True when this process may run `run_dir`: no other live process holds
  it. So several copies of this command can share the runs."""
  path = os.path.join(run_dir, RUNNING)
  try:
    with open(path) as f:
      holder = int(f.read().strip() or 0)
    if holder and holder != os.getpid():
      os.kill(holder, 0)  # raises when the holder is gone
      return False
  except (FileNotFoundError, ProcessLookupError, ValueError):
    pass
  with open(path + f".{os.getpid()}", "w") as f:
    f.write(str(os.getpid()))
  os.replace(path + f".{os.getpid()}", path)
  return True


def run_folder(work_dir, name, implementation, seed):
  """The folder of one run (a configuration in `ORIGINAL_RUNS_OF` shares
  another's original runs)."""
  if implementation == "original":
    name = ORIGINAL_RUNS_OF.get(name, name)
  return os.path.join(work_dir, "runs", name, implementation, f"seed{seed}")


def run_one(name, implementation, seed, files):
  """Runs (or resumes) one training + evaluation unless it finished or
  another copy of this command is running it."""
  run_dir = run_folder(FLAGS.work_dir, name, implementation, seed)
  if os.path.exists(os.path.join(run_dir, DONE)):
    return
  os.makedirs(run_dir, exist_ok=True)
  if not _claim(run_dir):
    print(f"== {name} / {implementation} / seed {seed}: run by another "
          "process", flush=True)
    return
  hparams = run_hparams(name, seed, files["vocab"], files["vocab_size"])
  train_files = files["train"]
  extra = []
  if configurations()[name][2]:
    import data  # pylint: disable=g-import-not-at-top
    train_files = [data.shared_stream(
        os.path.join(FLAGS.work_dir, "data"), files["train"], seed,
        hparams["num_train_steps"] * hparams["train_batch_size"])]
    extra = ["--shared_order"]
  if implementation == "original":
    for key in ("preset", "seed"):
      hparams.pop(key)
  with open(os.path.join(run_dir, "hparams.json"), "w") as f:
    json.dump(hparams, f, indent=1, sort_keys=True)
  print(f"== {name} / {implementation} / seed {seed}", flush=True)
  before = resource.getrusage(resource.RUSAGE_CHILDREN)
  started = time.time()
  with open(os.path.join(run_dir, "log.txt"), "a") as log:
    code = subprocess.call(_command(implementation, run_dir, seed,
                                    train_files, files) + extra,
                           env=driver_environment(implementation), stdout=log,
                           stderr=subprocess.STDOUT)
  if code:
    raise RuntimeError(f"{name}/{implementation}/seed{seed} failed (exit "
                       f"{code}); see {run_dir}/log.txt")
  after = resource.getrusage(resource.RUSAGE_CHILDREN)
  with open(os.path.join(run_dir, DONE), "w") as f:
    json.dump({"wall_seconds": time.time() - started,
               "cpu_seconds": (after.ru_utime - before.ru_utime
                               + after.ru_stime - before.ru_stime)}, f)
  os.remove(os.path.join(run_dir, RUNNING))


def main(argv):
  del argv
  if not FLAGS.report_only:
    if not (FLAGS.electra_dir and FLAGS.original_python):
      raise app.UsageError("--electra_dir and --original_python are needed "
                           "to run; --report_only only writes the report")
    files = build_data(FLAGS.work_dir)
    # Seed by seed, so a partial run has every configuration's first seeds.
    for seed in FLAGS.seeds:
      for name in FLAGS.configs:
        for implementation in IMPLEMENTATIONS:
          run_one(name, implementation, int(seed), files)
  # The command that runs (or resumes) these runs: --report_only aside.
  command = [os.path.relpath(sys.argv[0], REPO)] + [
      a for a in sys.argv[1:] if not a.startswith("--report_only")]
  results = report.collect(FLAGS.work_dir, FLAGS.configs, IMPLEMENTATIONS,
                           VARIANT, data_orders(), " ".join(command),
                           ORIGINAL_RUNS_OF)
  report.write(results, FLAGS.output_dir)
  print(f"report: {os.path.join(FLAGS.output_dir, 'report.md')}")


if __name__ == "__main__":
  flags.mark_flag_as_required("work_dir")
  app.run(main)
