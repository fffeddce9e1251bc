"""The pretraining loop: XLA, replicas, resume, gfile paths, bad input."""

import json
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

import electra_tf
from electra_tf import errors
from electra_tf.checkpoints import object_format
from electra_tf.checkpoints import tf1_names
from electra_tf.data import pretrain_pipeline
from electra_tf.pretraining import train_loop
from electra_tf.pretraining import train_step
from electra_tf.training import checkpointing
from electra_tf.training import host_loop
from electra_tf.training import optimization
from tests.training.conftest import ONE_LAYER
from tests.training.conftest import tiny_config
from tests.training.conftest import write_records


def weights(model):
  return {n: v.numpy() for n, v in
          tf1_names.pretrainer_variables(model).items()}


@pytest.fixture(scope="module")
def module_shards(tmp_path_factory):
  """The `shards` data, written once for the runs this module shares."""
  folder = tmp_path_factory.mktemp("shards")
  return [write_records(str(folder / f"data.tfrecord-{i}"), 40, seed=i)
          for i in range(2)]


@pytest.fixture(scope="module")
def finished_run(module_shards, tmp_path_factory):
  """A 6-step run (checkpoints at 2, 4, 6) the tests below copy or read."""
  model_dir = str(tmp_path_factory.mktemp("finished") / "run")
  config = tiny_config(num_train_steps=6)  # dropout on: its seeds resume too
  result = train_loop.pretrain(config, tf.distribute.get_strategy(),
                               model_dir, module_shards)
  assert result.step == 6 and result.checkpoint.endswith("ckpt-6")
  return model_dir


def copy_of(run_dir, tmp_path):
  """A copy of a shared run's directory to change in one test."""
  return shutil.copytree(run_dir, str(tmp_path / "m"))


def final_weights(model_dir, config):
  model = electra_tf.ElectraPretrainer(config)
  model.build()
  latest = tf.train.latest_checkpoint(model_dir)
  tf.train.Checkpoint(model=model).read(latest).expect_partial()
  return weights(model)


def test_full_train_step_compiles_with_xla(shards):
  config = tiny_config(model_hparam_overrides=ONE_LAYER)
  model, optimizer, _ = train_loop.build_model_and_optimizer(
      config, tf.distribute.get_strategy(), None)
  step = train_step.PretrainStep(model, optimizer)
  compiled = tf.function(lambda f: step(f, training=True), jit_compile=True)
  features = next(iter(pretrain_pipeline.pretraining_dataset(
      shards, config.train_batch_size, config.max_seq_length)))
  hlo = compiled.experimental_get_compiler_ir(features)(stage="hlo")
  assert "dot(" in hlo and "scatter" in hlo
  before = optimizer.iterations.numpy()
  sums = compiled(features)
  assert optimizer.iterations.numpy() == before + 1
  assert np.isfinite(sums["loss"].numpy())


# With the default dropout (0.1): each example's masks depend on its
# global index, not on where it sits in its replica's batch.
MIRRORED = {"num_train_steps": 3, "iterations_per_loop": 3,
            "save_checkpoints_steps": 3, "model_hparam_overrides": ONE_LAYER}


@pytest.fixture(scope="module")
def one_device_run(module_shards, tmp_path_factory):
  model_dir = str(tmp_path_factory.mktemp("one_device") / "one")
  result = train_loop.pretrain(tiny_config(**MIRRORED),
                               tf.distribute.get_strategy(), model_dir,
                               module_shards)
  return model_dir, result


@pytest.mark.parametrize("replicas", [2, 4])
def test_mirrored_replicas_match_one_device(module_shards, one_device_run,
                                            tmp_path, replicas):
  config = tiny_config(**MIRRORED)
  one_dir, one = one_device_run
  devices = [f"/cpu:{i}" for i in range(replicas)]
  # One process cannot host collective groups of two sizes; reduce through
  # one device instead (the math is the same).
  strategy = tf.distribute.MirroredStrategy(
      devices, cross_device_ops=tf.distribute.ReductionToOneDevice())
  many = train_loop.pretrain(config, strategy,
                             str(tmp_path / "many"), module_shards)
  assert many.step == one.step == 3
  np.testing.assert_allclose(many.metrics["total_loss"],
                             one.metrics["total_loss"], rtol=0, atol=1e-5)
  a = final_weights(one_dir, config)
  b = final_weights(str(tmp_path / "many"), config)
  for name in a:
    np.testing.assert_allclose(b[name], a[name], rtol=0, atol=1e-5,
                               err_msg=name)


