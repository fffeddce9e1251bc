"""The host loop both training loops share: chunks, sums, non-finite stop."""

import numpy as np
import pytest
import tensorflow as tf

from electra_tf.training import distribute
from electra_tf.training import host_loop


@pytest.mark.parametrize("step, total, loop, log_every, save_every, chunk", [
    (0, 100, 10, 0, 1000, 10),   # the loop size
    (0, 100, 10, 4, 1000, 4),    # logging more often shortens chunks
    (0, 100, 10, 40, 1000, 10),  # ... but never lengthens them
    (95, 100, 10, 0, 1000, 5),   # the end
    (7, 100, 10, 0, 12, 5),      # the next checkpoint step (12)
    (12, 100, 10, 0, 12, 10),
])
def test_chunks_end_at_the_loop_size_logging_the_end_and_checkpoints(
    step, total, loop, log_every, save_every, chunk):
  assert host_loop.next_chunk(step, total, loop, log_every,
                              save_every) == chunk


def _summed(loss):
  return {"loss": loss, "norm": tf.ones([])}


def _run(losses, replica_fn=_summed):
  strategy = tf.distribute.get_strategy()
  values = iter(tf.data.Dataset.from_tensor_slices(
      np.array(losses, np.float32)))
  run = host_loop.chunk_function(
      strategy, replica_fn, False,
      lambda: {"loss": tf.zeros([]), "norm": tf.zeros([])}, ("norm",))
  return host_loop.run_chunk(run, values, len(losses), 10, "ckpt-10")


def test_a_chunk_sums_its_steps():
  sums = _run([1.0, 2.0, 4.0])
  assert (sums["loss"], sums["norm"], sums[host_loop.NONFINITE_STEPS]) == (
      7.0, 3.0, 0.0)


def test_a_non_finite_step_stops_the_run_naming_the_steps_and_checkpoint():
  with pytest.raises(host_loop.TrainingError,
                     match=r"steps 11-13; .*last good checkpoint: ckpt-10"):
    _run([1.0, float("nan"), 2.0])


def test_the_step_is_traced_as_written_not_converted_by_autograph():
  # Converting the step, and the models it calls, cost seconds in each
  # process's first trace. Without conversion, Python control flow on a
  # tensor is an error.
  def replica_fn(loss):
    if loss > 0:
      loss = loss * 2.0
    return _summed(loss)

  with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
    _run([1.0, 1.0], replica_fn)


def test_the_step_is_compiled_with_xla_only_on_one_device_when_asked():
  one_device = tf.distribute.get_strategy()
  assert distribute.compiles_step(one_device, True)
  assert not distribute.compiles_step(one_device, False)
  two = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
  assert not distribute.compiles_step(two, True)
