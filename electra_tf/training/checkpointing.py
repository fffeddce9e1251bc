"""Checkpoints of a pretraining run, and the order a run resumes in.

Where a run starts from, in order:
  1. the latest checkpoint in the model dir (a resumed or pre-empted run);
  2. `init_checkpoint`: a TF1 checkpoint with the original names (e.g. a
     released ELECTRA model; weights, and when present `global_step` and the
     Adam slots) or one of ours;
  3. fresh initialisation.
The model dir also holds `config.json`; a run whose model differs from the
one saved there stops before anything is overwritten.
"""

import os
import tempfile

import tensorflow as tf
from absl import logging

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf import output_files
from electra_tf.checkpoints import intact
from electra_tf.checkpoints import object_format
from electra_tf.checkpoints import original_format
from electra_tf.checkpoints import run_records
from electra_tf.checkpoints import tf1_names

CONFIG_FILE = "config.json"
CHECKPOINT_PREFIX = "ckpt"
# The `ElectraPretrainer` attributes an init checkpoint may or may not hold.
MODEL_PARTS = ("generator", "discriminator", "main_mlm_head")
# Hparams that change the model's variables: a model dir is tied to them.
ARCHITECTURE_KEYS = config_lib.ENCODER_KEYS + (
    "objective", "uniform_generator", "untied_generator",
    "untied_generator_embeddings", "generator_layers", "generator_hidden_size")


def check_config(model_dir, config):
  """Refuses a model dir whose recorded config is of another model."""
  run_records.refuse_other_model(model_dir, CONFIG_FILE, config.to_dict(),
                                 ARCHITECTURE_KEYS)


def record_config(model_dir, config):
  """Writes the config next to the checkpoints (after they restored)."""
  output_files.write_atomically(os.path.join(model_dir, CONFIG_FILE),
                                config.to_json() + "\n")


def check_and_record_config(model_dir, config):
  """`check_config`, then `record_config`."""
  check_config(model_dir, config)
  record_config(model_dir, config)


def dropout_states(model):
  """The dropout layers' seed states: saved so a resumed run is identical."""
  return [v for v in model.non_trainable_variables
          if "seed_generator_state" in v.path]


class RunCheckpoints:
  """A `tf.train.CheckpointManager` over model, optimizer and seed states.

  With several workers only the chief (`is_chief`) writes into `model_dir`;
  the others restore from it, and save (saving may need every worker) into
  a local scratch dir of their own that is deleted right after.
  """

  def __init__(self, model_dir, model, optimizer, keep=5, every_steps=1000,
               loss_scale=None, is_chief=True):
    self.model_dir = model_dir
    self.is_chief = is_chief
    self.model = model
    self.optimizer = optimizer
    items = dict(model=model, optimizer=optimizer,
                 dropout_states=dropout_states(model))
    if loss_scale is not None:
      items["loss_scale"] = loss_scale
    self.checkpoint = tf.train.Checkpoint(**items)
    self.every_steps = every_steps
    self._saved_step = None
    self.manager = tf.train.CheckpointManager(
        self.checkpoint, model_dir, max_to_keep=keep,
        checkpoint_name=CHECKPOINT_PREFIX, step_counter=optimizer.iterations)

  @property
  def latest(self):
    if self.is_chief:
      return self.manager.latest_checkpoint
    return tf.train.latest_checkpoint(self.model_dir)

  def restore(self, init_checkpoint=None):
    """Restores per the resume order above; returns a description."""
    if self.latest:
      try:
        return self._resume_from(self.latest)
      except errors.CheckpointError:
        if intact.damage(self.latest) is None:
          raise  # readable, but not of this model
        # A damaged newest checkpoint: resume from the newest intact one.
        return self._resume_from(intact.newest_intact(self.model_dir))
    if init_checkpoint:
      return self._initialize_from(init_checkpoint)
    return "initialised from scratch"

  def _resume_from(self, prefix):
    object_format.read_strictly(self.checkpoint, prefix,
                                f"cannot restore {prefix} into this model")
    return f"resumed from {prefix}"

  def _initialize_from(self, path):
    if tf.io.gfile.isdir(path) and tf.train.latest_checkpoint(path):
      path = tf.train.latest_checkpoint(path)
    if object_format.is_object_checkpoint(path):
      return self._initialize_from_object_checkpoint(path)
    names = original_format.load_original_checkpoint(self.model, path)
    reader = original_format.open_reader(path)
    shapes = reader.get_variable_to_shape_map()
    restored = [f"{len(names)} weights"]
    if "global_step" in shapes:
      self.optimizer.iterations.assign(int(reader.get_tensor("global_step")))
      restored.append(f"global_step {int(self.optimizer.iterations.numpy())}")
    table = tf1_names.pretrainer_variables(self.model)
    if all(f"{n}/adam_m" in shapes and f"{n}/adam_v" in shapes
           for n in table):
      for name, variable in table.items():
        m, v = self.optimizer.slots(variable)
        m.assign(reader.get_tensor(f"{name}/adam_m"))
        v.assign(reader.get_tensor(f"{name}/adam_v"))
      restored.append("Adam slots")
    logging.info("init checkpoint %s: restored %s", path, ", ".join(restored))
    return f"initialised from {path} ({', '.join(restored)})"

  def _initialize_from_object_checkpoint(self, path):
    """Weights of one of our checkpoints: the encoder must be all there;
    the other parts are restored where the checkpoint has them in the same
    shapes, and the rest (named in the log) start fresh."""
    object_format.read_model_parts(
        path, f"init checkpoint {path} holds no encoder of this model config",
        electra_encoder=self.model.electra_encoder)
    fresh = []
    for name in MODEL_PARTS:
      if getattr(self.model, name, None) is None:
        continue
      try:
        object_format.read_model_parts(path, name,
                                       **{name: getattr(self.model, name)})
      except errors.CheckpointError:
        fresh.append(name)
    if fresh:
      logging.warning("init checkpoint %s has no %s of this model: "
                      "initialised fresh", path, ", ".join(fresh))
    return (f"initialised from {path} (weights"
            + (f"; fresh: {', '.join(fresh)})" if fresh else ")"))

  def save(self, force=False):
    """Saves at every multiple of `every_steps` (as the original: a resumed
    run keeps the same checkpoint steps), or when `force`d; returns the
    path, or None when nothing was due."""
    step = int(self.optimizer.iterations.numpy())
    if step == self._saved_step:
      return self.latest  # saved by this run already
    if not force and step % self.every_steps:
      return None
    self._saved_step = step
    if self.is_chief:
      return self.manager.save(checkpoint_number=step)
    scratch = tempfile.mkdtemp(prefix="electra-worker-checkpoint-")
    try:
      self.checkpoint.write(os.path.join(scratch, CHECKPOINT_PREFIX))
    finally:
      tf.io.gfile.rmtree(scratch)
    return self.latest