def test_resumed_run_equals_an_uninterrupted_one(module_shards, finished_run,
                                                 tmp_path):
  config = tiny_config(num_train_steps=6)
  # max_seconds=0 stops (and saves) after the first host loop, like a
  # pre-emption; the rerun continues.
  first = train_loop.pretrain(config, tf.distribute.get_strategy(),
                              str(tmp_path / "split"), module_shards,
                              max_seconds=0)
  assert first.stopped_early and first.checkpoint.endswith("ckpt-2")
  second = train_loop.pretrain(config, tf.distribute.get_strategy(),
                               str(tmp_path / "split"), module_shards)
  assert second.step == 6
  a = final_weights(finished_run, config)
  b = final_weights(str(tmp_path / "split"), config)
  for name in a:
    np.testing.assert_array_equal(b[name], a[name], err_msg=name)


def test_everything_through_gfile_on_ram_paths(shards):
  data = "ram://loop-data"
  tf.io.gfile.makedirs(data)
  for i, path in enumerate(shards):
    tf.io.gfile.copy(path, f"{data}/part-{i}.tfrecord", overwrite=True)
  model_dir = "ram://loop-model"
  config = tiny_config(num_train_steps=2, jit_compile=True,
                       model_hparam_overrides=ONE_LAYER,
                       results_txt=f"{model_dir}/results/unsup_results.txt")
  strategy = tf.distribute.get_strategy()
  files = pretrain_pipeline.match_shards(f"{data}/*.tfrecord")
  result = train_loop.pretrain(config, strategy, model_dir, files)
  assert result.checkpoint == f"{model_dir}/ckpt-2"
  metrics = train_loop.evaluate(config, strategy, model_dir, files, num_steps=2)
  assert 0.0 <= metrics["disc_accuracy"] <= 1.0
  assert tf.io.gfile.exists(f"{model_dir}/config.json")
  assert tf.io.gfile.glob(f"{model_dir}/train/events.out.tfevents*")
  with tf.io.gfile.GFile(config.results_txt) as f:
    assert "disc_auc" in f.read()


def test_nan_loss_stops_and_names_the_last_good_checkpoint(
    module_shards, finished_run, tmp_path):
  model_dir = copy_of(finished_run, tmp_path)
  poisoned = tiny_config(num_train_steps=8, gen_weight=float("nan"))
  with pytest.raises(host_loop.TrainingError,
                     match=r"non-finite loss in steps 7-8; stopped without "
                           r"saving \(last good checkpoint: .*ckpt-6\)"):
    train_loop.pretrain(poisoned, tf.distribute.get_strategy(), model_dir,
                        module_shards)
  assert tf.train.latest_checkpoint(model_dir).endswith("ckpt-6")


def test_model_dir_of_another_config_is_refused_untouched(
    module_shards, finished_run, tmp_path):
  model_dir = copy_of(finished_run, tmp_path)
  before = {p: os.path.getmtime(os.path.join(model_dir, p))
            for p in os.listdir(model_dir) if not os.path.isdir(
                os.path.join(model_dir, p))}
  other = tiny_config(num_train_steps=8, embedding_size=32)
  with pytest.raises(electra_tf.ConfigError,
                     match="holds a run of another model config "
                           r"\(embedding_size: 16 in the model dir, 32 now\)"):
    train_loop.pretrain(other, tf.distribute.get_strategy(), model_dir,
                        module_shards)
  after = {p: os.path.getmtime(os.path.join(model_dir, p)) for p in before}
  assert after == before
  with open(os.path.join(model_dir, "config.json")) as f:
    assert json.load(f)["embedding_size"] == 16
  # Without its config.json, the refusal comes from the restore, and the
  # refused config is not recorded: the right one still resumes after.
  os.remove(os.path.join(model_dir, "config.json"))
  with pytest.raises(electra_tf.CheckpointError, match="cannot restore"):
    train_loop.pretrain(other, tf.distribute.get_strategy(), model_dir,
                        module_shards)
  assert not os.path.exists(os.path.join(model_dir, "config.json"))
  result = train_loop.pretrain(tiny_config(num_train_steps=8),
                               tf.distribute.get_strategy(), model_dir,
                               module_shards)
  assert result.step == 8


