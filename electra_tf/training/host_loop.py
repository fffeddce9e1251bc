"""The host side of a training loop, shared by pretraining and finetuning.

One host call runs a chunk of replicated steps inside a tf.function (the
original's TPU `iterations_per_loop`) and returns their summed metrics;
chunks end at checkpoint boundaries and at least every `log_every_steps`
steps. A chunk with a non-finite loss stops the run before anything of it
is saved.
"""

import tensorflow as tf

from electra_tf import errors
from electra_tf.training import xla_regions

NONFINITE_STEPS = "nonfinite_steps"


class TrainingError(errors.ElectraError):
  """Training cannot go on (a non-finite loss, unreadable data)."""


def reduce_sums(strategy, per_replica, replicated_keys=()):
  """Per-replica scalars summed over replicas (`replicated_keys`, equal on
  every replica, averaged)."""
  return {key: strategy.reduce(
      tf.distribute.ReduceOp.MEAN if key in replicated_keys
      else tf.distribute.ReduceOp.SUM, value, axis=None)
          for key, value in per_replica.items()}


def chunk_function(strategy, replica_fn, jit_compile, empty_sums,
                   replicated_keys=(), jit_compile_matmuls=True):
  """A function `run(iterator, num_steps)` running `replica_fn` on each
  replica for `num_steps` batches; returns the per-step sums added up.

  Args:
    strategy: the run's `tf.distribute.Strategy`.
    replica_fn: features -> dict of scalars (one has key "loss").
    jit_compile: compile `replica_fn` with XLA (see
      `distribute.compiles_step`).
    empty_sums: () -> zeros with the keys `replica_fn` returns.
    replicated_keys: keys equal on every replica (averaged, not summed).
    jit_compile_matmuls: False: with `jit_compile`, XLA compiles all but
      the matmuls (see `xla_regions`). Its clusters cannot live inside a
      graph loop, so `run` then loops in Python over a compiled step (one
      host call per step: nothing next to a CPU step's seconds).
  """
  # The step is plain TensorFlow (no Python control flow on tensors):
  # autograph's source conversion of it, and of the models it calls, would
  # only add seconds to the first trace in each process.
  replica_fn = tf.autograph.experimental.do_not_convert(replica_fn)
  xla_but_matmuls = jit_compile and not jit_compile_matmuls
  if xla_but_matmuls:
    compiled = xla_regions.all_but_matmuls(replica_fn)
  elif jit_compile:
    compiled = tf.function(replica_fn, jit_compile=True)
  else:
    compiled = replica_fn

  def one_step(iterator):
    step_sums = reduce_sums(
        strategy, strategy.run(compiled, args=(next(iterator),)),
        replicated_keys)
    step_sums[NONFINITE_STEPS] = tf.cast(
        ~tf.math.is_finite(step_sums["loss"]), tf.float32)
    return step_sums

  def add(sums, step_sums):
    return {key: sums[key] + step_sums[key] for key in sums}

  def empty():
    sums = dict(empty_sums())
    sums[NONFINITE_STEPS] = tf.zeros([], tf.float32)
    return sums

  if xla_but_matmuls:
    step_function = tf.function(one_step)

    def run_in_python(iterator, num_steps):
      sums = empty()
      for _ in range(int(num_steps)):
        sums = add(sums, step_function(iterator))
      return sums

    return run_in_python

  @tf.function
  def run(iterator, num_steps):
    sums = empty()
    for _ in tf.range(num_steps):
      sums = add(sums, one_step(iterator))
    return sums

  return run


def next_chunk(step, total, iterations_per_loop, log_every_steps,
               save_checkpoints_steps):
  """Steps in the next host call: up to the loop size (and the logging
  interval, when set), the end, or the next checkpoint step."""
  loop = iterations_per_loop
  if log_every_steps:
    loop = min(loop, log_every_steps)
  to_save = save_checkpoints_steps - step % save_checkpoints_steps
  return max(1, min(loop, total - step, to_save))


def run_chunk(run, iterator, chunk, step, last_checkpoint):
  """Runs one host call; returns its sums as numbers.

  Raises:
    TrainingError: unreadable data, or a non-finite loss (nothing of the
      chunk is saved; `last_checkpoint` is named).
  """
  try:
    sums = run(iterator, tf.constant(chunk))
  except (tf.errors.InvalidArgumentError, tf.errors.DataLossError) as e:
    raise TrainingError(
        f"unreadable training data near step {step}: "
        f"{errors.first_line(e)} (last checkpoint: {last_checkpoint})"
    ) from None
  sums = {key: value.numpy() for key, value in sums.items()}
  if sums[NONFINITE_STEPS] > 0:
    raise TrainingError(
        f"non-finite loss in steps {step + 1}-{step + chunk}; stopped without "
        f"saving (last good checkpoint: {last_checkpoint})")
  return sums


def write_scalars(writer, step, values):
  """TensorBoard scalars of one chunk (the ETA is for the log only)."""
  with writer.as_default(step=step):
    for key, value in values.items():
      if key != "eta_seconds":
        tf.summary.scalar(key, value)
