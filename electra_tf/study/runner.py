"""run_study: corpus -> vocab, TFRecords -> pretraining per objective and
seed at equal FLOPs -> finetuning along the budget -> references -> report.

Layout of the output dir (each run dir an ordinary, resumable run):

  corpus/                 with docstring_corpus_bytes: the text, written once
  data/vocab.txt, data/train/, data/eval/     built once      } or in the
  pretrain/<objective>-seed<s>/               pretraining runs } pretrain dir
  finetune/<objective>-seed<s>-step<n>/<task>/seed<k>/model_1/
  finetune/random_init/<task>/seed<k>/model_1/
  finetune/features/                          cached finetuning features
  reference/tfidf.json
  results.json, results.md, score_vs_flops.png, pretraining_loss.png
"""

import os
import time

from absl import logging
import tensorflow as tf

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf.checkpoints import run_records
from electra_tf.data import dataset_checks
from electra_tf.finetuning import runner as finetuning_runner
from electra_tf.pretraining import train_loop
from electra_tf.study import budget
from electra_tf.study import collect
from electra_tf.study import progress as progress_lib
from electra_tf.study import report
from electra_tf.study import study_data
from electra_tf.study import study_tasks
from electra_tf.study import sub_runs
from electra_tf.study import tfidf_reference
from electra_tf.training import distribute

EVAL_RECORD = "study_eval.json"
RANDOM_INIT = "random_init"


class StudyStopped(Exception):
  """The time limit ran out (`signal` None), or a signal stopped
  pretraining (after saving); the study continues when run again."""

  def __init__(self, signal=None):
    super().__init__("stopped by signal %d" % signal if signal
                     else "stopped at the time limit")
    self.signal = signal


def pretrain_dir(output_dir, label, seed):
  return os.path.join(output_dir, "pretrain", f"{label}-seed{seed}")


def init_name(label, seed, step):
  return f"{label}-seed{seed}-step{step}"


def finetune_dir(output_dir, init, task, seed):
  return os.path.join(output_dir, "finetune", init, task, f"seed{seed}")


