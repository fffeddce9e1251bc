"""run_finetuning: the original `run_finetuning.py` recipe.

For each of `num_trials` trials (seed `seed + trial - 1`): build the model,
train it on all tasks' training sets together, evaluate every task on its
dev set, write the results (each trial, and the median over trials) and,
with `write_test_outputs`, the test-set predictions in leaderboard format.
"""

import dataclasses
import json
import os
import pickle
import statistics

import tensorflow as tf
from absl import logging

from electra_tf import errors
from electra_tf.finetuning import checkpoints
from electra_tf.finetuning import evaluation
from electra_tf.finetuning import feature_cache
from electra_tf.finetuning import input_pipeline
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.finetuning import train_loop
from electra_tf.tokenization import vocab_files
from electra_tf.tokenization import wordpiece

REQUIRED_PATHS = ("raw_data_dir", "vocab_file", "model_dir",
                  "preprocessed_data_dir", "results_txt")
EVAL_LOGS = "eval"


@dataclasses.dataclass
class FinetuningResults:
  """Dev metrics (percent): per trial, and the median over the trials."""
  trials: list  # [{task: {metric: value}}]
  median: dict  # {task: {metric: value}}
  skipped: dict  # {task or split: inputs the readers skipped}


class RunData:
  """The tokenizer, data settings, label lists and cached features of a run."""

  def __init__(self, config):
    self.config = config
    self.tokenizer = wordpiece.FullTokenizer(config.vocab_file,
                                             config.do_lower_case)
    self.settings = config.data_settings
    self.label_lists = {}
    for task in config.tasks:
      labels = task.data_labels(config.raw_data_root)
      if labels is not None:
        self.label_lists[task.name] = labels
    self.skipped = {}

  def features(self, tasks, split, is_training):
    feature_set = feature_cache.build_feature_set(
        self.config, tasks, split, is_training, self.tokenizer,
        self.label_lists, self.settings)
    if feature_set.skipped:
      self.skipped[f"{','.join(t.name for t in tasks)} {split}"] = len(
          feature_set.skipped)
    return feature_set

  def split_exists(self, task, split):
    if feature_cache.uses_tfds(self.config, task):
      return split in task.tfds.splits
    return task.has_split(self.config.raw_data_root, split)


def check_run(config, tokenizer=None):
  """Paths, data folders and sizes a run needs, before any work."""
  needed = REQUIRED_PATHS + tuple(dict.fromkeys(
      path for task in config.tasks for path in task.output_paths))
  if set(config.task_names) <= set(config.task_specs):
    needed = tuple(key for key in needed if key != "raw_data_dir")
  missing = [key for key in needed if getattr(config, key) is None]
  if missing:
    raise errors.ConfigError(f"no {', '.join(missing)}: give a data dir "
                             "(--data_dir) or set them in the hparams")
  if config.data_dir and not tf.io.gfile.isdir(config.data_dir):
    raise errors.ConfigError(f"data dir {config.data_dir} does not exist")
  for task in config.tasks:
    if not feature_cache.uses_tfds(config, task):
      task.check_data(config.raw_data_root)
  limit = config.encoder_config.max_position_embeddings
  if config.max_seq_length > limit:
    raise errors.ConfigError(f"max_seq_length {config.max_seq_length} exceeds"
                             f" max_position_embeddings {limit}")
  if tokenizer is not None:
    vocab_files.check_fits(tokenizer.vocab, config.vocab_size,
                           config.vocab_file)


def evaluate_task(config, predictor, data, task, split=tasks_lib.DEV):
  """Dev metrics of one task (percent), logged as the original."""
  feature_set = data.features([task], split, is_training=False)
  outputs = predictor.predict(feature_set, task.name, config.eval_batch_size)
  if not outputs:
    raise errors.DataError(f"{task.name} {split} has no examples")
  metrics = task.evaluate(outputs, data, split)
  logging.info("%s: %s", task.name, " - ".join(
      f"{k}: {v:.2f}" for k, v in metrics.items()))
  return metrics


def prepare_eval_features(config, data):
  """Reads and featurizes every split the run will score or predict before
  any training, so bad dev/test input fails in seconds, not after hours."""
  for task in config.tasks:
    splits = [tasks_lib.DEV] if config.do_eval else []
    if config.eval_test or config.write_test_outputs:
      splits.append(tasks_lib.TEST)
    for split in splits:
      if split == tasks_lib.DEV or data.split_exists(task, split):
        data.features([task], split, is_training=False)


def evaluate_trial(config, predictor, data):
  """{task: dev metrics} of one trial; with `eval_test`, also
  {"<task>:test": test metrics} for each task with a labelled test split."""
  metrics = {task.name: evaluate_task(config, predictor, data, task)
             for task in config.tasks}
  if config.eval_test:
    for task in config.tasks:
      if (data.split_exists(task, tasks_lib.TEST)
          and task.is_labeled(config.raw_data_root, tasks_lib.TEST)):
        metrics[f"{task.name}:{tasks_lib.TEST}"] = evaluate_task(
            config, predictor, data, task, tasks_lib.TEST)
  return metrics


