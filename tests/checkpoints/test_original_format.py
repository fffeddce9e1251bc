"""TF1-name checkpoints: strict loading, lossless saving, clear errors."""

import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

import electra_tf
from electra_tf.checkpoints import tf1_names
from electra_tf.pretraining import train_loop
from electra_tf.training import checkpointing
from tests.conftest import load_golden


def values(model):
  return {n: v.numpy() for n, v in
          tf1_names.pretrainer_variables(model).items()}


def assert_bit_equal(a, b):
  assert a.keys() == b.keys()
  for name in a:
    np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("root", ["disk", "ram"])
def test_original_names_round_trip_bit_exactly(golden, tmp_path, root):
  model = golden.loaded_pretrainer()
  base = str(tmp_path) if root == "disk" else f"ram://rt-{golden.name}"
  path = electra_tf.save_original_checkpoint(
      model, os.path.join(base, "out", "model.ckpt"), global_step=15)
  assert tf.train.latest_checkpoint(os.path.join(base, "out")) == path
  # Same names and shapes as the original wrote (minus optimizer slots).
  theirs = {n: s for n, s in tf.train.list_variables(golden.init_checkpoint)
            if not n.endswith(("adam_m", "adam_v")) and n != "global_step"}
  reader = tf.compat.v1.train.NewCheckpointReader(path)
  ours = reader.get_variable_to_shape_map()
  assert ours.pop("global_step") == []
  assert reader.get_tensor("global_step") == 15
  assert ours == theirs
  # What a converter reads by name is what we hold.
  np.testing.assert_array_equal(
      reader.get_tensor("electra/embeddings/word_embeddings"),
      model.electra_encoder.embeddings.word_embeddings.numpy())
  fresh = electra_tf.ElectraPretrainer(golden.config)
  electra_tf.load_original_checkpoint(fresh, path)
  assert_bit_equal(values(fresh), values(model))


def test_object_checkpoint_round_trips_bit_exactly(golden, tmp_path):
  model = golden.loaded_pretrainer()
  path = tf.train.Checkpoint(model=model).write(str(tmp_path / "ours"))
  fresh = electra_tf.ElectraPretrainer(golden.config)
  fresh.build()
  tf.train.Checkpoint(model=fresh).read(path).assert_consumed()
  assert_bit_equal(values(fresh), values(model))
  # Tying survives the round trip: one embedding object, as before.
  assert fresh.generator.encoder.embeddings is fresh.electra_encoder.embeddings


def test_checkpoint_of_another_config_names_the_mismatches():
  other = load_golden("tiny_noproj_gen1_mask25_T05_disallow")
  model = electra_tf.ElectraPretrainer(load_golden("tiny_proj").config)
  with pytest.raises(electra_tf.CheckpointError) as info:
    electra_tf.load_original_checkpoint(model, other.init_checkpoint)
  message = str(info.value)
  assert "does not match the model config" in message
  assert ("electra/embeddings/word_embeddings (checkpoint [1500, 48], "
          "model [1500, 32])") in message
  assert "missing: electra/embeddings_project/bias" in message
  assert "\n" not in message


def test_checkpoint_missing_variables_lists_them():
  golden = load_golden("tiny_proj")
  model = electra_tf.ElectraPretrainer(
      golden.config.override(untied_generator_embeddings=True))
  with pytest.raises(electra_tf.CheckpointError,
                     match="missing: generator/embeddings/LayerNorm/beta"):
    electra_tf.load_original_checkpoint(model, golden.init_checkpoint)


def test_truncated_and_absent_checkpoints_are_clear_errors(tmp_path):
  golden = load_golden("tiny_proj")
  copy = tmp_path / "ckpt"
  shutil.copytree(os.path.dirname(golden.init_checkpoint), copy)
  data = copy / "model.ckpt.data-00000-of-00001"
  data.write_bytes(data.read_bytes()[:1000])
  model = electra_tf.ElectraPretrainer(golden.config)
  with pytest.raises(electra_tf.CheckpointError,
                     match=r"cannot read .* from checkpoint .*model.ckpt"):
    electra_tf.load_original_checkpoint(model, str(copy / "model.ckpt"))
  with pytest.raises(electra_tf.CheckpointError,
                     match=r"cannot read checkpoint .*nowhere"):
    electra_tf.load_original_checkpoint(model, str(tmp_path / "nowhere"))


def test_init_from_a_tf1_checkpoint_with_global_step_and_adam_slots():
  """The original's checkpoint after one optimizer step (as a released
  model holds them): weights, global_step and every Adam slot restored."""
  golden = load_golden("tiny_proj")
  path = os.path.join(golden.path, "ckpt_after_step", "model.ckpt")
  model, optimizer, _ = train_loop.build_model_and_optimizer(
      golden.config, tf.distribute.get_strategy(), None)
  origin = checkpointing.RunCheckpoints(
      "ram://tf1_init_run", model, optimizer).restore(init_checkpoint=path)
  assert "global_step 16" in origin and "Adam slots" in origin
  assert int(optimizer.iterations.numpy()) == 16
  assert_bit_equal(values(model), {k: v for k, v in golden.after_step().items()
                                   if k != "global_step"})
  reader = tf.train.load_checkpoint(path)
  table = tf1_names.pretrainer_variables(model)
  nonzero = 0
  for name, variable in table.items():
    m, v = optimizer.slots(variable)
    np.testing.assert_array_equal(m.numpy(), reader.get_tensor(f"{name}/adam_m"))
    np.testing.assert_array_equal(v.numpy(), reader.get_tensor(f"{name}/adam_v"))
    nonzero += bool(np.abs(v.numpy()).max() > 0)
  assert nonzero > len(table) // 2
