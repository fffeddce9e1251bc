"""Finetuning settings picked on the dev split (`electra-study --pick_on_dev`).

The same study finetuned with other settings (profiles that change only
`finetune_hparams`, `finetune_preset` or the tasks' `num_train_epochs`, e.g.
the learning rate) gives one finished output dir per setting. For every finetuned model (objective,
pretraining seed, checkpoint step) and task, and for random initialisation
per task, the setting with the highest mean dev score over the finetuning
seeds is kept, and its runs are what the report shows on the headline
split: the paper's way of choosing finetuning hyperparameters, with the test
split never looked at for the choice.
"""

from electra_tf.study import collect

# Study keys the compared results may differ in: the finetuning recipe, and
# the words and profiles of the config file, which change no setting. The
# tasks may differ in their epochs only (`TASK_SETTINGS`).
FREE_KEYS = ("finetune_hparams", "finetune_preset", "tasks", "description",
             "profiles")
TASK_SETTINGS = ("num_train_epochs",)
# What must be equal: the same tasks and references; the same pretrained
# models are checked apart (`_check_same_pretraining`).
SAME_KEYS = ("headline_split", "tasks", "objectives", "tfidf")
RANDOM_INIT = "random_init"


def finetuning_settings(results):
  """The finetuning settings a study's config gave, the tasks' own as
  "<task>.<key>"."""
  settings = dict(results["study"]["finetune_hparams"],
                  finetune_preset=results["study"]["finetune_preset"])
  for task in results["study"]["tasks"]:
    for key in TASK_SETTINGS:
      settings[f"{task['name']}.{key}"] = task.get(key)
  return settings


def _check_same_pretraining(results_list):
  """Every results has the pretraining runs of results 0 with the same loss
  curves and the same held-out metrics at the checkpoints both evaluated (a
  study stopped early has evaluated fewer)."""
  def runs(results):
    return {(run["objective"], run["seed"]): run
            for run in results["pretraining"]}
  first = runs(results_list[0])
  for index, results in enumerate(results_list):
    other = runs(results)
    if set(other) != set(first):
      raise ValueError(f"results {index} differ from results 0 in their "
                       f"pretraining runs: {sorted(other)} against "
                       f"{sorted(first)}")
    for key, run in other.items():
      shared = set(run["eval"]) & set(first[key]["eval"])
      if (run["loss_curve"] != first[key]["loss_curve"] or not shared
          or any(run["eval"][s] != first[key]["eval"][s] for s in shared)):
        raise ValueError(f"results {index} differ from results 0 in "
                         f"'pretraining': {key[0]} seed {key[1]} is another "
                         "pretrained model")


def _check_same_tasks(results_list):
  """The study tasks of every results equal results 0's but for
  `TASK_SETTINGS`."""
  def without_settings(results):
    return [{k: v for k, v in task.items() if k not in TASK_SETTINGS}
            for task in results["study"]["tasks"]]
  for index, results in enumerate(results_list):
    if without_settings(results) != without_settings(results_list[0]):
      raise ValueError(f"results {index} is another study: its tasks differ "
                       "from results 0's in more than "
                       f"{', '.join(TASK_SETTINGS)}")


def variant_labels(results_list):
  """A label per results from the finetuning settings that differ between
  them, e.g. ["learning_rate=0.001", "learning_rate=0.0003"]."""
  settings = [finetuning_settings(r) for r in results_list]
  names = sorted({k for s in settings for k in s
                  if any(s.get(k) != other.get(k) for other in settings)})
  if not names:
    raise ValueError("the results do not differ in their finetuning "
                     "settings: there is nothing to pick")
  labels = [", ".join(f"{k}={s.get(k)}" for k in names) for s in settings]
  if len(set(labels)) != len(labels):
    raise ValueError(f"two results have the same finetuning settings: "
                     f"{labels}")
  return labels


def _groups(rows, key_of):
  groups = {}
  for row in rows:
    groups.setdefault(key_of(row), []).append(row)
  return groups


def _model_key(run):
  return (run["init"], run["pretrain_seed"], run["step"], run["task"])


def _random_key(run):
  return (RANDOM_INIT, None, None, run["task"])


def _describe(key):
  init, _, step, task = key
  model = "random init" if init == RANDOM_INIT else f"{init} step {step}"
  return f"{model} on {task}"


def _pick(groups_per_variant, labels, metrics):
  """{group key: index of the variant with the best mean dev score} and the
  dev means behind each choice."""
  picked, records = {}, []
  for label, groups in zip(labels, groups_per_variant):
    extra = sorted(set(groups) - set(groups_per_variant[0]), key=str)
    if extra:
      raise ValueError(f"{label} has runs that {labels[0]} does not: "
                       f"{_describe(extra[0])}")
  for key in groups_per_variant[0]:
    seeds = sorted(r["finetune_seed"] for r in groups_per_variant[0][key])
    means = []
    for label, groups in zip(labels, groups_per_variant):
      rows = groups.get(key)
      if rows is None or sorted(r["finetune_seed"] for r in rows) != seeds:
        raise ValueError(f"{label} does not have the finetuning seeds "
                         f"{seeds} of {_describe(key)}")
      means.append(sum(r["dev"][metrics[key[3]]] for r in rows) / len(rows))
    picked[key] = max(range(len(means)), key=lambda i: means[i])
    records.append({"init": key[0], "pretrain_seed": key[1],
                    "step": key[2], "task": key[3],
                    "picked": labels[picked[key]],
                    "dev_means": dict(zip(labels, means))})
  return picked, records


def pick_on_dev(results_list):
  """One results dict whose rows are, per finetuned model and task, those
  of the finetuning setting with the best mean dev score.

  Raises ValueError naming what differs when the results are not the same
  study and pretrained models, or what is missing from one of them.
  """
  if len(results_list) < 2:
    raise ValueError("give at least two studies to pick from")
  collect.check_same_study(results_list, FREE_KEYS, SAME_KEYS)
  _check_same_tasks(results_list)
  _check_same_pretraining(results_list)
  first = results_list[0]
  if first["headline_split"] == "dev":
    raise ValueError("the studies report the dev split: settings picked on "
                     "dev must be reported on another split (test)")
  labels = variant_labels(results_list)
  metrics = {name: task["metric"] for name, task in first["tasks"].items()}
  chosen = {}
  records = []
  for field, key_of in (("runs", _model_key), (RANDOM_INIT, _random_key)):
    per_variant = [_groups(r[field] or [], key_of) for r in results_list]
    picked, picked_records = _pick(per_variant, labels, metrics)
    chosen[field] = [row for key, index in picked.items()
                     for row in per_variant[index][key]]
    records += picked_records
  combined = dict(first, runs=chosen["runs"],
                  random_init=chosen[RANDOM_INIT] or first[RANDOM_INIT])
  combined["dev_selection"] = {
      "settings": [finetuning_settings(r) for r in results_list],
      "labels": labels, "picked": records}
  combined["summary"] = collect.summary_of(combined)
  return combined
