"""Progress lines: counts, tokens/s and ETA."""

from electra_tf.data import build_stats
from electra_tf.data import progress


class FakeClock:

  def __init__(self):
    self.now = 100.0

  def __call__(self):
    return self.now


def test_progress_line_and_interval(monkeypatch):
  clock = FakeClock()
  stats = build_stats.BuildStats(documents=3, examples=20, tokens=5000,
                                 bytes_read=250)
  logged = []
  monkeypatch.setattr(progress.logging, "info", logged.append)
  reporter = progress.ProgressLogger("job 1/2", stats, total_bytes=1000,
                                     interval_seconds=30, clock=clock)
  clock.now += 10
  reporter.maybe_log()
  assert not logged  # too early
  clock.now += 20
  reporter.maybe_log()
  # 30 s for a quarter of the bytes: 90 s to go.
  assert logged == ["job 1/2: 3 documents, 20 examples, 167 tokens/s, "
                    "25.0% read, ETA 1m30s"]


def test_unknown_total_has_no_eta():
  reporter = progress.ProgressLogger("tfds", build_stats.BuildStats(), None)
  assert "ETA" not in reporter.line()
