"""Own-data tasks: spec validation, readers on awkward files, bad input as
one-line errors, labels, cache keys, and finetune -> export -> raw text in a
fresh process answering with label strings."""

import csv
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from electra_tf import errors
from electra_tf.cli import export as export_cli
from electra_tf.cli import finetune as finetune_cli
from electra_tf.finetuning import own_tasks
from electra_tf.finetuning import runner
from electra_tf.finetuning import table_files
from electra_tf.finetuning.config import FinetuningConfig
from tests.finetuning import own_data
from tests.finetuning import synthetic_tasks


def write(path, text, encoding="utf-8"):
  with open(path, "w", encoding=encoding, newline="") as f:
    f.write(text)
  return str(path)


def spec_config(spec, **hparams):
  return FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=[spec], **hparams))


# ---------------------------------------------------------------- the spec


def test_three_lines_make_a_task(tmp_path):
  write(tmp_path / "train.tsv", "text\tlabel\nthe good one\tpos\na bad one\t"
        "neg\n")
  write(tmp_path / "dev.tsv", "text\tlabel\nok good\tpos\n")
  config = spec_config({"name": "mine",
                        "files": str(tmp_path / "{split}.tsv")})
  task = config.task("mine")
  assert config.task_names == ("mine",)
  assert task.labels == ("neg", "pos")  # collected from train, sorted
  assert task.metric_names == ("accuracy", "macro_f1")
  assert set(task.spec["files"]) == {"train", "dev"}  # no test file
  # The recorded config rebuilds the same task without reading the data.
  os.remove(tmp_path / "train.tsv")
  again = FinetuningConfig.from_hparams(config.to_dict())
  assert again.task("mine").labels == ("neg", "pos")


def test_a_spec_file_resolves_relative_paths_and_is_named_by_its_stem(
    tmp_path):
  folder = tmp_path / "specs"
  folder.mkdir()
  write(folder / "train.jsonl", '{"t": "x", "y": "a"}\n{"t": "y", "y": "b"}\n')
  write(folder / "topics.json", json.dumps(
      {"files": {"train": "train.jsonl"}, "text": "t", "label": "y",
       "labels": ["b", "a"], "max_seq_length": 64, "num_train_epochs": 2}))
  config = spec_config(str(folder / "topics.json"))
  task = config.task("topics")
  assert task.spec["files"]["train"] == str(folder / "train.jsonl")
  assert task.labels == ("b", "a")  # given labels keep their order
  assert (config.max_seq_length, config.num_train_epochs) == (64, 2.0)


@pytest.mark.parametrize("spec, message", [
    ({"name": "t", "files": "F", "lable": "y"},
     "unknown key 'lable'; did you mean 'label'?"),
    ({"name": "t", "files": "F", "family": "ner"},
     "family 'ner' is not one of classification, regression, tagging, qa"),
    ({"name": "t"}, 'needs "files"'),
    ({"files": "F"}, 'needs a "name"'),
    ({"name": "t", "files": "{split}.nope.tsv"}, "no train file"),
    ({"name": "t", "files": "train.tsv"}, "has no {split}"),
    ({"name": "t", "files": "F", "metrics": ["bleu"]},
     "metrics ['bleu'] are not classification metrics"),
    ({"name": "t", "files": "F", "labels": ["a", "a"]},
     "labels must be distinct"),
    ({"name": "t", "files": "F", "max_seq_length": "128"},
     "max_seq_length has the wrong type"),
    ({"name": "t", "files": "F", "family": "regression",
      "score_range": [5, 1]}, "score_range must be [min, max]"),
    ({"name": "t", "files": "F", "family": "tagging", "format": "tsv"},
     "format 'tsv' does not suit a tagging task"),
    ({"name": "sst", "files": "F"}, "'sst' is a built-in task"),
])
def test_bad_specs_are_one_line_config_errors(tmp_path, spec, message):
  write(tmp_path / "train.tsv", "text\tlabel\na\tx\n")
  spec = dict(spec)
  if "files" in spec:  # "F": the train file written here
    spec["files"] = str(tmp_path / ("{split}.tsv" if spec["files"] == "F"
                                    else spec["files"]))
  with pytest.raises(errors.ConfigError) as error:
    spec_config(spec)
  assert message in str(error.value)
  assert len(str(error.value).splitlines()) == 1