class Study:
  """One study's settings, paths and progress (see `run_study`)."""

  def __init__(self, study, output_dir, max_seconds=None, strategy=None,
               pretrain_root=None):
    self.study = study
    # Recorded configs name files under them: absolute, so they stay valid.
    self.output_dir = _absolute(output_dir)
    # Data and pretraining runs: another study's, to finetune its models
    # with other settings (its sub-runs are reused only if identical).
    self.pretrain_root = _absolute(pretrain_root or output_dir)
    self.deadline = None if max_seconds is None else time.time() + max_seconds
    self.strategy = strategy or distribute.build_strategy("auto")
    self.tasks = study_tasks.resolve_tasks(study)
    if "tfidf" in study.references:
      tfidf_reference.check_available()
    self.data = None
    self.schedules = None
    self.progress = None

  def seconds_left(self):
    if self.deadline is None:
      return None
    left = self.deadline - time.time()
    if left <= 0:
      raise StudyStopped()
    return left

  # ------------------------------------------------------------ pretraining

  def objective_config(self, label, seed):
    return budget.objective_config(self.study, label, seed,
                                   self.data.vocab_file, self.data.vocab_size)

  def plan(self):
    """Schedules per objective and the study's progress tracker."""
    seed = self.study.pretrain_seeds[0]
    configs = {label: self.objective_config(label, seed)
               for label in self.study.objectives}
    self.schedules = budget.schedules(
        configs, self.study.reference_objective, self.study.budget_steps,
        self.study.num_checkpoints)
    reference = configs[self.study.reference_objective]
    finetune_cost = sum(study_tasks.finetune_cost(task, reference)
                        for task in self.tasks.values())
    inits = (len(self.schedules) * self.study.num_checkpoints
             * len(self.study.pretrain_seeds)
             + ("random_init" in self.study.references))
    total = (self.data.cost
             + sum(s.total_flops for s in self.schedules.values())
             * len(self.study.pretrain_seeds)
             + finetune_cost * inits * len(self.study.finetune_seeds)
             + progress_lib.REFERENCE_COST)
    self.progress = StudyProgressWithData(total, self.data)

  def pretrain(self, label, seed):
    """Runs (or resumes, or reuses) one pretraining run; evaluates its
    end-of-budget checkpoint. Returns {step: eval metrics}."""
    schedule = self.schedules[label]
    config = budget.with_steps(self.objective_config(label, seed), schedule)
    run_dir = pretrain_dir(self.pretrain_root, label, seed)
    sub_runs.claim(run_dir, {"kind": "pretraining",
                             "config": config.to_dict(),
                             "data": self.data.fingerprint},
                   added_later={f"config.{key}": value for key, value
                                in config_lib.KEYS_ADDED_LATER.items()})
    special_ids = dataset_checks.special_token_ids(config)
    step = _latest_step(run_dir)
    timer = progress_lib.Timer()
    with timer:
      if step < schedule.num_train_steps:
        result = train_loop.pretrain(config, self.strategy, run_dir,
                                     self.data.train_files, special_ids,
                                     max_seconds=self.seconds_left(),
                                     health_files=self.data.eval_files)
        if result.stopped_early:
          raise StudyStopped(result.stop_signal)
      evaluations = self.evaluate_checkpoints(
          label, seed, schedule.checkpoint_steps[-1:])
    self.progress.finished(
        f"pretraining {label} seed {seed}", schedule.total_flops,
        timer.seconds if step < schedule.num_train_steps else None)
    return evaluations

  def evaluate_checkpoints(self, label, seed, steps):
    """Pretraining eval metrics of the checkpoints at `steps` (recorded);
    returns those of every checkpoint evaluated so far."""
    config = budget.with_steps(self.objective_config(label, seed),
                               self.schedules[label])
    special_ids = dataset_checks.special_token_ids(config)
    run_dir = pretrain_dir(self.pretrain_root, label, seed)
    path = os.path.join(run_dir, EVAL_RECORD)
    record = run_records.read_json(path) or {}
    for step in steps:
      if str(step) in record:
        continue
      checkpoint = os.path.join(run_dir, f"ckpt-{step}")
      if not tf.io.gfile.exists(checkpoint + ".index"):
        raise errors.CheckpointError(
            f"{checkpoint} is missing: the study needs it to finetune; "
            f"delete {run_dir} to pretrain it again")
      metrics = train_loop.evaluate(
          config, self.strategy, os.path.join(run_dir, f"eval-{step}"),
          self.data.eval_files, special_ids, init_checkpoint=checkpoint)
      record[str(step)] = {k: float(v) for k, v in metrics.items()}
      run_records.write_json(path, record)
    return {int(k): v for k, v in record.items()}

  # ------------------------------------------------------------ finetuning

  def finetune(self, init, checkpoint, pretrain_config, task_name, seed):
    """One finetuning run (one task, one seed); returns its metrics:
    {split: {metric: percent}}."""
    run_dir = finetune_dir(self.output_dir, init, task_name, seed)
    config = study_tasks.finetune_config(
        self.study, pretrain_config, self.tasks[task_name],
        model_dir=os.path.join(run_dir, "model"), seed=seed,
        init_checkpoint=checkpoint,
        feature_dir=os.path.join(self.output_dir, "finetune", "features"))
    sub_runs.claim(run_dir, {"kind": "finetuning", "config": config.to_dict(),
                             "data": self.data.fingerprint})
    results_path = config.results_txt[:-len(".txt")] + ".json"
    cost = study_tasks.finetune_cost(self.tasks[task_name], pretrain_config)
    done = run_records.read_json(results_path)
    timer = progress_lib.Timer()
    if done is None or not done.get("trials"):
      self.seconds_left()
      with timer:
        finetuning_runner.run_finetuning(config, self.strategy)
      done = run_records.read_json(results_path)
    self.progress.finished(f"finetuning {init} on {task_name} seed {seed}",
                           cost, timer.seconds)
    return collect.split_metrics(done["trials"][0], task_name)

  def finetune_all(self, init, checkpoint, pretrain_config):
    return {task: {seed: self.finetune(init, checkpoint, pretrain_config,
                                       task, seed)
                   for seed in self.study.finetune_seeds}
            for task in self.tasks}

  # -------------------------------------------------------------- the study

  def run(self):
    """Pretrains every objective; finetunes the end-of-budget checkpoints
    and the references and writes the report; then finetunes the earlier
    checkpoints and writes the report again with them."""
    self.data = study_data.prepare(self.study, self.pretrain_root)
    self.plan()
    self.progress.data_done()
    pretraining, finetuned = {}, {}
    configs = {}
    for seed in self.study.pretrain_seeds:
      for label in self.study.objectives:
        pretraining[(label, seed)] = self.pretrain(label, seed)
        configs[(label, seed)] = budget.with_steps(
            self.objective_config(label, seed), self.schedules[label])

    def finetune_checkpoints(last):
      for (label, seed), config in configs.items():
        steps = self.schedules[label].checkpoint_steps
        if not last:
          pretraining[(label, seed)] = self.evaluate_checkpoints(
              label, seed, steps[:-1])
        for step in (steps[-1:] if last else steps[:-1]):
          checkpoint = os.path.join(pretrain_dir(self.pretrain_root, label,
                                                 seed), f"ckpt-{step}")
          finetuned[(label, seed, step)] = self.finetune_all(
              init_name(label, seed, step), checkpoint, config)

    finetune_checkpoints(last=True)
    random_init = None
    if RANDOM_INIT in self.study.references:
      config = self.objective_config(self.study.reference_objective,
                                     self.study.pretrain_seeds[0])
      random_init = self.finetune_all(RANDOM_INIT, None, config)
    tfidf = self.tfidf_scores() if "tfidf" in self.study.references else None

    def write_report():
      return report.write(
          collect.results(self.study, self.schedules, pretraining, finetuned,
                          random_init, tfidf, self.tasks,
                          os.path.join(self.pretrain_root, "pretrain")),
          self.output_dir)

    if self.study.num_checkpoints == 1:
      return write_report()
    write_report()
    logging.info("study: report of the end-of-budget checkpoints written to "
                 "%s; finetuning the earlier checkpoints next",
                 self.output_dir)
    finetune_checkpoints(last=False)
    return write_report()

  def tfidf_scores(self):
    path = os.path.join(self.output_dir, "reference", "tfidf.json")
    scores = run_records.read_json(path)
    if scores is None:
      with progress_lib.Timer() as timer:
        scores = {name: tfidf_reference.reference_scores(
            study_task.task, study_tasks.data_root(self.study),
            self.study.headline_split)
                  for name, study_task in self.tasks.items()
                  if tfidf_reference.supports(study_task.task)}
      run_records.write_json(path, scores)
      self.progress.finished("TF-IDF reference", progress_lib.REFERENCE_COST,
                             timer.seconds)
    return scores


