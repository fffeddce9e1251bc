"""Where a pretraining step's time goes, phase by phase.

  python benchmarks/step_breakdown.py                 # ELECTRA-Small, 32 x 128
  python benchmarks/step_breakdown.py --modes=float32:xla --steps=4

Times six nested prefixes of our train step, each its own compiled
function ending in a scalar that depends on everything the prefix computed:

  masking      the masking noise (counter hash) and the original's masking
  generator    + the generator's forward pass and MLM loss
  sampling     + the sampling noise (one uniform per vocabulary entry of
               every prediction slot), Gumbel sampling, the replaced input
  discriminator + the discriminator's forward pass and the total loss
  backward     + every gradient and their global norm
  update       + clipping, the AdamW update and the step's metric sums:
               the whole `PretrainStep`, as the training loop runs it

A phase's time is its prefix's median step time minus the previous one's:
the marginal cost of that part in this order (compilers fuse a prefix
differently from the whole step), not its cost alone; a phase within noise
of zero may come out slightly negative. Matmul FLOPs per phase come from
`modeling/sizes.py` (backward: twice the forward); the rate column is FLOPs
over the phase's time, against this CPU's matmul peak for the precision and
execution (XLA's or TensorFlow's oneDNN kernels), measured in the same run.
See benchmarks/README.md.
"""

import time

from absl import app
from absl import flags
import numpy as np
import tensorflow as tf

import cpu_measurements
import pretrain_throughput
from electra_tf import config as config_lib
from electra_tf.data import features as F
from electra_tf.modeling import sizes
from electra_tf.pretraining import losses
from electra_tf.pretraining import masking
from electra_tf.pretraining import sampling
from electra_tf.pretraining import train_loop
from electra_tf.pretraining import train_step
from electra_tf.training import xla_regions

FLAGS = flags.FLAGS  # --preset, --batch_size, --seq_length, --steps,
# --warmup_steps, --threads, --peak_seconds and --replacement_sampling (a
# table each) are pretrain_throughput's.
flags.DEFINE_list("modes", ["float32:xla", "float32:graph",
                            "mixed_bfloat16:xla", "mixed_bfloat16:graph"],
                  "precision:execution pairs, one table each (execution: "
                  "xla; graph, a tf.function without XLA; or "
                  "xla_but_matmuls, XLA for all but the matmuls).")
EXECUTIONS = ("xla", "graph", "xla_but_matmuls")

PHASES = ("masking", "generator", "sampling", "discriminator", "backward",
          "update")


def _consume(tensors):
  """A scalar that depends on every element of `tensors`."""
  return tf.add_n([tf.reduce_sum(tf.cast(t, tf.float32)) for t in tensors])


class Prefixes:
  """The step's nested prefixes on one batch, as callables -> scalar."""

  def __init__(self, config, special_ids, batch):
    self.model, optimizer, loss_scale = train_loop.build_model_and_optimizer(
        config, tf.distribute.get_strategy(), special_ids)
    self.step = train_step.PretrainStep(self.model, optimizer, loss_scale)
    self.config = config
    self.features = {k: tf.constant(v) for k, v in batch.items()}

  def _noise(self):
    ids = self.features[F.INPUT_IDS]
    return self.model.draw_noise(tf.shape(ids)[0], ids.shape[1],
                                 self.config.seed,
                                 self.step.optimizer.iterations)

  def _masked(self, noise):
    return masking.mask_tokens(
        self.features[F.INPUT_IDS], self.features[F.INPUT_MASK],
        self.model.special_ids, self.config.mask_prob,
        self.config.max_predictions_per_seq, noise["position_gumbel"],
        noise["mask_uniform"])

  def _generated(self, noise):
    masked = self._masked(noise)
    gen_out = self.model.generator(
        {F.INPUT_IDS: masked.masked_input_ids,
         F.INPUT_MASK: self.features[F.INPUT_MASK],
         F.SEGMENT_IDS: self.features[F.SEGMENT_IDS]},
        masked.masked_lm_positions, training=True)
    logits = gen_out["mlm_logits"]
    mlm = losses.masked_lm_loss(logits, masked.masked_lm_ids,
                                masked.masked_lm_weights)
    return masked, logits, mlm

  def masking(self):
    masked = self._masked(self._noise())
    return _consume([masked.masked_input_ids, masked.masked_lm_positions,
                     masked.masked_lm_ids, masked.masked_lm_weights])

  def generator(self):
    _, logits, mlm = self._generated(self._noise())
    return mlm.value + 0.0 * tf.reduce_sum(logits)

  def sampling(self):
    noise = self._noise()
    masked, logits, mlm = self._generated(noise)
    sampled = sampling.sample_from_noise(
        logits, masked.masked_lm_ids, self.config.temperature,
        self.config.disallow_correct, noise)
    fake = sampling.replace_tokens(self.features[F.INPUT_IDS],
                                   masked.masked_lm_positions, sampled)
    return mlm.value + _consume([fake.fake_input_ids, fake.is_fake])

  def discriminator(self):
    return self.model(self.features, training=True, seed=self.config.seed,
                      step=self.step.optimizer.iterations)["total_loss"]

  def backward(self):
    grads, loss, _ = self.step.gradients(self.features)
    return loss + tf.linalg.global_norm(grads) * 0.0

  def update(self):
    return self.step(self.features)["loss"]


