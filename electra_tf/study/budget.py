"""Equal pretraining compute: each objective's steps from its FLOPs per step.

The budget is `budget_steps` of the reference objective, in model FLOPs
(`modeling.sizes.pretraining_flops_per_sequence`: matmuls, forward and
backward). Every objective gets the step count that spends the same FLOPs,
rounded to a multiple of `num_checkpoints` so its checkpoints fall at equal
fractions of the budget (the rounding moves a run's FLOPs by less than
`num_checkpoints` steps' worth; the reports use each run's own FLOPs).
"""

import dataclasses

from electra_tf import config as config_lib
from electra_tf.modeling import sizes


@dataclasses.dataclass(frozen=True)
class Schedule:
  """One objective's share of the budget."""
  label: str
  num_train_steps: int
  flops_per_step: float
  checkpoint_steps: tuple  # steps finetuned, the last is num_train_steps

  @property
  def total_flops(self):
    return self.num_train_steps * self.flops_per_step

  def flops_at(self, step):
    return step * self.flops_per_step


def flops_per_step(config):
  """Training FLOPs of one step of `config` (a `PretrainingConfig`)."""
  return float(sizes.pretraining_flops_per_sequence(config)
               * config.train_batch_size)


def equal_flops_steps(budget_flops, step_flops, multiple):
  """Steps of `step_flops` closest to `budget_flops`, a multiple of
  `multiple` (at least one multiple).

  >>> equal_flops_steps(1000.0, 7.0, 4)
  144
  """
  steps = round(budget_flops / step_flops / multiple) * multiple
  return max(int(steps), multiple)


def checkpoint_steps(num_train_steps, num_checkpoints):
  """Steps at 1/n, 2/n, ..., n/n of a run.

  >>> checkpoint_steps(900, 3)
  (300, 600, 900)
  """
  every = num_train_steps // num_checkpoints
  return tuple(every * k for k in range(1, num_checkpoints + 1))


def schedules(configs, reference, budget_steps, num_checkpoints):
  """{label: Schedule} for `configs` ({label: PretrainingConfig}).

  The reference objective runs `budget_steps` (rounded up to a multiple of
  `num_checkpoints`); the others spend its FLOPs.
  """
  multiple = num_checkpoints
  reference_steps = -(-budget_steps // multiple) * multiple
  budget = reference_steps * flops_per_step(configs[reference])
  result = {}
  for label, config in configs.items():
    per_step = flops_per_step(config)
    steps = (reference_steps if label == reference
             else equal_flops_steps(budget, per_step, multiple))
    result[label] = Schedule(label, steps, per_step,
                             checkpoint_steps(steps, num_checkpoints))
  return result


# Checkpoints kept beyond the scheduled ones: those an interrupted run saves
# when it stops must not push a scheduled one out.
SPARE_CHECKPOINTS = 20


def with_steps(config, schedule):
  """`config` set to run `schedule`, keeping every checkpoint it needs."""
  return config.override(
      num_train_steps=schedule.num_train_steps,
      save_checkpoints_steps=schedule.checkpoint_steps[0],
      keep_checkpoint_max=len(schedule.checkpoint_steps) + SPARE_CHECKPOINTS)


def objective_config(study, label, seed, vocab_file, vocab_size):
  """The pretraining config of one objective label and seed (its steps
  not yet set: see `with_steps`)."""
  hparams = dict(study.pretrain_hparams)
  hparams.update(study.objective_hparams(label))
  hparams["seed"] = seed
  if vocab_file is not None:
    hparams.update(vocab_file=vocab_file, vocab_size=vocab_size)
  return config_lib.load_pretraining_config(study.pretrain_preset, hparams)