def test_bad_shards_are_named(tmp_path):
  config = tiny_config(num_train_steps=2)
  strategy = tf.distribute.get_strategy()
  short = write_records(str(tmp_path / "short.tfrecord"), 10, seq_length=8)
  with pytest.raises(electra_tf.DataError,
                     match=r"short.tfrecord: feature 'input_ids' has length 8,"
                           r" but max_seq_length is 16"):
    train_loop.pretrain(config, strategy, str(tmp_path / "m1"), [short])
  with pytest.raises(electra_tf.DataError, match="no TFRecord files match"):
    pretrain_pipeline.match_shards(str(tmp_path / "nothing-*.tfrecord"))
  good = write_records(str(tmp_path / "good.tfrecord"), 200)
  data = bytearray(open(good, "rb").read())
  data[len(data) // 2:len(data) // 2 + 64] = b"\xff" * 64
  corrupt = tmp_path / "corrupt.tfrecord"
  corrupt.write_bytes(bytes(data))
  with pytest.raises(host_loop.TrainingError, match="unreadable training data"):
    train_loop.pretrain(config.override(num_train_steps=40), strategy,
                        str(tmp_path / "m2"), [str(corrupt)])


def test_schedule_warmup_then_linear_decay():
  lr = [float(optimization.learning_rate_at(s, 1.0, 10, 4)) for s in
        (0, 2, 4, 5, 10, 12)]
  np.testing.assert_allclose(lr, [0.0, 0.4, 0.6, 0.5, 0.0, 0.0], atol=1e-7)


def test_init_checkpoint_must_hold_the_encoder(finished_run, tmp_path):
  config = tiny_config(num_train_steps=2)
  source = finished_run
  # Same encoder, another objective: loads, names what starts fresh.
  mlm = tiny_config(num_train_steps=2, objective="mlm")
  model, optimizer, _ = train_loop.build_model_and_optimizer(
      mlm, tf.distribute.get_strategy(), None)
  checkpoints = checkpointing.RunCheckpoints(str(tmp_path / "mlm"), model,
                                             optimizer)
  assert "initialised from" in checkpoints.restore(source)
  # An unrelated checkpoint (no encoder) is refused, not silently skipped.
  other = str(tmp_path / "other")
  tf.train.Checkpoint(model=tf.train.Checkpoint(
      dense=tf.Variable([1.0]))).save(other)
  model, optimizer, _ = train_loop.build_model_and_optimizer(
      config, tf.distribute.get_strategy(), None)
  checkpoints = checkpointing.RunCheckpoints(str(tmp_path / "x"), model,
                                             optimizer)
  with pytest.raises(errors.CheckpointError,
                     match="holds no encoder of this model config"):
    checkpoints.restore(other + "-1")


def test_a_damaged_newest_checkpoint_falls_back_to_an_intact_one(
    module_shards, finished_run, tmp_path):
  model_dir = copy_of(finished_run, tmp_path)
  data = tf.io.gfile.glob(os.path.join(model_dir, "ckpt-6.data-*"))[0]
  with open(data, "r+b") as f:
    f.truncate(os.path.getsize(data) // 2)
  result = train_loop.pretrain(tiny_config(num_train_steps=8),
                               tf.distribute.get_strategy(), model_dir,
                               module_shards)
  assert result.step == 8  # resumed at step 4, trained on to 8
  # Export (and finetuning's init) pick the newest intact checkpoint too.
  newest = tf.io.gfile.glob(os.path.join(model_dir, "ckpt-8.data-*"))[0]
  with open(newest, "r+b") as f:
    f.truncate(10)
  assert object_format.resolve(model_dir).endswith("ckpt-6")


def test_a_resumed_run_saves_at_the_same_steps(module_shards, finished_run,
                                               tmp_path):
  """Checkpoints fall on multiples of save_checkpoints_steps whatever step
  a run was resumed from (the study finetunes them by step number)."""
  model_dir = copy_of(finished_run, tmp_path)  # at step 6
  config = tiny_config(num_train_steps=12, save_checkpoints_steps=4,
                       keep_checkpoint_max=10)
  train_loop.pretrain(config, tf.distribute.get_strategy(), model_dir,
                      module_shards)
  saved = sorted(int(name[len("ckpt-"):-len(".index")])
                 for name in os.listdir(model_dir)
                 if name.startswith("ckpt-") and name.endswith(".index"))
  assert saved == [2, 4, 6, 8, 12]


def test_grappler_optimised_step_equals_the_plain_one(shards):
  """The suite runs plain graphs (conftest.py); a train step optimised by
  grappler, as in every real run, computes the same."""
  config = tiny_config(model_hparam_overrides=ONE_LAYER)
  features = next(iter(pretrain_pipeline.pretraining_dataset(
      shards, config.train_batch_size, config.max_seq_length)))
  results = []
  for optimise in (True, False):
    tf.config.optimizer.set_experimental_options(
        {"disable_meta_optimizer": not optimise})
    try:
      model, optimizer, _ = train_loop.build_model_and_optimizer(
          config, tf.distribute.get_strategy(), None)
      step = train_step.PretrainStep(model, optimizer)
      sums = tf.function(lambda f: step(f, training=True))(features)
      results.append((sums["loss"].numpy(), weights(model)))
    finally:
      tf.config.optimizer.set_experimental_options(
          {"disable_meta_optimizer": True})
  (loss_a, weights_a), (loss_b, weights_b) = results
  np.testing.assert_allclose(loss_a, loss_b, rtol=1e-5)
  for name in weights_a:
    np.testing.assert_allclose(weights_a[name], weights_b[name], rtol=0,
                               atol=1e-5, err_msg=name)
