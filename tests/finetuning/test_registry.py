"""The task registry and each task's recipe defaults."""

import numpy as np
import pytest

from electra_tf import errors
from electra_tf.finetuning import registry
from electra_tf.finetuning import scoring
from electra_tf.finetuning.qa import squad
from electra_tf.finetuning import tasks
from electra_tf.finetuning.classification import features as sentence_features
from electra_tf.finetuning.tagging import features as tag_features


def test_all_tasks_are_registered_under_their_original_names():
  assert set(registry.task_names()) == {
      "cola", "sst", "mrpc", "sts", "qqp", "mnli", "mnli-mm", "qnli", "rte",
      "wnli", "squad", "squadv1", "newsqa", "naturalqs", "triviaqa",
      "searchqa", "chunk"}
  for name in registry.task_names():
    assert registry.get_task(name).name == name


@pytest.mark.parametrize("name, epochs, max_seq_length, task_type", [
    ("cola", 3.0, 128, tasks.TaskType.CLASSIFICATION),
    ("rte", 10.0, 128, tasks.TaskType.CLASSIFICATION),
    ("sts", 10.0, 128, tasks.TaskType.REGRESSION),
    ("squad", 2.0, 512, tasks.TaskType.SPAN_QA),
    ("squadv1", 2.0, 512, tasks.TaskType.SPAN_QA),
    ("newsqa", 2.0, 512, tasks.TaskType.SPAN_QA),
    ("triviaqa", 2.0, 512, tasks.TaskType.SPAN_QA),
    ("searchqa", 2.0, 512, tasks.TaskType.SPAN_QA),
    # The original's rule ("qa" or "squad" in the name) misses it.
    ("naturalqs", 3.0, 128, tasks.TaskType.SPAN_QA),
    ("chunk", 3.0, 256, tasks.TaskType.TAGGING),
])
def test_recipe_defaults(name, epochs, max_seq_length, task_type):
  task = registry.get_task(name)
  assert task.num_train_epochs == epochs
  assert task.settings().max_seq_length == max_seq_length
  assert task.settings(max_seq_length=64).max_seq_length == 64
  assert task.task_type is task_type


def test_sentence_tasks_name_known_metrics():
  for task in registry.TASKS.values():
    if task.task_type in (tasks.TaskType.CLASSIFICATION,
                          tasks.TaskType.REGRESSION):
      assert set(task.metric_names) <= set(scoring.SENTENCE_METRICS)
  assert registry.get_task("cola").metric_names[0] == "mcc"
  assert registry.get_task("sts").metric_names[0] == "spearman"


def test_unknown_task_lists_the_known_ones():
  with pytest.raises(errors.ConfigError, match="'nope'.*cola"):
    registry.get_task("nope")


def sample_example(task):
  """A small example of the kind `task.read_examples` returns."""
  if task.task_type is tasks.TaskType.SPAN_QA:
    return squad.QAExample(0, "q", "who sat ?", ("the", "cat", "sat"),
                           "cat", 1, 1)
  if task.task_type is tasks.TaskType.TAGGING:
    return tag_features.TaggingExample(0, ("the", "cat"), ("B-NP", "E-NP"),
                                   (0, 1))
  return sentence_features.SentenceExample(0, "the cat", "a dog", task.dummy_label())


@pytest.mark.parametrize("name", registry.task_names())
@pytest.mark.parametrize("is_training", [True, False])
def test_featurize_returns_exactly_the_declared_features(name, is_training,
                                                         tokenizer):
  task = registry.get_task(name)
  settings = task.settings(max_seq_length=16)
  shapes = task.feature_shapes(settings, is_training)
  for features in task.featurize(sample_example(task), tokenizer, settings,
                                 is_training):
    assert features.keys() == shapes.keys()
    for feature_name, value in features.items():
      shape, dtype = shapes[feature_name]
      value = np.asarray(value)
      assert value.shape == shape, feature_name
      assert value.dtype.kind == np.dtype(dtype).kind, feature_name
