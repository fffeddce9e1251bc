"""The GLUE tasks: file layouts, labels, metrics and recipe defaults.

Column indices, header handling and label orders are the original's
(`classification_tasks.py`). WNLI, absent from the original, follows the
RTE layout; `mnli-mm` scores MNLI's mismatched dev set from the `mnli`
folder (the original only reads `dev_matched`).
"""

from electra_tf.finetuning.classification import glue
from electra_tf.finetuning import tasks

Columns = glue.Columns
TfdsSource = glue.TfdsSource

BINARY_LABELS = ("0", "1")
NLI_LABELS = ("contradiction", "entailment", "neutral")
ENTAILMENT_LABELS = ("entailment", "not_entailment")
# TFDS orders MNLI's classes differently from the original.
TFDS_NLI_LABELS = ("entailment", "neutral", "contradiction")
STS_SCORE_RANGE = (0.0, 5.0)
# The original trains its small-data tasks longer.
LONG_NUM_TRAIN_EPOCHS = 10.0

PAIR_KEYS = ("sentence1", "sentence2")
MNLI_KEYS = ("premise", "hypothesis")
MNLI_COLUMNS = Columns(8, 9, -1)
MNLI_UNLABELED_COLUMNS = Columns(8, 9)
MNLI_DIAGNOSTIC_COLUMNS = {"diagnostic": Columns(1, 2)}
# MNLI's mismatched test set, also predicted by a model finetuned on `mnli`.
MNLI_TEST_MISMATCHED = "test_mismatched"
# index, sentence1, sentence2[, label]
INDEX_PAIR_LABEL_COLUMNS = Columns(1, 2, 3)
INDEX_PAIR_UNLABELED_COLUMNS = Columns(1, 2)


def _mnli(name, dev_and_test_suffix):
  return glue.GlueClassificationTask(
      name, NLI_LABELS, metric_names=("accuracy",), data_subdir="mnli",
      labeled_columns=MNLI_COLUMNS, unlabeled_columns=MNLI_UNLABELED_COLUMNS,
      split_columns=MNLI_DIAGNOSTIC_COLUMNS,
      split_files={tasks.DEV: "dev_" + dev_and_test_suffix,
                   tasks.TEST: "test_" + dev_and_test_suffix},
      tfds=TfdsSource("glue/mnli", MNLI_KEYS, TFDS_NLI_LABELS, splits={
          tasks.TRAIN: "train",
          tasks.DEV: "validation_" + dev_and_test_suffix,
          tasks.TEST: "test_" + dev_and_test_suffix,
          MNLI_TEST_MISMATCHED: "test_mismatched"}))


def _index_pair_task(name, labels, tfds, **kwargs):
  """A task whose TSVs hold index, sentence1, sentence2[, label]."""
  return glue.GlueClassificationTask(
      name, labels, metric_names=("accuracy",), tfds=tfds,
      labeled_columns=INDEX_PAIR_LABEL_COLUMNS,
      unlabeled_columns=INDEX_PAIR_UNLABELED_COLUMNS, **kwargs)


COLA = glue.GlueClassificationTask(
    "cola", BINARY_LABELS, metric_names=("mcc",),
    # train/dev: source, label, original label, sentence; no header.
    labeled_columns=Columns(3, label=1, has_header=False),
    unlabeled_columns=Columns(1),
    tfds=TfdsSource("glue/cola", ("sentence",), BINARY_LABELS))

SST = glue.GlueClassificationTask(
    "sst", BINARY_LABELS, metric_names=("accuracy",),
    labeled_columns=Columns(0, label=1), unlabeled_columns=Columns(1),
    tfds=TfdsSource("glue/sst2", ("sentence",), BINARY_LABELS))

MRPC = glue.GlueClassificationTask(
    "mrpc", BINARY_LABELS, metric_names=("accuracy", "f1"), symmetric=True,
    labeled_columns=Columns(3, 4, 0), unlabeled_columns=Columns(3, 4),
    tfds=TfdsSource("glue/mrpc", PAIR_KEYS, BINARY_LABELS))

STS = glue.GlueRegressionTask(
    "sts", *STS_SCORE_RANGE, metric_names=("spearman", "pearson"),
    symmetric=True, num_train_epochs=LONG_NUM_TRAIN_EPOCHS,
    labeled_columns=Columns(-3, -2, -1), unlabeled_columns=Columns(-2, -1),
    tfds=TfdsSource("glue/stsb", PAIR_KEYS))

QQP = glue.GlueClassificationTask(
    "qqp", BINARY_LABELS, metric_names=("accuracy", "f1"),
    labeled_columns=Columns(3, 4, 5), unlabeled_columns=Columns(1, 2),
    tfds=TfdsSource("glue/qqp", ("question1", "question2"), BINARY_LABELS))

MNLI = _mnli("mnli", "matched")
MNLI_MISMATCHED = _mnli("mnli-mm", "mismatched")

QNLI = _index_pair_task(
    "qnli", ENTAILMENT_LABELS,
    TfdsSource("glue/qnli", ("question", "sentence"), ENTAILMENT_LABELS))

RTE = _index_pair_task(
    "rte", ENTAILMENT_LABELS, TfdsSource("glue/rte", PAIR_KEYS,
                                         ENTAILMENT_LABELS),
    num_train_epochs=LONG_NUM_TRAIN_EPOCHS)

# GLUE's WNLI files use 1 for entailment; TFDS's class 1 is "entailment" too.
WNLI = _index_pair_task("wnli", BINARY_LABELS,
                        TfdsSource("glue/wnli", PAIR_KEYS, BINARY_LABELS))

GLUE_TASKS = (COLA, SST, MRPC, STS, QQP, MNLI, MNLI_MISMATCHED, QNLI, RTE,
              WNLI)
