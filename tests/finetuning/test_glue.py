"""GLUE readers (original TSV layout, injected TFDS records), featurization."""

import os
import sys
import types

import numpy as np
import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf.data import features as feature_names
from electra_tf.finetuning import encoding
from electra_tf.finetuning import evaluation
from electra_tf.finetuning.classification import glue
from electra_tf.finetuning.classification import features as sentence_features
from electra_tf.finetuning.classification import glue_tasks
from electra_tf.finetuning import model as model_lib
from electra_tf.finetuning import runner
from electra_tf.finetuning import tasks
from electra_tf.finetuning.config import FinetuningConfig
from tests.finetuning import synthetic_tasks

MNLI_TRAIN_HEADER = ("index promptID pairID genre sentence1_binary_parse "
                     "sentence2_binary_parse sentence1_parse sentence2_parse "
                     "sentence1 sentence2 label1 gold_label").split()
MNLI_DEV_HEADER = MNLI_TRAIN_HEADER[:-1] + [
    "label2", "label3", "label4", "label5", "gold_label"]


def write_tsv(data_dir, folder, stem, rows):
  path = os.path.join(data_dir, "finetuning_data", folder, stem + ".tsv")
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w", encoding="utf-8") as f:
    f.write("".join("\t".join(map(str, row)) + "\n" for row in rows))
  return path


def mnli_row(index, premise, hypothesis, labels):
  return [index, 1, f"{index}e", "fiction", "(x)", "(y)", "(ROOT x)",
          "(ROOT y)", premise, hypothesis, *labels]


def texts_and_labels(result):
  return [(e.eid, e.text_a, e.text_b, e.label) for e in result.examples]


def test_cola_train_has_no_header_and_test_has_one(tmp_path):
  write_tsv(tmp_path, "cola", "train", [["gj04", 1, "", "The cat sat."],
                                        ["gj04", 0, "*", "Cat the sat."]])
  write_tsv(tmp_path, "cola", "test", [["index", "sentence"],
                                       [0, "A dog is hairy."]])
  train = glue_tasks.COLA.read_examples(tmp_path, "train")
  assert texts_and_labels(train) == [(0, "The cat sat.", None, "1"),
                                     (1, "Cat the sat.", None, "0")]
  test = glue_tasks.COLA.read_examples(tmp_path, "test")
  assert texts_and_labels(test) == [(0, "A dog is hairy.", None, "0")]


@pytest.mark.parametrize("task, labeled, unlabeled, expected", [
    (glue_tasks.SST, [["sentence", "label"], ["the cat sat", 1]],
     [["index", "sentence"], [0, "the dog"]], ("the cat sat", None, "1")),
    (glue_tasks.QQP,
     [["id", "qid1", "qid2", "question1", "question2", "is_duplicate"],
      [7, 1, 2, "who was born", "who is born", 1]],
     [["id", "question1", "question2"], [0, "the dog", "a dog"]],
     ("who was born", "who is born", "1")),
    (glue_tasks.QNLI, [["index", "question", "sentence", "label"],
                       [0, "who ?", "john .", "not_entailment"]],
     [["index", "question", "sentence"], [0, "the dog", "a dog"]],
     ("who ?", "john .", "not_entailment")),
    (glue_tasks.RTE, [["index", "sentence1", "sentence2", "label"],
                      [0, "a cat", "the cat", "entailment"]],
     [["index", "sentence1", "sentence2"], [0, "the dog", "a dog"]],
     ("a cat", "the cat", "entailment")),
    (glue_tasks.WNLI, [["index", "sentence1", "sentence2", "label"],
                       [0, "he sat", "john sat", 1]],
     [["index", "sentence1", "sentence2"], [0, "the dog", "a dog"]],
     ("he sat", "john sat", "1")),
])
def test_column_layouts(tmp_path, task, labeled, unlabeled, expected):
  write_tsv(tmp_path, task.name, "dev", labeled)
  write_tsv(tmp_path, task.name, "test", unlabeled)
  assert texts_and_labels(task.read_examples(tmp_path, "dev")) == [
      (0, *expected)]
  test_example, = task.read_examples(tmp_path, "test").examples
  assert test_example.text_a == "the dog"
  assert test_example.label == task.labels[0]  # the dummy label


