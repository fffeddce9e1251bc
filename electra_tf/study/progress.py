"""Progress and ETA over a whole study.

Every unit of work (data, each pretraining run, each finetuning run, the
references) has an estimated cost in FLOPs. The ETA scales the work left by
the rate measured on the units actually run in this process, so units
reused from an earlier (killed) run do not make the estimate optimistic.
"""

import time

from absl import logging

from electra_tf.training import progress as progress_lib

# Cost of units that are not model FLOPs (data building, the TF-IDF
# reference), in FLOP-equivalents: rough, rescaled by the measured rate.
DATA_COST_PER_BYTE = 2e5
REFERENCE_COST = 1e12


class StudyProgress:
  """Logs "what finished, share of the work, elapsed, ETA" lines."""

  def __init__(self, total_cost, seconds_before=0.0):
    """`seconds_before`: work of this study that ran before the tracker
    existed (building the data), counted in the elapsed time."""
    self.total_cost = max(total_cost, 1.0)
    self.done_cost = 0.0
    self._measured_cost = 0.0
    self._measured_seconds = 0.0
    self._started = time.time() - seconds_before

  def finished(self, what, cost, seconds=None):
    """Records a unit of `cost`; `seconds` when it ran (None: reused)."""
    self.done_cost += cost
    if seconds is not None:
      self._measured_cost += cost
      self._measured_seconds += seconds
    line = (f"study: {what} {'done' if seconds is not None else 'reused'} | "
            f"{100 * self.done_cost / self.total_cost:.0f}% of the work | "
            f"elapsed {progress_lib.format_duration(self.elapsed)}")
    eta = self.eta_seconds()
    if eta is not None:
      line += f" | ETA {progress_lib.format_duration(eta)}"
    logging.info("%s", line)
    return line

  @property
  def elapsed(self):
    return time.time() - self._started

  def eta_seconds(self):
    if self._measured_cost <= 0:
      return None
    rate = self._measured_cost / max(self._measured_seconds, 1e-9)
    return max(self.total_cost - self.done_cost, 0.0) / rate


class Timer:
  """Seconds a block took: `with Timer() as t: ...; t.seconds` (None if
  the block never ran)."""

  def __init__(self):
    self.seconds = None

  def __enter__(self):
    self._start = time.time()
    self.seconds = None
    return self

  def __exit__(self, *exc):
    self.seconds = time.time() - self._start
