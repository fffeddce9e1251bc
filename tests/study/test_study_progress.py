"""The study's progress lines: elapsed time from the study's start, and an
ETA from the work that ran in this process only."""

from electra_tf.study import progress
from electra_tf.study import runner
from electra_tf.study import study_data


class FakeClock:

  def __init__(self, now=1000.0):
    self.now = now

  def __call__(self):
    return self.now


def _data(seconds):
  return study_data.StudyData(
      vocab_file="v", vocab_size=10, train_files=(), eval_files=(),
      fingerprint={}, cost=100.0, seconds=seconds)


def test_elapsed_counts_the_data_built_before_the_tracker(monkeypatch):
  clock = FakeClock()
  monkeypatch.setattr(progress.time, "time", clock)
  tracker = runner.StudyProgressWithData(1000.0, _data(seconds=300.0))
  line = tracker.data_done()
  assert "data (vocab, TFRecords) done | 10% of the work" in line
  assert "elapsed 0:05:00" in line
  # 100 cost units took 300 s: 900 left take 2,700 s.
  assert "ETA 0:45:00" in line
  clock.now += 60
  line = tracker.finished("pretraining electra", 400.0, seconds=60.0)
  assert "50% of the work | elapsed 0:06:00" in line
  # 500 units in 360 s: 500 left take 360 s.
  assert line.endswith("ETA 0:06:00")


def test_reused_units_count_as_done_but_not_in_the_rate(monkeypatch):
  clock = FakeClock()
  monkeypatch.setattr(progress.time, "time", clock)
  tracker = runner.StudyProgressWithData(1000.0, _data(seconds=None))
  line = tracker.data_done()
  assert "data (vocab, TFRecords) reused | 10% of the work" in line
  assert "elapsed 0:00:00" in line and "ETA" not in line
  clock.now += 100
  line = tracker.finished("pretraining mlm", 400.0, seconds=100.0)
  # Only the 400 units that ran set the rate: 500 left take 125 s.
  assert "50% of the work | elapsed 0:01:40 | ETA 0:02:05" in line