def test_mnli_reads_matched_and_mismatched_files(tmp_path):
  write_tsv(tmp_path, "mnli", "train", [
      MNLI_TRAIN_HEADER, mnli_row(0, "p0", "h0", ["neutral", "neutral"])])
  write_tsv(tmp_path, "mnli", "dev_matched", [
      MNLI_DEV_HEADER, mnli_row(0, "pm", "hm", ["neutral"] * 5 +
                                ["contradiction"])])
  write_tsv(tmp_path, "mnli", "dev_mismatched", [
      MNLI_DEV_HEADER, mnli_row(0, "pmm", "hmm", ["neutral"] * 5 +
                                ["entailment"])])
  write_tsv(tmp_path, "mnli", "test_mismatched", [
      MNLI_TRAIN_HEADER[:10], mnli_row(0, "pt", "ht", [])])
  write_tsv(tmp_path, "mnli", "diagnostic", [
      ["index", "sentence1", "sentence2"], [0, "pd", "hd"]])

  def read(task, split):
    return texts_and_labels(task.read_examples(tmp_path, split))

  assert read(glue_tasks.MNLI, "train") == [(0, "p0", "h0", "neutral")]
  assert read(glue_tasks.MNLI, "dev") == [(0, "pm", "hm", "contradiction")]
  assert read(glue_tasks.MNLI_MISMATCHED, "dev") == [
      (0, "pmm", "hmm", "entailment")]
  assert read(glue_tasks.MNLI_MISMATCHED, "test") == [
      (0, "pt", "ht", "contradiction")]
  assert read(glue_tasks.MNLI, "diagnostic") == [
      (0, "pd", "hd", "contradiction")]


def test_double_unordered_swaps_training_pairs_only(tmp_path):
  header = ["Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"]
  rows = [header, [1, 11, 12, "a cat", "the cat"], [0, 13, 14, "x", "y"]]
  for split in ("train", "dev"):
    write_tsv(tmp_path, "mrpc", split, rows)
  train = glue_tasks.MRPC.read_examples(tmp_path, "train")
  assert texts_and_labels(train) == [
      (0, "a cat", "the cat", "1"), (1, "x", "y", "0"),
      (2, "the cat", "a cat", "1"), (3, "y", "x", "0")]
  assert len(glue_tasks.MRPC.read_examples(tmp_path, "dev").examples) == 2
  single = glue_tasks.MRPC.read_examples(
      tmp_path, "train", glue_tasks.MRPC.settings(double_unordered=False))
  assert len(single.examples) == 2
  # Asymmetric tasks are never doubled.
  write_tsv(tmp_path, "rte", "train", [["i", "s1", "s2", "l"],
                                       [0, "a", "b", "entailment"]])
  assert len(glue_tasks.RTE.read_examples(tmp_path, "train").examples) == 1


def test_sts_scores_columns_from_the_end_and_errors(tmp_path):
  header = ("index genre filename year old_index source1 source2 sentence1 "
            "sentence2 score").split()
  prefix = [0, "main-captions", "MSRvid", "2012test", 1, "none", "none"]
  write_tsv(tmp_path, "sts", "dev", [header, prefix + ["a cat", "a dog",
                                                       "3.800"]])
  write_tsv(tmp_path, "sts", "test", [header[:-1], prefix + ["x", "y"]])
  dev = glue_tasks.STS.read_examples(tmp_path, "dev")
  assert texts_and_labels(dev) == [(0, "a cat", "a dog", 3.8)]
  assert texts_and_labels(glue_tasks.STS.read_examples(tmp_path, "test")) == [
      (0, "x", "y", 0.0)]
  assert glue_tasks.STS.label_features(3.8) == {sentence_features.TARGETS: 3.8 / 5.0}
  for bad, message in (("7.5", "outside"), ("high", "not a number")):
    path = write_tsv(tmp_path, "sts", "dev", [header, prefix + ["a", "b",
                                                                bad]])
    with pytest.raises(errors.DataError, match=message) as raised:
      glue_tasks.STS.read_examples(tmp_path, "dev")
    assert f"{path}:2" in str(raised.value)


