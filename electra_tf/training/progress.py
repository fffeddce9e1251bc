"""Throughput, model-FLOPs utilisation and ETA of a running job."""

import datetime
import time

import tensorflow as tf

MATMUL_SIZE = 2048
MEASURE_SECONDS = 1.0


def measure_matmul_peak(dtype=tf.float32, size=MATMUL_SIZE,
                        seconds=MEASURE_SECONDS):
  """FLOP/s of a large square matmul on the default device (a peak proxy)."""
  a = tf.random.stateless_uniform([size, size], seed=[1, 2], dtype=tf.float32)
  a = tf.cast(a, dtype)

  @tf.function(jit_compile=True)
  def chain(x):
    for _ in range(4):
      x = tf.matmul(x, a) * tf.cast(1.0 / size, dtype)
    return x

  chain(a).numpy()  # compile and warm up
  runs, start = 0, time.perf_counter()
  while time.perf_counter() - start < seconds:
    chain(a).numpy()
    runs += 1
  elapsed = time.perf_counter() - start
  return runs * 4 * 2 * size ** 3 / elapsed


def format_duration(seconds):
  return str(datetime.timedelta(seconds=int(round(max(seconds, 0)))))


class Progress:
  """Tracks steps over wall time for rates and the remaining time."""

  def __init__(self, start_step, total_steps, sequences_per_step,
               flops_per_step=None, peak_flops=None):
    self.total_steps = total_steps
    self.sequences_per_step = sequences_per_step
    self.flops_per_step = flops_per_step
    self.peak_flops = peak_flops
    self._last_step, self._last_time = start_step, time.perf_counter()
    self._warm = None

  def update(self, step):
    """Rates since the last update, and the ETA."""
    now = time.perf_counter()
    steps = step - self._last_step
    elapsed = max(now - self._last_time, 1e-9)
    self._last_step, self._last_time = step, now
    # The first host loop includes compilation: estimate from later ones.
    if self._warm is None:
      self._warm = (step, now)
      per_step = elapsed / max(steps, 1)
    else:
      per_step = (now - self._warm[1]) / max(step - self._warm[0], 1)
    stats = {
        "sequences_per_second": steps * self.sequences_per_step / elapsed,
        "steps_per_second": steps / elapsed,
        "eta_seconds": (self.total_steps - step) * per_step,
    }
    if self.flops_per_step and self.peak_flops:
      stats["mfu"] = steps * self.flops_per_step / elapsed / self.peak_flops
    return stats