class StudyProgressWithData(progress_lib.StudyProgress):
  """`StudyProgress` that counts the data step first."""

  def __init__(self, total_cost, data):
    super().__init__(total_cost, seconds_before=data.seconds or 0.0)
    self._data = data

  def data_done(self):
    return self.finished("data (vocab, TFRecords)", self._data.cost,
                         self._data.seconds)


def _absolute(path):
  return path if "://" in path else os.path.abspath(path)


def _latest_step(run_dir):
  latest = tf.train.latest_checkpoint(run_dir)
  return int(latest.rsplit("-", 1)[1]) if latest else 0


def run_study(study, output_dir, max_seconds=None, strategy=None,
              pretrain_dir=None):
  """Runs (or resumes) `study` into `output_dir`.

  `pretrain_dir` (default `output_dir`) holds the data and pretraining
  runs: give another study's output dir to finetune its pretrained models
  with other finetuning settings, pretraining nothing again.

  Returns the report (see `report.write`), or None when `max_seconds` ran
  out first (run again to continue).

  Raises:
    StudyStopped: SIGTERM or Ctrl-C stopped a pretraining run (which saved
      a checkpoint first); `.signal` names the signal.
  """
  try:
    return Study(study, output_dir, max_seconds, strategy,
                 pretrain_dir).run()
  except StudyStopped as stopped:
    if stopped.signal is not None:
      raise
    logging.info("study stopped at its time limit; run it again to continue")
    return None