def test_short_row_is_a_counted_skip_naming_file_and_line(tmp_path):
  path = write_tsv(tmp_path, "rte", "dev", [
      ["index", "sentence1", "sentence2", "label"],
      [0, "a", "b", "entailment"],
      [1, "only two"],
      [],
      [3, "c", "d", "not_entailment"]])
  result = glue_tasks.RTE.read_examples(tmp_path, "dev")
  # Ids follow the line numbers, as the original.
  assert [(e.eid, e.text_a) for e in result.examples] == [(0, "a"), (3, "c")]
  assert [s.location for s in result.skipped] == [f"{path}:3", f"{path}:4"]
  assert "2 columns" in result.skipped[0].reason


def test_unknown_label_and_missing_file_raise(tmp_path):
  path = write_tsv(tmp_path, "qnli", "dev", [
      ["index", "question", "sentence", "label"],
      [0, "a", "b", "entailment"],
      [1, "a", "b", "maybe"]])
  with pytest.raises(errors.DataError, match="maybe") as raised:
    glue_tasks.QNLI.read_examples(tmp_path, "dev")
  assert f"{path}:3" in str(raised.value)
  with pytest.raises(errors.DataError, match="not found"):
    glue_tasks.QNLI.read_examples(tmp_path, "train")


def test_quotes_are_kept_verbatim(tmp_path):
  write_tsv(tmp_path, "sst", "dev", [["sentence", "label"],
                                     ['"the cat', 0], ['it "is" a "cat"', 1]])
  examples = glue_tasks.SST.read_examples(tmp_path, "dev").examples
  assert [e.text_a for e in examples] == ['"the cat', 'it "is" a "cat"']


def test_truncate_pair_pops_the_longer_side():
  tokens_a, tokens_b = list("abcde"), list("xyz")
  encoding.truncate_pair(tokens_a, tokens_b, 5)
  # 5+3 -> 4+3 -> 3+3 -> (equal: from b) 3+2.
  assert (tokens_a, tokens_b) == (list("abc"), list("xy"))


def test_featurize_single_sentence_truncates_and_pads(tokenizer):
  example = sentence_features.SentenceExample(4, "The cat sat on the mat.", None, "1")
  settings = glue_tasks.SST.settings(max_seq_length=6)
  features, = glue_tasks.SST.featurize(example, tokenizer, settings)
  assert features[feature_names.INPUT_IDS].tolist() == tokenizer.ids(
      "[CLS] the cat sat on [SEP]")
  assert features[feature_names.INPUT_MASK].tolist() == [1] * 6
  assert features[feature_names.SEGMENT_IDS].tolist() == [0] * 6
  assert features[sentence_features.LABEL_IDS] == 1
  assert features[tasks.EXAMPLE_ID] == 4
  short, = glue_tasks.SST.featurize(
      sentence_features.SentenceExample(0, "a dog", None, "0"), tokenizer, settings)
  assert short[feature_names.INPUT_IDS].tolist() == tokenizer.ids(
      "[CLS] a dog [SEP]") + [0, 0]
  assert short[feature_names.INPUT_MASK].tolist() == [1, 1, 1, 1, 0, 0]
  assert short[feature_names.INPUT_IDS].dtype == np.int32


def test_featurize_pair_segments_and_truncation(tokenizer):
  example = sentence_features.SentenceExample(0, "the cat sat", "the dog is hairy",
                                 "entailment")
  fits, = glue_tasks.RTE.featurize(example, tokenizer,
                                   glue_tasks.RTE.settings(max_seq_length=11))
  assert fits[feature_names.INPUT_IDS].tolist() == tokenizer.ids(
      "[CLS] the cat sat [SEP] the dog is hairy [SEP]") + [0]
  assert fits[feature_names.SEGMENT_IDS].tolist() == [0] * 5 + [1] * 5 + [0]
  assert fits[sentence_features.LABEL_IDS] == 0
  cut, = glue_tasks.RTE.featurize(example, tokenizer,
                                  glue_tasks.RTE.settings(max_seq_length=9))
  # 3 + 4 tokens into 6: the longer (second) loses its last token.
  assert cut[feature_names.INPUT_IDS].tolist() == tokenizer.ids(
      "[CLS] the cat sat [SEP] the dog is [SEP]")
  assert cut[feature_names.SEGMENT_IDS].tolist() == [0] * 5 + [1] * 4


