"""Gathering a study's scores into results: per run, and summarised over seeds.

A score is the headline metric (each task's first metric) on the headline
split, in percent. Over the (pretraining seed, finetuning seed) pairs of an
objective: the mean and 95% CI per task, and of the mean over tasks; the
paired difference of the reference objective minus each other one (and of
each objective minus random initialisation), paired by seeds.
"""

import os

import tensorflow as tf

from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.study import statistics

LOSS_TAGS = ("total_loss", "mlm_loss", "disc_loss", "replace_mlm_loss",
             "all_tokens_mlm_loss")


def split_metrics(trial, task_name):
  """{split: metrics} of one finetuning trial's results."""
  return {tasks_lib.DEV: trial[task_name],
          tasks_lib.TEST: trial.get(f"{task_name}:{tasks_lib.TEST}")}


def loss_curve(run_dir):
  """[[step, {tag: value}], ...] of the pretraining losses TensorBoard got."""
  points = {}
  for path in sorted(tf.io.gfile.glob(os.path.join(run_dir, "train",
                                                   "events.out.tfevents.*"))):
    for record in tf.data.TFRecordDataset(path):
      event = tf.compat.v1.Event.FromString(record.numpy())
      for value in event.summary.value:
        if value.tag in LOSS_TAGS:
          points.setdefault(int(event.step), {})[value.tag] = float(
              tf.make_ndarray(value.tensor))
  return [[step, points[step]] for step in sorted(points)]


def _task_means(scores_by_task):
  """{pair: mean over tasks} for the pairs every task has."""
  pairs = set.intersection(*(set(s) for s in scores_by_task.values()))
  return {pair: sum(s[pair] for s in scores_by_task.values())
          / len(scores_by_task) for pair in sorted(pairs)}


def _estimates(scores_by_task):
  """Per-task and over-task `Estimate`s of {task: {pair: score}}."""
  summary = {task: statistics.mean_ci(list(s.values())).to_dict()
             for task, s in scores_by_task.items()}
  means = _task_means(scores_by_task)
  summary["mean_over_tasks"] = statistics.mean_ci(
      list(means.values())).to_dict()
  return summary, means


def _paired(first, second):
  pairs = sorted(set(first) & set(second))
  if len(pairs) < 2:
    return None
  return statistics.paired_difference([first[p] for p in pairs],
                                      [second[p] for p in pairs]).to_dict()


def summarise(runs, random_runs, tfidf, task_metrics, split, objectives,
              reference):
  """The summary of per-run score rows (results' "runs" and "random_init").

  `task_metrics`: {task: headline metric}; `objectives`: results'
  "objectives" ({label: {"checkpoint_steps": [...], "num_train_steps": n,
  ...}}). Each point's FLOPs come from its rows.
  """
  by_step = {}  # (label, step) -> {task: {(pretrain seed, ft seed): score}}
  flops = {}
  for run in runs:
    key = (run["init"], run["step"])
    flops[key] = run["flops"]
    by_step.setdefault(key, {}).setdefault(run["task"], {})[
        (run["pretrain_seed"], run["finetune_seed"])] = run[split][
            task_metrics[run["task"]]]
  summary = {"objectives": {}, "paired": {}}
  final = {}
  for label, objective in objectives.items():
    points = []
    for step in objective["checkpoint_steps"]:
      if (label, step) not in by_step:  # not finetuned yet
        continue
      estimates, means = _estimates(by_step[(label, step)])
      points.append({"step": step, "flops": flops[(label, step)],
                     **estimates})
      if step == objective["num_train_steps"]:
        final[label] = means
    summary["objectives"][label] = points
  for label in final:
    if label != reference and reference in final:
      summary["paired"][f"{reference} - {label}"] = _paired(
          final[reference], final[label])
  if random_runs:
    scores = {}
    for run in random_runs:
      scores.setdefault(run["task"], {})[run["finetune_seed"]] = run[split][
          task_metrics[run["task"]]]
    estimates, random_means = _estimates(scores)
    summary["random_init"] = estimates
    for label in final:
      expanded = {(pseed, fseed): random_means[fseed]
                  for pseed, fseed in final[label] if fseed in random_means}
      summary["paired"][f"{label} - random_init"] = _paired(final[label],
                                                            expanded)
  if tfidf:
    summary["tfidf"] = {name: scores[task_metrics[name]]
                        for name, scores in tfidf.items()}
  return summary