def test_a_missing_spec_file_and_bad_json_are_named(tmp_path):
  with pytest.raises(errors.ConfigError, match="task spec file not found"):
    spec_config(str(tmp_path / "nope.json"))
  bad = write(tmp_path / "bad.json", '{"name": "x",\n "files": }')
  with pytest.raises(errors.ConfigError, match=r"bad.json:2: not valid JSON"):
    spec_config(bad)


# ------------------------------------------------------- awkward files


def test_bom_crlf_quoted_fields_and_stray_whitespace_are_read(tmp_path):
  path = write(tmp_path / "train.csv",
               '\ufeff text , label \r\n"a, ""quoted""\ttab\nand newline", '
               ' pos \r\nplain,neg\r\n\r\n')
  records = table_files.read_records(path, "csv")
  assert [r.fields for r in records] == [
      {"text": 'a, "quoted"\ttab\nand newline', "label": "pos"},
      {"text": "plain", "label": "neg"}]
  assert [r.line for r in records] == [2, 4]
  config = spec_config({"name": "t", "files": {"train": path}})
  examples = config.task("t").read_examples(None, "train").examples
  assert [e.label for e in examples] == ["pos", "neg"]


@pytest.mark.parametrize("name, content, message", [
    ("train.tsv", "", "train.tsv is empty"),
    ("train.tsv", "text\tlabel\n", "has a header but no rows"),
    ("train.tsv", "text\tlabel\na\tx\nb,y\n",
     "train.tsv:3: 1 field(s), but the header has 2; this row looks "
     "comma-separated (mixed delimiters?)"),
    ("train.csv", 'text,label\n"open quote,x\n', "train.csv:"),
    ("train.jsonl", '{"text": "a", "label": "x"}\n[1]\n',
     "train.jsonl:2: expected a JSON object, got list"),
    ("train.jsonl", '{"text": "a", "label": "x"}\n{"text": \n',
     "train.jsonl:2: not valid JSON"),
    ("train.tsv", "text\tlabel\na\t \n", "train.tsv:2: empty label"),
])
def test_bad_train_files_are_one_line_data_errors(tmp_path, name, content,
                                                  message):
  path = write(tmp_path / name, content)
  with pytest.raises(errors.DataError) as error:
    spec_config({"name": "t", "files": {"train": path}})
  assert message in str(error.value)
  assert len(str(error.value).splitlines()) == 1


def test_non_utf8_bytes_name_the_line(tmp_path):
  path = tmp_path / "train.tsv"
  path.write_bytes(b"text\tlabel\nok\tx\n\xff\xfe\ty\n")
  with pytest.raises(errors.DataError, match=r"train.tsv:3: not UTF-8"):
    spec_config({"name": "t", "files": {"train": str(path)}})


def dev_error(tmp_path, spec, train, dev):
  spec["files"] = {"train": write(tmp_path / f"train{train[0]}", train[1]),
                   "dev": write(tmp_path / f"dev{dev[0]}", dev[1])}
  config = spec_config(spec)
  with pytest.raises(errors.DataError) as error:
    config.task("t").read_examples(None, "dev")
  assert len(str(error.value).splitlines()) == 1
  return str(error.value)


def test_dev_labels_fields_and_targets_are_checked_with_file_and_line(
    tmp_path):
  train = (".tsv", "text\tlabel\na\tx\nb\ty\n")
  assert dev_error(tmp_path, {"name": "t"}, train,
                   (".tsv", "text\tlabel\nc\tx\nd\tz\n")).endswith(
                       "dev.tsv:3: label 'z' is not in t's label list "
                       "['x', 'y']")
  assert "dev.tsv:2: no label field 'label'" in dev_error(
      tmp_path, {"name": "t"}, train, (".tsv", "text\tgold\nc\tx\n"))
  assert "dev.jsonl:1: no field 'text'" in dev_error(
      tmp_path, {"name": "t"}, (".jsonl", '{"text": "a", "label": "x"}'),
      (".jsonl", '{"txt": "c", "label": "x"}'))
  assert "dev.tsv:3: t target 'high' is not a number" in dev_error(
      tmp_path, {"name": "t", "family": "regression"},
      (".tsv", "text\tlabel\na\t1\nb\t2.5\n"),
      (".tsv", "text\tlabel\nc\t1\nd\thigh\n"))


