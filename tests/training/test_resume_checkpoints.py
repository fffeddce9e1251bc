"""Resume checkpoints: what a run killed between its regular checkpoints
keeps, and where its rerun starts."""

import os

import pytest
import tensorflow as tf

from electra_tf.pretraining import train_loop
from electra_tf.training import checkpointing
from electra_tf.training import distribute
from electra_tf.training import host_loop
from tests.training.conftest import tiny_config


class FakeClock:

  def __init__(self):
    self.now = 0.0

  def __call__(self):
    return self.now


def _checkpoints(model_dir, clock, every_steps=10, resume_every_seconds=60):
  optimizer = tf.keras.optimizers.SGD()
  model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
  model.build([None, 2])
  return checkpointing.RunCheckpoints(
      model_dir, model, optimizer, keep=3, every_steps=every_steps,
      resume_every_seconds=resume_every_seconds, clock=clock)


def _steps_in(directory):
  if not tf.io.gfile.exists(directory):
    return []
  return sorted(int(n[len("ckpt-"):-len(".index")])
                for n in tf.io.gfile.listdir(directory)
                if n.startswith("ckpt-") and n.endswith(".index"))


def test_resume_checkpoints_are_timed_kept_alone_and_dropped(tmp_path):
  clock = FakeClock()
  model_dir = str(tmp_path / "run")
  checkpoints = _checkpoints(model_dir, clock)
  resume_dir = os.path.join(model_dir, checkpointing.RESUME_DIR)
  iterations = checkpoints.optimizer.iterations

  iterations.assign(3)
  clock.now = 59.0
  assert checkpoints.save() is None  # off the grid, not yet due
  clock.now = 60.0
  assert checkpoints.save().endswith(os.path.join("resume", "ckpt-3"))
  iterations.assign(4)
  clock.now = 100.0
  assert checkpoints.save() is None  # 40 s since the last save
  iterations.assign(7)
  clock.now = 121.0
  checkpoints.save()
  assert _steps_in(resume_dir) == [7]  # only the newest is kept
  assert checkpoints.latest.endswith(os.path.join("resume", "ckpt-7"))
  assert _steps_in(model_dir) == []

  iterations.assign(10)  # the grid: a regular checkpoint supersedes it
  clock.now = 122.0
  assert checkpoints.save().endswith("ckpt-10")
  assert not tf.io.gfile.exists(resume_dir)
  assert checkpoints.latest == checkpoints.latest_regular
  iterations.assign(12)
  clock.now = 181.0  # timed from the regular save
  assert checkpoints.save() is None
  clock.now = 182.0
  assert checkpoints.save().endswith(os.path.join("resume", "ckpt-12"))
  assert _steps_in(model_dir) == [10] and _steps_in(resume_dir) == [12]

  # A new process resumes from the newer one.
  fresh = _checkpoints(model_dir, FakeClock())
  assert fresh.restore() == "resumed from " + os.path.join(resume_dir,
                                                           "ckpt-12")
  assert int(fresh.optimizer.iterations.numpy()) == 12


def test_resume_checkpoints_can_be_turned_off(tmp_path):
  clock = FakeClock()
  checkpoints = _checkpoints(str(tmp_path), clock, resume_every_seconds=None)
  checkpoints.optimizer.iterations.assign(3)
  clock.now = 1e6
  assert checkpoints.save() is None
  assert checkpoints.latest is None


def test_a_damaged_resume_checkpoint_falls_back_to_the_regular_one(tmp_path):
  clock = FakeClock()
  model_dir = str(tmp_path / "run")
  checkpoints = _checkpoints(model_dir, clock)
  checkpoints.optimizer.iterations.assign(10)
  checkpoints.save()
  checkpoints.optimizer.iterations.assign(13)
  clock.now = 60.0
  resume = checkpoints.save()
  data = tf.io.gfile.glob(resume + ".data-*")[0]
  with open(data, "r+b") as f:
    f.truncate(3)
  fresh = _checkpoints(model_dir, FakeClock())
  assert fresh.restore().endswith("ckpt-10")
  assert int(fresh.optimizer.iterations.numpy()) == 10


class Killed(Exception):
  """Stands in for the process dying (no signal, nothing saved)."""


@pytest.fixture
def resume_after_every_chunk(monkeypatch):
  monkeypatch.setattr(checkpointing, "DEFAULT_RESUME_EVERY_SECONDS", 0.0)


def test_a_killed_run_resumes_from_its_resume_checkpoint(
    shards, tmp_path, monkeypatch, resume_after_every_chunk):
  del resume_after_every_chunk
  # Regular checkpoints only at the end: without resume checkpoints a kill
  # at step 4 would lose everything.
  config = tiny_config(num_train_steps=6, save_checkpoints_steps=6)
  strategy = tf.distribute.get_strategy()

  run_chunk = host_loop.run_chunk
  calls = []

  def dies_in_the_third_chunk(*args):
    calls.append(args)
    if len(calls) == 3:
      raise Killed()
    return run_chunk(*args)

  monkeypatch.setattr(host_loop, "run_chunk", dies_in_the_third_chunk)
  split = str(tmp_path / "split")
  with pytest.raises(Killed):
    train_loop.pretrain(config, strategy, split, shards)
  assert _steps_in(os.path.join(split, checkpointing.RESUME_DIR)) == [4]
  rerun_chunks = []

  def counted(*args):
    rerun_chunks.append(args[3])  # the step the chunk starts from
    return run_chunk(*args)

  monkeypatch.setattr(host_loop, "run_chunk", counted)
  result = train_loop.pretrain(config, strategy, split, shards)
  assert rerun_chunks == [4]  # only steps 5 and 6 were trained again
  assert result.step == 6 and result.checkpoint.endswith("ckpt-6")
  assert not tf.io.gfile.exists(os.path.join(split, checkpointing.RESUME_DIR))
  # A resume checkpoint holds what a regular one does (model, optimizer,
  # dropout seed states), so the run goes on exactly as
  # test_loop.test_resumed_run_equals_an_uninterrupted_one shows.


def test_every_ten_minutes_and_only_where_one_process_runs_all():
  assert checkpointing.DEFAULT_RESUME_EVERY_SECONDS == 600  # README
  assert distribute.single_process(tf.distribute.get_strategy())

  class TwoWorkers:
    cluster_resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": ["localhost:1", "localhost:2"]}))

  class OneWorker:
    cluster_resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": ["localhost:1"]}))

  assert not distribute.single_process(TwoWorkers())
  assert distribute.single_process(OneWorker())