def write_test_predictions(config, predictor, data, trial):
  """Test-set predictions of one trial, in each task's format
  (`Task.write_test_outputs`: GLUE leaderboard TSVs, SQuAD answer JSONs,
  readable files for own-data tasks)."""
  base = (os.path.dirname(config.test_predictions) if config.test_predictions
          else config.trial_model_dir(trial))
  for task in config.tasks:
    for split in task.test_output_splits():
      if not data.split_exists(task, split):
        logging.info("no %s %s file: no predictions written", task.name,
                     split)
        continue
      feature_set = data.features([task], split, is_training=False)
      outputs = predictor.predict(feature_set, task.name,
                                  config.predict_batch_size)
      path = task.write_test_outputs(outputs, data, split, base, trial)
      logging.info("wrote %s %s predictions to %s", task.name, split, path)


def median_results(trials):
  """{task: {metric: median over the trials}}."""
  median = {}
  for task in (trials[0] if trials else {}):
    median[task] = {metric: statistics.median(t[task][metric] for t in trials)
                    for metric in trials[0][task]}
  return median


def write_summaries(model_dir, step, trial_metrics):
  """Dev metrics to TensorBoard, as `<task>/<metric>` in `<model_dir>/eval`."""
  writer = tf.summary.create_file_writer(os.path.join(model_dir, EVAL_LOGS))
  with writer.as_default(step=step):
    for task, metrics in trial_metrics.items():
      for name, value in metrics.items():
        tf.summary.scalar(f"{task}/{name}", value)
  writer.flush()


def write_results(config, results):
  """`results_txt` and `results_pkl` as the original, plus a JSON summary."""
  tf.io.gfile.makedirs(os.path.dirname(config.results_txt))
  lines = [f"{task}: " + " - ".join(f"{k}: {v:.2f}" for k, v in m.items())
           for trial in results.trials for task, m in trial.items()]
  with tf.io.gfile.GFile(config.results_txt, "w") as f:
    f.write("".join(line + "\n" for line in lines))
  if config.results_pkl:
    with tf.io.gfile.GFile(config.results_pkl, "wb") as f:
      pickle.dump(results.trials, f)
  summary = os.path.splitext(config.results_txt)[0] + ".json"
  with tf.io.gfile.GFile(summary, "w") as f:
    json.dump(dataclasses.asdict(results), f, indent=1)


def run_finetuning(config, strategy=None, overwrite=False):
  """Trains and evaluates `config.num_trials` models; returns the results.

  A trial dir left by an earlier run resumes (or is reused when finished)
  only if it was trained with the same settings; else it is refused, or
  with `overwrite` wiped and retrained (see `checkpoints.claim_trial`).
  """
  check_run(config)
  strategy = strategy or tf.distribute.get_strategy()
  data = RunData(config)
  check_run(config, data.tokenizer)
  num_steps, train_set = 1, None
  if config.do_train:
    train_set = data.features(config.tasks, tasks_lib.TRAIN, is_training=True)
    if not train_set.num_features:
      raise errors.DataError(f"no training examples for {config.task_names}")
    num_steps = input_pipeline.num_train_steps(
        train_set.num_features, config.train_batch_size,
        config.num_train_epochs)
  prepare_eval_features(config, data)
  fingerprint = {task.name: task.data_fingerprint(config.raw_data_root)
                 for task in config.tasks
                 if not feature_cache.uses_tfds(config, task)}
  results = FinetuningResults([], {}, data.skipped)
  for trial in range(1, config.num_trials + 1):
    logging.info("trial %d/%d of %s", trial, config.num_trials,
                 ",".join(config.task_names))
    model_dir = config.trial_model_dir(trial)
    seed = config.seed + trial - 1
    checkpoints.claim_trial(model_dir, checkpoints.trial_settings(
        config, seed, fingerprint), overwrite)
    checkpoints.record_run(model_dir, config, data.label_lists)
    trainee = train_loop.build_trainee(config, strategy, model_dir,
                                       data.label_lists, num_steps, seed)
    if config.do_train:
      train_loop.train(config, strategy, trainee, train_set, num_steps, seed)
    if config.do_eval:
      predictor = evaluation.Predictor(trainee.model, strategy)
      results.trials.append(evaluate_trial(config, predictor, data))
      write_summaries(model_dir, int(trainee.optimizer.iterations.numpy()),
                      results.trials[-1])
      results.median = median_results(results.trials)
      write_results(config, results)
      if config.write_test_outputs and trial <= config.n_writes_test:
        write_test_predictions(config, predictor, data, trial)
    if not config.keep_all_models and trial != config.num_trials:
      tf.io.gfile.rmtree(model_dir)
  return results