def phase_flops(config, batch_size):
  """Matmul FLOPs of each phase for one step of `batch_size` sequences."""
  disc = config.discriminator_config
  length = config.max_seq_length
  training = sizes.pretraining_flops_per_sequence(config) * batch_size
  disc_forward = batch_size * (sizes.encoder_forward_flops(disc, length)
                               + 2 * length * (disc.hidden_size ** 2
                                               + disc.hidden_size))
  gen_forward = training / 3 - disc_forward
  return {"generator": gen_forward, "discriminator": disc_forward,
          "backward": 2 * training / 3}


def run_mode(preset, precision, execution, batch, special_ids,
             replacement_sampling=(
                 config_lib.PretrainingConfig.replacement_sampling)):
  """{phase: median seconds of its prefix}, compile seconds."""
  config = config_lib.load_pretraining_config(preset, {
      "precision": precision, "train_batch_size": FLAGS.batch_size,
      "max_seq_length": FLAGS.seq_length,
      "replacement_sampling": replacement_sampling})
  prefixes = Prefixes(config, special_ids, batch)
  if execution == "xla_but_matmuls":
    functions = {name: tf.function(xla_regions.all_but_matmuls(
        getattr(prefixes, name))) for name in PHASES}
  else:
    functions = {name: tf.function(getattr(prefixes, name),
                                   jit_compile=execution == "xla")
                 for name in PHASES}
  compile_seconds = {}
  for name, function in functions.items():
    start = time.perf_counter()
    float(function())
    compile_seconds[name] = time.perf_counter() - start
    for _ in range(FLAGS.warmup_steps):
      float(function())
  times = {name: [] for name in PHASES}
  for _ in range(FLAGS.steps):  # in rounds over the prefixes
    for name, function in functions.items():
      start = time.perf_counter()
      float(function())
      times[name].append(time.perf_counter() - start)
  return config, {n: float(np.median(t)) for n, t in times.items()}, (
      compile_seconds)


def report(precision, execution, config, prefix_seconds, peak):
  flops = phase_flops(config, FLAGS.batch_size)
  total = prefix_seconds[PHASES[-1]]
  lines = [f"\n{precision}, {execution}: full step {total:.3f} s "
           f"(matmul peak {peak / 1e9:.0f} GFLOP/s)",
           "| phase | s/step | share of the step | matmul GFLOP | "
           "GFLOP/s | share of peak |",
           "| --- | --- | --- | --- | --- | --- |"]
  previous = 0.0
  for name in PHASES:
    seconds = prefix_seconds[name] - previous
    previous = prefix_seconds[name]
    gflop = flops.get(name, 0.0) / 1e9
    rate = (f"{gflop / seconds:.0f} | {gflop * 1e9 / seconds / peak:.0%}"
            if gflop and seconds > 0 else "- | -")
    lines.append(f"| {name} | {seconds:.3f} | {seconds / total:.0%} | "
                 f"{gflop:.1f} | {rate} |")
  return "\n".join(lines)


def main(argv):
  del argv
  for mode in FLAGS.modes:
    precision, _, execution = mode.partition(":")
    if (precision not in pretrain_throughput.PRECISIONS
        or execution not in EXECUTIONS):
      raise app.UsageError(
          f"--modes: {mode!r} is not precision:execution with a precision "
          f"of {', '.join(pretrain_throughput.PRECISIONS)} and an execution "
          f"of {', '.join(EXECUTIONS)}")
  threads = pretrain_throughput.configure_threads(FLAGS.threads)
  vocab_size = config_lib.load_pretraining_config(FLAGS.preset).vocab_size
  special_ids, word_ids = pretrain_throughput.vocab_ids(None, vocab_size)
  batch = pretrain_throughput.make_batch(FLAGS.batch_size, FLAGS.seq_length,
                                         special_ids, word_ids)
  print(f"{cpu_measurements.cpu_name()}, {threads} threads, TF "
        f"{tf.__version__}; {FLAGS.preset}, batch {FLAGS.batch_size} x "
        f"{FLAGS.seq_length}")
  peaks = {}
  for mode in FLAGS.modes:
    precision, execution = mode.split(":")
    dtype = "bfloat16" if precision == "mixed_bfloat16" else "float32"
    if dtype not in peaks:
      peaks[dtype] = cpu_measurements.matmul_peaks(dtype, FLAGS.peak_seconds)
    peak = peaks[dtype]["TF/XLA" if execution == "xla" else "TF/oneDNN"]
    for sampler in FLAGS.replacement_sampling:
      config, seconds, compiled = run_mode(FLAGS.preset, precision,
                                           execution, batch, special_ids,
                                           sampler)
      print(report(precision,
                   pretrain_throughput.with_sampler(execution, sampler),
                   config, seconds, peak))
      print("compile s: " + ", ".join(f"{n} {s:.0f}"
                                      for n, s in compiled.items()))


if __name__ == "__main__":
  app.run(main)