def test_rows_with_empty_text_are_skipped_and_counted(tmp_path):
  path = write(tmp_path / "train.tsv", "text\tlabel\na\tx\n\ty\nb\ty\n")
  result = spec_config({"name": "t", "files": {"train": path}}).task(
      "t").read_examples(None, "train")
  assert [e.text_a for e in result.examples] == ["a", "b"]
  assert [s.location for s in result.skipped] == [f"{path}:3"]


def test_a_test_split_without_labels_is_unlabelled(tmp_path):
  files = {"train": write(tmp_path / "train.tsv", "text\tlabel\na\tx\n"),
           "test": write(tmp_path / "test.tsv", "text\nb\nc\n")}
  task = spec_config({"name": "t", "files": files}).task("t")
  assert not task.is_labeled(None, "test") and task.is_labeled(None, "train")
  assert len(task.read_examples(None, "test").examples) == 2


def test_regression_range_and_tagging_labels_come_from_train(tmp_path):
  files = {"train": write(tmp_path / "train.tsv",
                          "text\tlabel\na\t-1.5\nb\t3\n")}
  task = spec_config({"name": "t", "family": "regression",
                      "files": files}).task("t")
  assert (task.min_value, task.max_value) == (-1.5, 3.0)
  conll = write(tmp_path / "train.conll", "Paris\tB-LOC\nis\tO\n\nBob\t"
                "B-PER\nSmith\tI-PER\n")
  config = spec_config({"name": "t", "family": "tagging",
                        "files": {"train": conll}})
  assert config.task("t").labels == tuple(sorted(
      ["O"] + [f"{p}-{t}" for t in ("LOC", "PER") for p in "BIES"]))
  given = spec_config({"name": "t", "family": "tagging", "tag_scheme":
                       "as_given", "files": {"train": conll}}).task("t")
  assert given.labels == ("B-LOC", "B-PER", "I-LOC", "I-PER", "O")
  example = given.read_examples(None, "train").examples[1]
  assert example.tags == ("B-PER", "I-PER")


def test_a_dev_tag_of_a_type_train_lacks_names_file_and_line(tmp_path):
  spec = {"name": "t", "family": "tagging"}
  message = dev_error(tmp_path, spec, (".conll", "a\tB-X\n\n"),
                      (".conll", "a\tO\n\nb\tO\nc\tB-Y\n"))
  assert "dev.conll:3: tag 'S-Y'" in message


# ----------------------------------------------------------- cache keys


def test_changed_file_content_makes_new_features(tmp_path):
  path = write(tmp_path / "train.tsv", "text\tlabel\naaa\tx\nbbb\ty\n")
  hparams = {"vocab_file": write(tmp_path / "vocab.txt", "\n".join(
      synthetic_tasks.VOCAB) + "\n"), "model_dir": str(tmp_path / "model")}
  config = spec_config({"name": "t", "files": {"train": path}}, **hparams)
  data = runner.RunData(config)
  first = data.features(config.tasks, "train", is_training=True)
  stat = os.stat(path)
  write(path, "text\tlabel\nbbb\tx\naaa\ty\n")  # same size
  os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime
  second = runner.RunData(config).features(config.tasks, "train", True)
  assert first.path != second.path
  assert data.features(config.tasks, "train", True).path == second.path


# --------------------------------------- finetune, export, serve raw text


def run_cli(main, argv, capsys):
  code = main(argv)
  return code, capsys.readouterr().err.strip()