def results(study, schedules, pretraining, finetuned, random_init, tfidf,
            tasks, pretrain_runs_dir):
  """The study's results dict (what `report.write` renders); the loss
  curves are read from the pretraining runs under `pretrain_runs_dir`."""
  runs = []
  for (label, pseed, step), per_task in finetuned.items():
    for name, per_seed in per_task.items():
      for fseed, metrics in per_seed.items():
        runs.append({"init": label, "pretrain_seed": pseed, "step": step,
                     "flops": schedules[label].flops_at(step), "task": name,
                     "finetune_seed": fseed, **metrics})
  random_runs = [{"task": name, "finetune_seed": fseed, **metrics}
                 for name, per_seed in (random_init or {}).items()
                 for fseed, metrics in per_seed.items()]
  results_dict = {
      "study": study.to_dict(), "headline_split": study.headline_split,
      "tasks": {name: {"metric": t.task.metric_names[0],
                       "num_examples": t.num_examples}
                for name, t in tasks.items()},
      "objectives": {label: {"num_train_steps": s.num_train_steps,
                             "flops_per_step": s.flops_per_step,
                             "total_flops": s.total_flops,
                             "checkpoint_steps": list(s.checkpoint_steps)}
                     for label, s in schedules.items()},
      "pretraining": [{"objective": label, "seed": seed,
                       "eval": {str(k): v for k, v in evals.items()},
                       "loss_curve": loss_curve(os.path.join(
                           pretrain_runs_dir, f"{label}-seed{seed}"))}
                      for (label, seed), evals in pretraining.items()],
      "runs": runs, "random_init": random_runs, "tfidf": tfidf,
  }
  results_dict["summary"] = summary_of(results_dict)
  return results_dict


def summary_of(results):
  """`summarise` over a results dict's own rows."""
  return summarise(
      results["runs"], results["random_init"], results["tfidf"],
      {name: task["metric"] for name, task in results["tasks"].items()},
      results["headline_split"], results["objectives"],
      results["study"]["reference_objective"])


# Study keys that may differ between the results `pool` joins: the seeds,
# and the words and profiles of the config file, which change no setting.
POOLED_KEYS = ("pretrain_seeds", "description", "profiles")


def _short(value, limit=80):
  text = repr(value)
  return text if len(text) <= limit else text[:limit - 3] + "..."


def check_same_study(results_list, free_study_keys, same_keys):
  """Raises ValueError naming the first study setting (other than
  `free_study_keys`) or results entry (of `same_keys`) in which results i
  differ from results 0."""
  first = results_list[0]
  for index, results in enumerate(results_list):
    for key in set(first["study"]) | set(results["study"]):
      if (key not in free_study_keys
          and first["study"].get(key) != results["study"].get(key)):
        raise ValueError(
            f"results {index} is another study: its {key!r} is "
            f"{_short(results['study'].get(key))}, results 0 has "
            f"{_short(first['study'].get(key))}")
    for key in same_keys:
      if results[key] != first[key]:
        raise ValueError(f"results {index} differ from results 0 in "
                         f"{key!r}")


def pool(results_list):
  """One results dict from the results of the same study run with other
  pretraining seeds (in other output dirs): every run's rows together and
  the summary over all (pretraining seed, finetuning seed) pairs.

  Raises ValueError naming what differs when the studies are not the same
  study, when a pretraining seed appears twice, or when the references
  (which no pretraining seed changes) disagree.
  """
  check_same_study(results_list, POOLED_KEYS, (
      "headline_split", "tasks", "objectives", "random_init", "tfidf"))
  first = results_list[0]
  seeds = [seed for results in results_list
           for seed in results["study"]["pretrain_seeds"]]
  if len(set(seeds)) != len(seeds):
    raise ValueError(f"pretraining seeds repeat across the results: {seeds}")
  pooled = dict(first)
  pooled["study"] = dict(first["study"], pretrain_seeds=seeds)
  pooled["pretraining"] = [p for r in results_list for p in r["pretraining"]]
  pooled["runs"] = [run for r in results_list for run in r["runs"]]
  pooled["summary"] = summary_of(pooled)
  return pooled
