"""Periodic progress lines of a dataset build, through absl logging."""

import time

from absl import logging

# Seconds between two progress lines of one job.
DEFAULT_INTERVAL_SECONDS = 30.0


def _duration(seconds):
  minutes, seconds = divmod(int(seconds), 60)
  hours, minutes = divmod(minutes, 60)
  return f"{hours}h{minutes:02d}m{seconds:02d}s" if hours else (
      f"{minutes}m{seconds:02d}s")


class ProgressLogger:
  """Logs documents, examples, tokens/s and an ETA every few seconds.

  Args:
    name: prefix of each line, e.g. "job 2/8".
    stats: the job's `BuildStats`, read at each report.
    total_bytes: bytes the job will read, or None if unknown (no ETA).
    interval_seconds: minimum time between two lines.
    clock: a `time.monotonic`-like function (injectable for tests).
  """

  def __init__(self, name, stats, total_bytes,
               interval_seconds=DEFAULT_INTERVAL_SECONDS, clock=time.monotonic):
    self._name = name
    self._stats = stats
    self._total_bytes = total_bytes
    self._interval = interval_seconds
    self._clock = clock
    self._start = clock()
    self._last_report = self._start

  def line(self):
    """The current progress line."""
    stats = self._stats
    elapsed = max(self._clock() - self._start, 1e-9)
    text = (f"{self._name}: {stats.documents} documents, {stats.examples} "
            f"examples, {stats.tokens / elapsed:,.0f} tokens/s")
    if self._total_bytes:
      done = min(stats.bytes_read / self._total_bytes, 1.0)
      eta = elapsed * (1 - done) / done if done else float("inf")
      text += f", {100 * done:.1f}% read, ETA " + (
          _duration(eta) if done else "unknown")
    return text

  def maybe_log(self):
    """Logs a line if `interval_seconds` have passed since the last one."""
    now = self._clock()
    if now - self._last_report >= self._interval:
      self._last_report = now
      logging.info(self.line())