def test_a_bad_own_file_is_exit_code_2_via_the_cli(tmp_path, capsys):
  files = {"train": write(tmp_path / "train.tsv", "text\tlabel\na\tx\n"),
           "dev": write(tmp_path / "dev.tsv", "text\tlabel\na\tq\n")}
  spec = write(tmp_path / "t.json", json.dumps({"files": files}))
  code, err = run_cli(finetune_cli.main, [
      "finetune", "--task_names", spec, "--model_dir", str(tmp_path / "m"),
      "--hparams", json.dumps(synthetic_tasks.finetune_hparams(
          vocab_file=write(tmp_path / "vocab.txt",
                           "\n".join(synthetic_tasks.VOCAB)),
          num_train_epochs=1.0, max_seq_length=16))], capsys)
  assert code == 2
  assert err.endswith("dev.tsv:2: label 'q' is not in t's label list ['x']")
  assert not os.path.exists(str(tmp_path / "m_1" / "checkpoint"))


SERVE = """
import json, sys
import tensorflow as tf, tensorflow_text
calls = json.loads(sys.argv[1])
out = {}
for name, (path, kwargs) in calls.items():
  fn = tf.saved_model.load(path).signatures["serving_default"]
  result = fn(**{k: tf.constant(v) for k, v in kwargs.items()})
  out[name] = {k: v.numpy().tolist() for k, v in result.items()
               if v.dtype == tf.string}
print(json.dumps(out, default=lambda b: b.decode()))
"""


HEADLINES = {"sentiment": "accuracy", "paraphrase": "accuracy",
             "chunks": "f1"}
SERVED_INPUTS = {
    "sentiment": {"text": ["w1 w2 good w3", "w4 bad w5"]},
    "paraphrase": {"text_a": ["w1 w2 w3 w4", "w1 w2 w3 w4"],
                   "text_b": ["w1 w2 w3 w4", "z1 z2 z3 z4"]},
    "chunks": {"text": ["the cat sat on a mat ."]}}


@pytest.fixture(scope="module")
def own_task_runs(tmp_path_factory):
  """Each own-file task finetuned via the CLI and exported:
  {task: (model_dir, export_dir)}."""
  folder = tmp_path_factory.mktemp("own_task_runs")
  specs = own_data.write_tasks(str(folder / "data"),
                               {"train": 160, "dev": 40, "test": 12})
  vocab = write(folder / "vocab.txt", "\n".join(synthetic_tasks.VOCAB))
  hparams = synthetic_tasks.finetune_hparams(
      vocab_file=vocab, learning_rate=3e-3, num_train_epochs=6.0,
      max_seq_length=32, write_test_outputs=True, eval_test=True,
      iterations_per_loop=100)
  runs = {}
  for task in HEADLINES:
    model_dir = str(folder / task / "model")
    export_dir = str(folder / task / "export")
    code = finetune_cli.main([
        "finetune", "--task_names", specs[task], "--model_dir", model_dir,
        "--hparams", json.dumps(hparams), "--export_dir", export_dir])
    runs[task] = (model_dir, export_dir) if code == 0 else None
  return runs


@pytest.mark.parametrize("task", list(HEADLINES))
def test_finetune_scores_and_test_predictions(own_task_runs, task):
  assert own_task_runs[task], f"finetuning {task} failed (its log above)"
  model_dir, _ = own_task_runs[task]
  with open(model_dir + "_results.json") as f:
    median = json.load(f)["median"]
  assert median[task][HEADLINES[task]] >= 90.0
  assert median[f"{task}:test"][HEADLINES[task]] >= 80.0

  predictions = os.path.join(model_dir + "_test_predictions",
                             f"{task}_test_1.tsv")
  with open(predictions, newline="") as f:
    rows = list(csv.reader(f, delimiter="\t"))
  if task == "chunks":
    assert all(len(r) in (0, 3) for r in rows)  # word, predicted, gold
    tagged = [r for r in rows if r]
    assert np.mean([r[1] == r[2] for r in tagged]) >= 0.8
  else:
    assert rows[0][:3] == ["index", "prediction", "gold"]
    assert len(rows) == 13
    assert np.mean([r[1] == r[2] for r in rows[1:]]) >= 0.8


