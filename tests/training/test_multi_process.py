"""Runs across processes: two workers on localhost, and kill -9 + rerun."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import tensorflow as tf

from electra_tf.data import pretrain_pipeline
from tests.training import multiworker_step
from tests.training.conftest import tiny_config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ROOT}


def _free_ports(count):
  sockets = [socket.socket() for _ in range(count)]
  for s in sockets:
    s.bind(("localhost", 0))
  ports = [s.getsockname()[1] for s in sockets]
  for s in sockets:
    s.close()
  return ports


def test_two_workers_match_one_device(shards, tmp_path):
  config = tiny_config()
  data = pretrain_pipeline.pretraining_dataset(
      shards, config.train_batch_size, config.max_seq_length, seed=5)
  steps = [next(it) for it in [iter(data)] for _ in range(3)]
  batches = {k: np.stack([s[k].numpy() for s in steps])
             for k in multiworker_step.FEATURES}
  batches_path = str(tmp_path / "batches.npz")
  np.savez(batches_path, **batches)
  workers = [f"localhost:{p}" for p in _free_ports(2)]
  output = str(tmp_path / "chief.npz")
  processes = []
  for index in range(2):
    tf_config = {"cluster": {"worker": workers},
                 "task": {"type": "worker", "index": index}}
    processes.append(subprocess.Popen(
        [sys.executable, "-m", "tests.training.multiworker_step",
         batches_path, output], cwd=ROOT,
        env={**ENV, "TF_CONFIG": json.dumps(tf_config)}))
  # The one-device reference trains while the workers start.
  weights, one_device_losses = multiworker_step.train(
      tf.distribute.get_strategy(), batches)
  for process in processes:
    assert process.wait(timeout=300) == 0
  chief = dict(np.load(output))
  losses = chief.pop("losses")
  np.testing.assert_allclose(losses, one_device_losses, rtol=0, atol=1e-5)
  for name, value in weights.items():
    np.testing.assert_allclose(chief[name], value, rtol=0, atol=1e-5,
                               err_msg=name)


def _cli(model_dir, shards, hparams):
  return [sys.executable, os.path.join(ROOT, "pretrain.py"),
          "--hparams", json.dumps(hparams), "--train_data", ",".join(shards),
          "--model_dir", model_dir, "--peak_tflops", "1"]


def _start_and_wait_for(command, checkpoint):
  process = subprocess.Popen(command, env=ENV, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
  deadline = time.time() + 240
  while not os.path.exists(checkpoint):
    assert process.poll() is None and time.time() < deadline
    time.sleep(0.05)
  return process


def test_kill_minus_9_and_ctrl_c_then_rerun_equal_an_uninterrupted_run(
    shards, tmp_path):
  # Long enough that the Ctrl-C below always lands mid-run.
  hparams = dict(tiny_config().hparams_passed, num_train_steps=60,
                 iterations_per_loop=2, save_checkpoints_steps=2,
                 keep_checkpoint_max=1000)
  model_dir = str(tmp_path / "interrupted")
  command = _cli(model_dir, shards, hparams)
  # The uninterrupted reference runs alongside.
  clean_dir = str(tmp_path / "clean")
  clean_log = tmp_path / "clean.log"
  with open(clean_log, "w") as log:
    clean = subprocess.Popen(_cli(clean_dir, shards, hparams), env=ENV,
                             stdout=subprocess.DEVNULL, stderr=log)
  # kill -9 somewhere after step 6: the next run resumes from a checkpoint.
  process = _start_and_wait_for(command,
                                os.path.join(model_dir, "ckpt-6.index"))
  os.kill(process.pid, signal.SIGKILL)
  process.wait()
  latest = tf.train.latest_checkpoint(model_dir)
  assert latest and not latest.endswith("ckpt-60")
  # Ctrl-C after step 10: saves where it is and exits cleanly.
  process = _start_and_wait_for(command,
                                os.path.join(model_dir, "ckpt-10.index"))
  os.kill(process.pid, signal.SIGINT)
  _, err = process.communicate(timeout=120)
  assert process.returncode == 128 + signal.SIGINT, err
  assert "rerun to continue" in err
  stopped = int(tf.train.latest_checkpoint(model_dir).rsplit("-", 1)[1])
  assert 10 <= stopped < 60
  # SIGTERM (pre-emption): saves where it is, exit code 143.
  process = _start_and_wait_for(
      command, os.path.join(model_dir, f"ckpt-{stopped + 4}.index"))
  os.kill(process.pid, signal.SIGTERM)
  _, err = process.communicate(timeout=120)
  assert process.returncode == 143, err
  assert "rerun to continue" in err
  assert int(tf.train.latest_checkpoint(model_dir).rsplit("-", 1)[1]) > (
      stopped)
  subprocess.run(command, env=ENV, check=True, capture_output=True)
  assert clean.wait(timeout=300) == 0, clean_log.read_text()[-3000:]
  resumed = tf.train.latest_checkpoint(model_dir)
  assert resumed.endswith("ckpt-60")
  ra = tf.train.load_checkpoint(resumed)
  rb = tf.train.load_checkpoint(tf.train.latest_checkpoint(clean_dir))
  names = [n for n in rb.get_variable_to_shape_map()
           if n.startswith(("model/", "optimizer/"))]
  assert len(names) > 50
  for name in names:
    np.testing.assert_array_equal(ra.get_tensor(name), rb.get_tensor(name),
                                  err_msg=name)


def _start_workers(model_dir, shards, hparams, logs):
  """Two `pretrain.py --strategy multi_worker` processes on localhost,
  their stderr into the files `logs`."""
  workers = [f"localhost:{p}" for p in _free_ports(2)]
  processes = []
  for index in range(2):
    tf_config = {"cluster": {"worker": workers},
                 "task": {"type": "worker", "index": index}}
    with open(logs[index], "w") as log:
      processes.append(subprocess.Popen(
          _cli(model_dir, shards, hparams) + ["--strategy", "multi_worker"],
          env={**ENV, "TF_CONFIG": json.dumps(tf_config)},
          stdout=subprocess.DEVNULL, stderr=log))
  return processes


def _worker_batches(shards, config, num_steps):
  """The global batches two workers read: each its own shard, side by side."""
  per_worker = config.train_batch_size // 2
  steps = []
  for index in range(2):
    # tf.data's seeded shuffles also follow TensorFlow's global seed, which
    # the training loop sets to the run's seed before building its input.
    tf.random.set_seed(config.seed)
    context = tf.distribute.InputContext(
        num_input_pipelines=2, input_pipeline_id=index,
        num_replicas_in_sync=2)
    data = pretrain_pipeline.pretraining_dataset(
        shards, per_worker, config.max_seq_length, seed=config.seed,
        input_context=context)
    steps.append([batch for batch, _ in zip(data, range(num_steps))])
  return {k: np.stack([np.concatenate([steps[0][s][k].numpy(),
                                       steps[1][s][k].numpy()])
                       for s in range(num_steps)])
          for k in multiworker_step.FEATURES}


def test_two_worker_cli_killed_and_resumed_equals_one_device(shards, tmp_path):
  # Each worker reads its own shard; both are killed with -9 mid-run and
  # rerun. The chief's final checkpoint equals one device trained on the
  # same global batches (each worker's half side by side).
  hparams = dict(tiny_config().hparams_passed, num_train_steps=30)
  config = tiny_config(num_train_steps=30)
  model_dir = str(tmp_path / "two_workers")
  logs = [tmp_path / f"worker-{index}.log" for index in range(2)]
  processes = _start_workers(model_dir, shards, hparams, logs)
  deadline = time.time() + 240
  while not os.path.exists(os.path.join(model_dir, "ckpt-6.index")):
    assert all(p.poll() is None for p in processes), [
        log.read_text()[-2000:] for log in logs]
    assert time.time() < deadline
    time.sleep(0.02)
  for process in processes:
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
  killed_at = tf.train.latest_checkpoint(model_dir)
  assert killed_at and not killed_at.endswith("ckpt-30")
  processes = _start_workers(model_dir, shards, hparams, logs)
  # The one-device reference trains while the workers resume.
  weights, _ = multiworker_step.train(
      tf.distribute.get_strategy(), _worker_batches(shards, config, 30),
      config)
  codes = [process.wait(timeout=300) for process in processes]
  errs = [log.read_text() for log in logs]
  assert codes == [0, 0], [e[-3000:] for e in errs]
  assert all(f"resumed from {killed_at}" in e for e in errs), [
      e[-3000:] for e in errs]
  final = tf.train.latest_checkpoint(model_dir)
  assert final.endswith("ckpt-30")
  assert not [name for name in os.listdir(model_dir)
              if "temp" in name or "worker" in name], os.listdir(model_dir)
  restored = multiworker_step.checkpoint_weights(final, config)
  assert restored.keys() == weights.keys()
  for name, value in weights.items():
    np.testing.assert_allclose(restored[name], value, rtol=0, atol=1e-5,
                               err_msg=name)
