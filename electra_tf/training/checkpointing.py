"""Checkpoints of a pretraining run, and the order a run resumes in.

Where a run starts from, in order:
  1. the latest checkpoint in the model dir (a resumed or pre-empted run),
     or in its `resume/` subdir when that one is newer;
  2. `init_checkpoint`: a TF1 checkpoint with the original names (e.g. a
     released ELECTRA model; weights, and when present `global_step` and the
     Adam slots) or one of ours;
  3. fresh initialisation.
The model dir also holds `config.json`; a run whose model differs from the
one saved there stops before anything is overwritten.

Checkpoints fall on multiples of `save_checkpoints_steps` (as the
original's), so a run killed without warning (no SIGTERM: the machine went
away, the process was killed) would lose up to that many steps. Between
them a run also writes a resume checkpoint into `resume/` whenever
`resume_every_seconds` have passed since its last save: only the newest is
kept, it serves only to resume, and it is deleted once a regular
checkpoint is as new. `evaluate` reads the newest of either; export and
finetuning (`init_checkpoint`) read the regular checkpoints only.
"""

import os
import tempfile
import time

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
from electra_tf.training import distribute

CONFIG_FILE = "config.json"
CHECKPOINT_PREFIX = "ckpt"
RESUME_DIR = "resume"
# A killed run loses at most about this much work (and one save per
# interval costs little: ELECTRA-Base with its Adam slots is ~1.3 GB).
DEFAULT_RESUME_EVERY_SECONDS = 600.0
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
  """A `tf.train.CheckpointManager` over model, optimizer and seed states,
  and one for the resume checkpoints (see the module docstring).

  With several workers only the chief (`is_chief`) writes into `model_dir`;
  the others restore from it, and save (saving may need every worker) into
  a local scratch dir of their own that is deleted right after. Resume
  checkpoints are timed by each process's clock, so runs of several workers
  must pass `resume_every_seconds=None` (their workers must save together).
  """

  def __init__(self, model_dir, model, optimizer, keep=5, every_steps=1000,
               loss_scale=None, is_chief=True,
               resume_every_seconds=DEFAULT_RESUME_EVERY_SECONDS,
               clock=time.monotonic):
    self.model_dir = model_dir
    self.resume_dir = os.path.join(model_dir, RESUME_DIR)
    self.is_chief = is_chief
    self.model = model
    self.optimizer = optimizer
    items = dict(model=model, optimizer=optimizer,
                 dropout_states=dropout_states(model))
    if loss_scale is not None:
      items["loss_scale"] = loss_scale
    self.checkpoint = tf.train.Checkpoint(**items)
    self.every_steps = every_steps
    self.resume_every_seconds = resume_every_seconds
    self._clock = clock
    self._last_save_time = clock()
    self._saved_step = None
    self._resume_step = None
    self.manager = tf.train.CheckpointManager(
        self.checkpoint, model_dir, max_to_keep=keep,
        checkpoint_name=CHECKPOINT_PREFIX, step_counter=optimizer.iterations)
    self.resume_manager = self._resume_manager()

  def _resume_manager(self):
    return tf.train.CheckpointManager(
        self.checkpoint, self.resume_dir, max_to_keep=1,
        checkpoint_name=CHECKPOINT_PREFIX,
        step_counter=self.optimizer.iterations)

  @property
  def latest_regular(self):
    """The newest checkpoint on the `every_steps` grid (or forced)."""
    if self.is_chief:
      return self.manager.latest_checkpoint
    return tf.train.latest_checkpoint(self.model_dir)

  @property
  def latest(self):
    """The checkpoint a rerun resumes from: the newer of the regular one
    and the resume one."""
    regular = self.latest_regular
    resume = self._newer_resume_checkpoint(regular)
    return resume or regular

  def _newer_resume_checkpoint(self, regular):
    resume = (self.resume_manager.latest_checkpoint if self.is_chief
              else tf.train.latest_checkpoint(self.resume_dir))
    if resume and (regular is None or step_of(resume) > step_of(regular)):
      return resume
    return None

  def restore(self, init_checkpoint=None):
    """Restores per the resume order above; returns a description."""
    regular = self.latest_regular
    resume = self._newer_resume_checkpoint(regular)
    if resume:
      try:
        return self._resume_from(resume)
      except errors.CheckpointError:
        problem = intact.damage(resume)
        if problem is None:
          raise  # readable, but not of this model
        logging.warning("resume checkpoint %s is damaged (%s); using the "
                        "regular checkpoints", resume, problem)
    if regular:
      try:
        return self._resume_from(regular)
      except errors.CheckpointError:
        if intact.damage(regular) is None:
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
    run keeps the same checkpoint steps), or when `force`d; else a resume
    checkpoint when `resume_every_seconds` have passed since the last save.
    Returns the path, or None when nothing was due."""
    step = int(self.optimizer.iterations.numpy())
    if step == self._saved_step:
      return self.latest_regular  # saved by this run already
    if not force and step % self.every_steps:
      return self._save_resume_if_due(step)
    self._saved_step = step
    self._last_save_time = self._clock()
    if not self.is_chief:
      self._write_scratch()
      return self.latest_regular
    path = self.manager.save(checkpoint_number=step)
    if tf.io.gfile.exists(self.resume_dir):
      tf.io.gfile.rmtree(self.resume_dir)  # superseded
      self.resume_manager = self._resume_manager()
      self._resume_step = None
    return path

  def _save_resume_if_due(self, step):
    if (self.resume_every_seconds is None or step == self._resume_step
        or self._clock() - self._last_save_time < self.resume_every_seconds):
      return None
    self._resume_step = step
    self._last_save_time = self._clock()
    if not self.is_chief:
      self._write_scratch()
      return self.latest
    return self.resume_manager.save(checkpoint_number=step)

  def _write_scratch(self):
    scratch = tempfile.mkdtemp(prefix="electra-worker-checkpoint-")
    try:
      self.checkpoint.write(os.path.join(scratch, CHECKPOINT_PREFIX))
    finally:
      tf.io.gfile.rmtree(scratch)


def for_run(strategy, model_dir, model, optimizer, keep, every_steps,
            loss_scale=None):
  """The `RunCheckpoints` of a training run under `strategy`: the chief
  writes, and resume checkpoints are written when one process runs all."""
  return RunCheckpoints(
      model_dir, model, optimizer, keep=keep, every_steps=every_steps,
      loss_scale=loss_scale, is_chief=distribute.is_chief(strategy),
      resume_every_seconds=(DEFAULT_RESUME_EVERY_SECONDS
                            if distribute.single_process(strategy) else None))


def step_of(prefix):
  """The step number of checkpoint `prefix` (`.../ckpt-<step>`)."""
  return int(prefix.rsplit("-", 1)[1])