def test_exports_answer_raw_text_with_label_strings_in_a_fresh_process(
    own_task_runs):
  assert all(own_task_runs.values()), own_task_runs
  calls = {task: [os.path.join(export_dir, task, "1"), SERVED_INPUTS[task]]
           for task, (_, export_dir) in own_task_runs.items()}
  served = subprocess.run([sys.executable, "-c", SERVE, json.dumps(calls)],
                          capture_output=True, text=True, check=True)
  out = json.loads(served.stdout.strip().splitlines()[-1])
  assert out["sentiment"]["label"] == ["pos", "neg"]
  assert out["paraphrase"]["label"] == ["same", "different"]
  tags = [t for t in out["chunks"]["tags"][0] if t]
  assert tags[:3] == ["B-NP", "E-NP", "S-VP"]


def test_finetuning_one_of_our_runs_takes_its_sizes_and_vocab(tmp_path):
  synthetic_tasks.save_pretrained_model(str(tmp_path))
  run = os.path.join(str(tmp_path), "models", synthetic_tasks.MODEL_NAME)
  train = write(tmp_path / "train.tsv", "text\tlabel\na\tx\nb\ty\n")
  config = FinetuningConfig.from_hparams({
      "task_names": [{"name": "t", "files": {"train": train}}],
      "init_checkpoint": run})
  pretraining = json.load(open(os.path.join(run, "config.json")))
  assert config.vocab_size == synthetic_tasks.VOCAB_SIZE
  assert config.encoder_config.embedding_size == (
      synthetic_tasks.EMBEDDING_SIZE)
  assert config.encoder_config.hidden_size == 64
  assert config.vocab_file == pretraining["vocab_file"]
  # Passed sizes that agree with the run are fine; others are refused
  # before any work, naming each (a preset's as much as --hparams').
  same = FinetuningConfig.from_hparams({
      "task_names": [{"name": "t", "files": {"train": train}}],
      "init_checkpoint": run, "vocab_size": synthetic_tasks.VOCAB_SIZE,
      "model_hparam_overrides": pretraining["model_hparam_overrides"]})
  assert same.encoder_config == config.encoder_config
  with pytest.raises(errors.ConfigError) as refused:
    FinetuningConfig.from_hparams({
        "task_names": [{"name": "t", "files": {"train": train}}],
        "init_checkpoint": run, "vocab_size": 200, "embedding_size": 16})
  message = str(refused.value)
  assert len(message.splitlines()) == 1
  assert os.path.join(run, "config.json") in message
  assert (f"vocab_size 200 (the run has {synthetic_tasks.VOCAB_SIZE})"
          in message)
  assert (f"embedding_size 16 (the run has {synthetic_tasks.EMBEDDING_SIZE})"
          in message)


def test_a_rerun_with_other_settings_is_refused_unless_overwrite(tmp_path,
                                                                 capsys):
  specs = own_data.write_tasks(str(tmp_path / "data"),
                               {"train": 16, "dev": 8})
  vocab = write(tmp_path / "vocab.txt", "\n".join(synthetic_tasks.VOCAB))
  model_dir = str(tmp_path / "model")

  def finetune(*extra, **hparams):
    return run_cli(finetune_cli.main, [
        "finetune", "--task_names", specs["sentiment"], "--model_dir",
        model_dir, "--hparams", json.dumps(synthetic_tasks.finetune_hparams(
            vocab_file=vocab, num_train_epochs=1.0, max_seq_length=16,
            **hparams)), *extra], capsys)

  assert finetune()[0] == 0
  assert finetune()[0] == 0  # same settings: the finished trial is reused
  code, err = finetune(learning_rate=5e-4)
  assert code == 2 and "learning_rate" in err and "--overwrite" in err
  # Changed training data is a changed setting too.
  with open(os.path.join(str(tmp_path / "data"), "sentiment_train.csv"),
            "a") as f:
    f.write("99,w1 w2 good,pos\n")
  code, err = finetune()
  assert code == 2 and "data.sentiment" in err
  assert finetune("--overwrite", learning_rate=5e-4)[0] == 0
  with open(os.path.join(model_dir + "_1", "trial_settings.json")) as f:
    assert json.load(f)["learning_rate"] == 5e-4
