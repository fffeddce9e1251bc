"""One run per directory, and builds that leave nothing half-written."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf import run_lock
from electra_tf.cli import build_data
from electra_tf.data import tfrecords
from electra_tf.pretraining import train_loop
from tests.data.conftest import DATA_BUILDER
from tests.training.conftest import tiny_config

VOCAB = os.path.join(DATA_BUILDER, "synthetic_vocab.txt")


def test_a_held_directory_is_refused_naming_the_holder(tmp_path):
  with run_lock.RunLock(str(tmp_path), "pretraining run"):
    with pytest.raises(run_lock.RunLockError) as error:
      with run_lock.RunLock(str(tmp_path)):
        pass
    assert f"pid {os.getpid()}" in str(error.value)
    assert "in use by another pretraining run" in str(error.value)
  with run_lock.RunLock(str(tmp_path)):  # released on exit
    pass
  assert not os.listdir(tmp_path)


def test_the_lock_of_a_dead_run_is_taken_over(tmp_path):
  dead = subprocess.Popen([sys.executable, "-c", "pass"])
  dead.wait()
  (tmp_path / run_lock.LOCK_FILE).write_text(
      f'{{"host": "{os.uname().nodename}", "pid": {dead.pid}}}')
  with run_lock.RunLock(str(tmp_path)):
    pass


def test_a_second_pretraining_run_on_one_model_dir_is_refused(tmp_path):
  with run_lock.RunLock(str(tmp_path / "m")):
    with pytest.raises(errors.ElectraError, match="in use by another run"):
      train_loop.pretrain(tiny_config(), tf.distribute.get_strategy(),
                          str(tmp_path / "m"), ["unused"])


def write_corpus(folder, files, lines_per_file):
  words = [w for w in open(VOCAB).read().split() if w.startswith("tok")]
  rng = random.Random(0)
  os.makedirs(folder, exist_ok=True)
  for index in range(files):
    with open(os.path.join(folder, f"{index}.txt"), "w") as f:
      for line in range(lines_per_file):
        f.write(" ".join(rng.choice(words) for _ in range(12)) + "\n")
        if line % 20 == 19:
          f.write("\n")
  return folder


def build_argv(corpus, out, *extra):
  return ["build", "--input", corpus, "--vocab_file", VOCAB, "--output_dir",
          out, "--max_seq_length", "32", "--num_output_files", "4",
          "--progress_seconds", "0", *extra]


def test_an_empty_corpus_writes_nothing_and_a_rerun_works(tmp_path,
                                                          capsys):
  empty = tmp_path / "empty"
  empty.mkdir()
  (empty / "a.txt").write_text("\n\n   \n")
  out = str(tmp_path / "out")
  assert build_data.main(build_argv(str(empty), out)) == 2
  assert "empty corpus" in capsys.readouterr().err
  assert not os.path.exists(out)  # not even the dir the build created
  good = write_corpus(str(tmp_path / "good"), 1, 60)
  assert build_data.main(build_argv(good, out)) == 0  # no --overwrite needed
  assert len(tfrecords.finished_shards(out)) == 4


def _alive(pid):
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  # A zombie (dead, not yet reaped by init) counts as gone.
  with open(f"/proc/{pid}/stat") as f:
    return f.read().split(")")[-1].split()[0] != "Z"


def test_killing_a_parallel_build_kills_its_workers_and_leaves_no_shards(
    tmp_path):
  corpus = write_corpus(str(tmp_path / "corpus"), 4, 6000)
  out = str(tmp_path / "out")
  process = subprocess.Popen(
      [sys.executable, "-m", "electra_tf.cli.build_data", *build_argv(
          corpus, out, "--num_processes", "2", "--spawn_min_mb", "0",
          "--tokenizer", "python")[1:]],
      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
  deadline = time.time() + 120
  while not any(n.endswith(tfrecords.TEMP_SUFFIX) for n in (
      os.listdir(out) if os.path.isdir(out) else [])):
    assert process.poll() is None and time.time() < deadline
    time.sleep(0.05)
  workers = [int(pid) for pid in subprocess.run(
      ["ps", "-o", "pid=", "--ppid", str(process.pid)],
      capture_output=True, text=True).stdout.split()]
  assert workers
  os.kill(process.pid, signal.SIGKILL)
  process.wait()
  deadline = time.time() + 3  # the jobs alone would run far longer
  while [pid for pid in workers if _alive(pid)]:
    assert time.time() < deadline, [pid for pid in workers if _alive(pid)]
    time.sleep(0.1)
  assert tfrecords.finished_shards(out) == []  # only temporary names
  # The next build takes over the dead run's lock and replaces its files.
  assert build_data.main(build_argv(corpus, out, "--overwrite")) == 0
  assert len(tfrecords.finished_shards(out)) == 4