def test_featurize_regression_target(tokenizer):
  example = sentence_features.SentenceExample(0, "a cat", "a dog", 2.5)
  features, = glue_tasks.STS.featurize(example, tokenizer,
                                       glue_tasks.STS.settings())
  assert features[sentence_features.TARGETS] == 0.5
  assert len(features[feature_names.INPUT_IDS]) == 128


def test_tfds_records_map_labels_like_the_tsv_files():
  records = [{"premise": b"p0", "hypothesis": b"h0", "label": 0, "idx": 5},
             {"premise": "p1", "hypothesis": "h1", "label": np.int64(2),
              "idx": 6}]
  result = glue_tasks.MNLI.examples_from_tfds(records, "dev")
  # TFDS class 0 is entailment, 2 contradiction.
  assert texts_and_labels(result) == [(0, "p0", "h0", "entailment"),
                                      (1, "p1", "h1", "contradiction")]
  test = glue_tasks.MNLI.examples_from_tfds(
      [{"premise": b"p", "hypothesis": b"h", "label": -1, "idx": 0}], "test")
  assert test.examples[0].label == "contradiction"  # the dummy label
  sts = glue_tasks.STS.examples_from_tfds(
      [{"sentence1": b"a", "sentence2": b"b", "label": np.float32(4.5)}],
      "train")
  assert texts_and_labels(sts) == [(0, "a", "b", 4.5), (1, "b", "a", 4.5)]


def test_tfds_bad_records_raise():
  with pytest.raises(errors.DataError, match="sentence2"):
    glue_tasks.RTE.examples_from_tfds([{"sentence1": b"a", "label": 0}],
                                      "train")
  with pytest.raises(errors.DataError, match="record 1"):
    glue_tasks.COLA.examples_from_tfds(
        [{"sentence": b"a", "label": 1}, {"sentence": b"b", "label": 2}],
        "train")


def test_load_tfds_asks_for_the_right_config_and_split(monkeypatch):
  calls = []

  def fake_load(name, split, data_dir):
    calls.append((name, split, data_dir))
    return [{"premise": b"p", "hypothesis": b"h", "label": 1}]

  fake = types.ModuleType("tensorflow_datasets")
  fake.load = fake_load
  fake.as_numpy = lambda dataset: dataset
  monkeypatch.setitem(sys.modules, "tensorflow_datasets", fake)
  result = glue_tasks.MNLI_MISMATCHED.load_tfds("dev", tfds_data_dir="/d")
  assert calls == [("glue/mnli", "validation_mismatched", "/d")]
  assert result.examples[0].label == "neutral"


def test_one_mnli_model_writes_matched_mismatched_and_diagnostic(tmp_path):
  write_tsv(tmp_path, "mnli", "train", [
      MNLI_TRAIN_HEADER, mnli_row(0, "p0", "h0", ["neutral", "neutral"])])
  write_tsv(tmp_path, "mnli", "dev_matched", [
      MNLI_DEV_HEADER, mnli_row(0, "pm", "hm", ["neutral"] * 6)])
  for stem, count in (("test_matched", 3), ("test_mismatched", 2)):
    write_tsv(tmp_path, "mnli", stem, [MNLI_TRAIN_HEADER[:10]] + [
        mnli_row(i, f"p{i}", f"h{i}", []) for i in range(count)])
  write_tsv(tmp_path, "mnli", "diagnostic", [
      ["index", "sentence1", "sentence2"], [0, "pd", "hd"]])
  (tmp_path / "vocab.txt").write_text("\n".join(synthetic_tasks.VOCAB))
  config = FinetuningConfig.from_hparams(synthetic_tasks.finetune_hparams(
      task_names=["mnli"], max_seq_length=16,
      vocab_file=str(tmp_path / "vocab.txt"),
      raw_data_dir=str(tmp_path / "finetuning_data" / "{:}"),
      model_dir=str(tmp_path / "model")))
  model = model_lib.build_finetuning_model(config)
  predictor = evaluation.Predictor(model, tf.distribute.get_strategy())
  runner.write_test_predictions(config, predictor, runner.RunData(config), 1)
  folder = tmp_path / "model_test_predictions" / "glue_trial_1"
  rows = {name: (folder / f"{name}.tsv").read_text().splitlines()
          for name in ("MNLI-m", "MNLI-mm", "AX")}
  assert [len(r) for r in rows.values()] == [4, 3, 2]  # header + examples
  assert all(r[0] == "index\tprediction" for r in rows.values())
