"""Output locations: one-line errors, whole files only, no leftovers."""

import os

import pytest
import tensorflow as tf

from electra_tf import errors
from electra_tf import output_files
from electra_tf import run_lock
from electra_tf.cli import build_data
from electra_tf.cli import build_vocab
from electra_tf.pretraining import train_loop
from electra_tf.serving import export
from tests.test_run_lock import build_argv
from tests.test_run_lock import write_corpus
from tests.training.conftest import shards  # noqa: F401 (fixture)
from tests.training.conftest import tiny_config


@pytest.fixture
def under_a_file(tmp_path):
  """An output location whose parent is a regular file."""
  (tmp_path / "a_file").write_text("not a directory")
  return str(tmp_path / "a_file" / "out")


def _sys_is_read_only():
  try:
    os.mkdir("/sys/electra_probe")
  except OSError:
    return True
  os.rmdir("/sys/electra_probe")
  return False


def _unwritable_locations(tmp_path_factory):
  """A path under a regular file; also /sys where even root cannot write."""
  base = tmp_path_factory.mktemp("unwritable")
  (base / "a_file").write_text("not a directory")
  locations = [str(base / "a_file" / "out")]
  if os.path.isdir("/sys") and _sys_is_read_only():
    locations.append("/sys/electra_out")
  return locations


def test_make_dir_names_the_path(under_a_file):
  with pytest.raises(errors.ConfigError) as error:
    output_files.make_dir(under_a_file)
  assert str(error.value).startswith(f"cannot create {under_a_file}: ")
  assert "\n" not in str(error.value)


def test_a_failed_write_leaves_neither_the_file_nor_its_temporary(
    tmp_path, monkeypatch):
  target = tmp_path / "vocab.txt"
  output_files.write_atomically(str(target), "old\n")

  def failing_rename(*args, **kwargs):
    raise tf.errors.PermissionDeniedError(None, None, "read-only")

  monkeypatch.setattr(tf.io.gfile, "rename", failing_rename)
  with pytest.raises(errors.ConfigError, match=f"cannot write {target}: "):
    output_files.write_atomically(str(target), "new\n")
  assert target.read_text() == "old\n"
  assert os.listdir(tmp_path) == ["vocab.txt"]


def test_leftovers_are_removed_and_nothing_else(tmp_path):
  (tmp_path / "ckpt-4_temp").mkdir()
  (tmp_path / "ckpt-4_temp" / "part-00000-of-00001.index").write_text("")
  (tmp_path / "config.json.tmp").write_text("{")
  (tmp_path / "checkpoint.tmp5a8e1c").write_text("")
  kept = ["ckpt-2.index", "ckpt-2.data-00000-of-00001", "checkpoint",
          "config.json"]
  for name in kept:
    (tmp_path / name).write_text("")
  removed = output_files.remove_leftovers(str(tmp_path), (
      output_files.CHECKPOINT_STAGING, output_files.TEMP_FILES))
  assert removed == ["checkpoint.tmp5a8e1c", "ckpt-4_temp", "config.json.tmp"]
  assert sorted(os.listdir(tmp_path)) == sorted(kept)


@pytest.mark.parametrize("tool", ["build_vocab", "build_data"])
def test_the_builders_refuse_an_unwritable_output_in_one_line(
    tool, tmp_path, tmp_path_factory, capsys):
  corpus = write_corpus(str(tmp_path / "corpus"), 1, 40)
  for location in _unwritable_locations(tmp_path_factory):
    if tool == "build_vocab":
      code = build_vocab.main(["build_vocab", "--input", corpus, "--output",
                               os.path.join(location, "vocab.txt"),
                               "--vocab_size", "200"])
    else:
      code = build_data.main(build_argv(corpus, location))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert "Traceback" not in "\n".join(err)
    assert f"error: cannot create {location}" in err[-1], err[-1]


def test_pretraining_refuses_an_unwritable_model_dir(
    under_a_file, shards):  # noqa: F811
  with pytest.raises(errors.ConfigError,
                     match=f"cannot create {under_a_file}: "):
    train_loop.pretrain(tiny_config(), tf.distribute.get_strategy(),
                        under_a_file, shards)


def test_pretraining_removes_what_a_killed_run_left(
    tmp_path, shards):  # noqa: F811
  model_dir = tmp_path / "m"
  (model_dir / "ckpt-2_temp").mkdir(parents=True)
  (model_dir / "ckpt-2_temp" / "part-00000-of-00001.data-00000-of-00001"
   ).write_text("")
  (model_dir / "config.json.tmp").write_text("{")
  result = train_loop.pretrain(tiny_config(num_train_steps=2),
                               tf.distribute.get_strategy(), str(model_dir),
                               shards)
  assert result.step == 2
  names = os.listdir(model_dir)
  assert not [n for n in names if "_temp" in n or ".tmp" in n], names
  assert "config.json" in names


class _Constant(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
  def serve(self, x):
    return {"y": x + 1.0}


def _export(export_dir):
  module = _Constant()
  return export.write_saved_model(module, export_dir,
                                  {"serving_default": module.serve}, {})


def test_an_export_refuses_an_unwritable_dir(under_a_file):
  with pytest.raises(errors.ConfigError,
                     match=f"cannot create {under_a_file}: "):
    _export(under_a_file)


def test_an_export_removes_killed_staging_and_refuses_a_concurrent_one(
    tmp_path):
  root = tmp_path / "exports"
  (root / ".tmp-1-0123abcd" / "variables").mkdir(parents=True)
  assert _export(str(root)) == str(root / "1")
  assert sorted(os.listdir(root)) == ["1"]
  with run_lock.RunLock(str(root), "export"):
    with pytest.raises(run_lock.RunLockError,
                       match="in use by another export"):
      _export(str(root))
  assert sorted(os.listdir(root)) == ["1"]
