"""Pretraining throughput and model-FLOPs utilisation on this machine.

  python benchmarks/pretrain_throughput.py            # ELECTRA-Small, 32 x 128
  python benchmarks/pretrain_throughput.py --precision=mixed_bfloat16
  python benchmarks/pretrain_throughput.py --precision=float32,mixed_bfloat16
  python benchmarks/pretrain_throughput.py --seq_length=512 --batch_size=8 \
      --peak_memory

Measures in one run: the matmul peak of this CPU, our full train step
(`PretrainStep`: masking, generator, sampling, discriminator, AdamW update;
XLA-compiled as the training loop runs it) and, when `torch` and
`transformers` are installed, the same step in Hugging Face transformers
(eager, and under `torch.compile` unless --notorch_compile). Prints
sequences/s, model FLOP/s and MFU = model FLOP/s / matmul peak for each, and
the speed ratio to the PyTorch eager step of the same precision; with several
precisions, every row of every precision is timed in the same rounds. See
benchmarks/README.md.

Both frameworks get the same threads, batch, noise shapes and FLOP count
(`sizes.pretraining_flops_per_sequence`: matmuls only, 3x the forward).
Compilation and warmup steps are excluded; a step is timed until its loss is
on the host; the reported time is the median over timed steps, which are
split into rounds that alternate between the frameworks so a change in
background load hits all of them alike. With --peak_memory each row first
runs in a fresh process, before this one builds any row, and its peak
resident memory over a few steps after warmup is reported beside the memory
of the imports alone.
"""

import functools
from importlib import metadata
import json
import os
import subprocess
import sys
import time

from absl import app
from absl import flags
import numpy as np
import tensorflow as tf

import cpu_measurements
from electra_tf import config as config_lib
from electra_tf import tokenization
from electra_tf.modeling import sizes
from electra_tf.pretraining import train_loop
from electra_tf.pretraining import train_step
from electra_tf.tokenization import special_tokens
from electra_tf.training import xla_regions

FLAGS = flags.FLAGS
flags.DEFINE_string("preset", "electra_small", "Pretraining preset.")
flags.DEFINE_integer("batch_size", 32, "Sequences per step.")
flags.DEFINE_integer("seq_length", 128, "Tokens per sequence.")
flags.DEFINE_integer("steps", 12, "Timed steps per implementation.")
flags.DEFINE_integer("warmup_steps", 3, "Untimed steps after compilation.")
flags.DEFINE_integer("rounds", 3, "Timed steps are split into this many "
                     "rounds, alternating between implementations.")
PRECISIONS = ("float32", "mixed_bfloat16")
flags.DEFINE_list("precision", ["float32"], "Compute precisions, a table "
                  f"each, timed in one run: {', '.join(PRECISIONS)} "
                  "(variables stay float32).")
flags.DEFINE_list("tf_modes", ["xla"], "How to run our step, one row each: "
                  "xla (jit_compile, as the training loop does by default), "
                  "graph (tf.function without XLA: TF's own oneDNN "
                  "kernels) and/or xla_but_matmuls (XLA for all but the "
                  "matmuls, which stay on TF's kernels: "
                  "\"jit_compile_matmuls\": false).")
flags.DEFINE_list("replacement_sampling", ["gumbel_max"], "Samplers of the "
                  "generator's replacements, our rows for each: gumbel_max "
                  "(the original's, the default) and/or inverse_cdf "
                  "(\"replacement_sampling\": \"inverse_cdf\").")
flags.DEFINE_integer("threads", 0, "Threads for both frameworks (0: all "
                     "cores).")
flags.DEFINE_boolean("skip_torch", False, "Do not run the PyTorch step.")
flags.DEFINE_boolean("torch_compile", True, "Also time the PyTorch step "
                     "under torch.compile (a row that says why if it fails).")
flags.DEFINE_string("vocab_file", None, "Draw token ids from this WordPiece "
                    "vocab (default: random ids from BERT's 30522).")
flags.DEFINE_float("peak_seconds", 1.0, "Seconds per matmul peak window.")
flags.DEFINE_boolean("peak_memory", False, "Before the timing, run each row "
                     "in a fresh process and report its peak resident "
                     "memory over a few steps after warmup (Linux).")
flags.DEFINE_integer("memory_row", None, "Internal: measure only this row's "
                     "peak memory and print it as JSON.")

# Sequences shorter than the maximum, as the original's data builder makes
# (5% of examples get a random target length).
SHORT_FRACTION = 0.05
MIN_LENGTH = 5
# The first BERT-uncased id after [PAD], [unused*], [UNK], [CLS], [SEP], [MASK].
FIRST_WORD_ID = 999
BACKGROUND_WARNING_CORES = 0.25
# Steps whose peak resident memory --peak_memory reports.
MEMORY_STEPS = 3


def configure_threads(threads):
  """Same thread counts for TensorFlow and PyTorch; returns the count."""
  threads = threads or os.cpu_count()
  tf.config.threading.set_intra_op_parallelism_threads(threads)
  tf.config.threading.set_inter_op_parallelism_threads(threads)
  torch = optional_torch()
  if torch is not None:
    torch.set_num_threads(threads)
  return threads


def optional_torch():
  if FLAGS.skip_torch:
    return None
  try:
    import torch  # pylint: disable=g-import-not-at-top
    import transformers  # noqa: F401  # pylint: disable=unused-import
  except ImportError:
    return None
  return torch


def make_batch(batch_size, seq_length, special_ids, word_ids, seed=0):
  """[CLS] A [SEP] B [SEP] + padding, as int32 numpy arrays."""
  rng = np.random.default_rng(seed)
  ids = rng.choice(word_ids, size=(batch_size, seq_length)).astype(np.int32)
  lengths = np.full(batch_size, seq_length)
  short = rng.random(batch_size) < SHORT_FRACTION
  lengths[short] = rng.integers(MIN_LENGTH, seq_length + 1, short.sum())
  rows = np.arange(batch_size)
  first_end = rng.integers(2, lengths - 2)  # [SEP] closing segment A
  positions = np.arange(seq_length)[None]
  mask = (positions < lengths[:, None]).astype(np.int32)
  segments = ((positions > first_end[:, None]) & (mask > 0)).astype(np.int32)
  ids[:, 0] = special_ids.cls
  ids[rows, first_end] = special_ids.sep
  ids[rows, lengths - 1] = special_ids.sep
  ids = np.where(mask > 0, ids, special_ids.pad).astype(np.int32)
  return {"input_ids": ids, "input_mask": mask, "segment_ids": segments}


def vocab_ids(vocab_file, vocab_size):
  """Special ids and the ids of ordinary tokens to draw from."""
  if vocab_file is None:
    return special_tokens.SpecialTokenIds(), np.arange(FIRST_WORD_ID,
                                                       vocab_size)
  vocab = tokenization.load_vocab(vocab_file)
  words = [i for token, i in vocab.items()
           if not (token.startswith("[") and token.endswith("]"))]
  return special_tokens.SpecialTokenIds.from_vocab(vocab), np.array(words)


class Implementation:
  """A named step function, its compile time and its timed steps."""

  def __init__(self, name, execution, step_fn, precision):
    self.name, self.execution, self.step_fn = name, execution, step_fn
    self.precision = precision
    self.compile_seconds = None
    self.times = []
    self.error = None
    self.memory = None  # {"peak_mb", "imports_mb"} from --peak_memory

  def prepare(self, warmup_steps):
    """First call (compilation) and warmup; a failure is kept as `error`."""
    try:
      start = time.perf_counter()
      self.step_fn()
      self.compile_seconds = time.perf_counter() - start
      for _ in range(warmup_steps):
        self.step_fn()
    except Exception as e:  # pylint: disable=broad-except
      self.error = f"{type(e).__name__}: {str(e).strip().splitlines()[0]}"

  def time_steps(self, count, meter):
    if self.error:
      return
    for _ in range(count):
      with meter:
        start = time.perf_counter()
        self.step_fn()
        self.times.append(time.perf_counter() - start)

  @property
  def seconds_per_step(self):
    return float(np.median(self.times)) if self.times else None


TF_MODES = {"xla": "XLA (jit_compile)",
            "graph": "tf.function, no XLA",
            "xla_but_matmuls": "XLA but matmuls (jit_compile_matmuls false)"}


def with_sampler(execution, replacement_sampling):
  """An execution's name, with the sampler if it is not the default."""
  if replacement_sampling == config_lib.PretrainingConfig.replacement_sampling:
    return execution
  return f"{execution}, {replacement_sampling} sampling"


def tf_implementation(config, special_ids, batch, mode):
  """Our `PretrainStep`, compiled as the pretraining loop compiles it."""
  execution = with_sampler(TF_MODES[mode], config.replacement_sampling)
  model, optimizer, loss_scale = train_loop.build_model_and_optimizer(
      config, tf.distribute.get_strategy(), special_ids)
  step = train_step.PretrainStep(model, optimizer, loss_scale)
  if mode == "xla_but_matmuls":
    compiled = tf.function(xla_regions.all_but_matmuls(
        lambda f: step(f, training=True)))
  else:
    compiled = tf.function(lambda f: step(f, training=True),
                           jit_compile=mode == "xla")
  features = {k: tf.constant(v) for k, v in batch.items()}
  return Implementation(
      f"electra-tf {_version('electra-tf')} / TF {tf.__version__}",
      execution, lambda: float(compiled(features)["loss"]), config.precision)


def torch_implementation(torch, config, special_ids, batch, compile_model):
  """The HF step, eager or under torch.compile."""
  import transformers  # pylint: disable=g-import-not-at-top
  import hf_electra_step  # pylint: disable=g-import-not-at-top
  tensors = [torch.from_numpy(batch[k]).long()
             for k in ("input_ids", "input_mask", "segment_ids")]
  autocast = (torch.bfloat16 if config.precision == "mixed_bfloat16"
              else None)
  name = f"HF transformers {transformers.__version__} / torch " + (
      torch.__version__)
  step = hf_electra_step.HfElectraStep(config, special_ids, autocast,
                                       compile_model=compile_model)
  return Implementation(name, "torch.compile" if compile_model else "eager",
                        lambda: step(tensors), config.precision)


def row_builders(torch, configs, special_ids, batch):
  """One function per table row that builds its `Implementation`, in the
  order of the tables (a row can be built alone, in a fresh process)."""
  builders = []
  for config in configs:
    builders += [functools.partial(
        tf_implementation,
        config.override(replacement_sampling=sampler), special_ids, batch,
        mode) for mode in FLAGS.tf_modes
                 for sampler in FLAGS.replacement_sampling]
    if torch is not None:
      builders += [functools.partial(torch_implementation, torch, config,
                                     special_ids, batch, compile_model)
                   for compile_model in [False] + [True] * FLAGS.torch_compile]
  return builders


def _resident_mb(field):
  """VmRSS or VmHWM (peak) of this process, in MB."""
  with open("/proc/self/status") as f:
    for line in f:
      if line.startswith(field + ":"):
        return int(line.split()[1]) / 1024
  raise OSError(f"no {field} in /proc/self/status")


def measure_row_memory(build):
  """Peak resident MB over MEMORY_STEPS steps after compilation and warmup,
  and the resident MB before the row was built (imports only)."""
  imports_mb = _resident_mb("VmRSS")
  impl = build()
  impl.prepare(FLAGS.warmup_steps)
  if impl.error:
    return {"error": impl.error}
  with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets the peak (VmHWM) to the current resident size
  for _ in range(MEMORY_STEPS):
    impl.step_fn()
  return {"peak_mb": _resident_mb("VmHWM"), "imports_mb": imports_mb}


def measure_memory_in_fresh_processes(num_rows):
  """Runs this script once per row with --memory_row; returns each row's
  memory dict (or {"error": ...})."""
  memories = []
  for index in range(num_rows):
    print(f"peak memory, in a fresh process: row {index + 1} of {num_rows}",
          flush=True)
    result = subprocess.run(
        [sys.executable, os.path.abspath(__file__)] + sys.argv[1:] +
        [f"--memory_row={index}"], capture_output=True, text=True,
        check=False)
    try:
      memories.append(json.loads(result.stdout.strip().splitlines()[-1]))
    except (IndexError, ValueError):
      memories.append({"error": f"exit code {result.returncode}: "
                                f"{result.stderr.strip()[-300:]}"})
  return memories


def _version(package):
  try:
    return metadata.version(package)
  except metadata.PackageNotFoundError:
    return "?"


def measure_peaks(torch, dtype_names):
  return {name: cpu_measurements.matmul_peaks(name, FLAGS.peak_seconds, torch)
          for name in dtype_names}


def compute_dtype(precision):
  return "bfloat16" if precision == "mixed_bfloat16" else "float32"


def report(implementations, peaks, flops_per_step, threads, meter):
  """Prints the setup, the peaks and a Markdown table per precision."""
  print(f"\n{cpu_measurements.cpu_name()}, {os.cpu_count()} logical CPUs, "
        f"{threads} threads; "
        f"{FLAGS.preset} batch {FLAGS.batch_size} x {FLAGS.seq_length}, "
        f"{', '.join(FLAGS.precision)}")
  print(f"model FLOPs per step: {flops_per_step / 1e9:.1f} GFLOP (matmuls, "
        "forward + backward = 3x forward)")
  for dtype, by_framework in peaks.items():
    parts = ", ".join(f"{k} {v / 1e9:.0f}" for k, v in by_framework.items())
    print(f"matmul peak {dtype} (GFLOP/s, best of "
          f"{cpu_measurements.MATMUL_SIZES} squares before and after the "
          f"steps): {parts}")
  if meter.other_cores is not None:
    print(f"other processes used {meter.other_cores:.2f} cores on average "
          "while steps were timed")
    if meter.other_cores > BACKGROUND_WARNING_CORES:
      print("WARNING: the machine was busy; rerun on an idle machine")
  for precision in FLAGS.precision:
    dtype = compute_dtype(precision)
    peak = max(peaks[dtype].values())
    rows = [i for i in implementations if i.precision == precision]
    baseline = next((i for i in rows if i.execution == "eager" and i.times),
                    None)
    print(f"\n{precision}: MFU is against the best {dtype} matmul peak, "
          f"{peak / 1e9:.0f} GFLOP/s")
    memory = FLAGS.peak_memory
    print("\n| implementation | execution | first step s | s/step median "
          "(min) | sequences/s | model GFLOP/s | MFU median (min) | speed vs "
          "PyTorch eager, median (min) |" +
          (" peak RSS MB (above imports) |" if memory else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|" if memory else ""))
    for impl in rows:
      print(_row(impl, flops_per_step, peak, baseline) +
            (_memory_cell(impl.memory) if memory else ""))


def _memory_cell(memory):
  if not memory or "error" in memory:
    return f" failed: {(memory or {}).get('error', 'not measured')} |"
  return (f" {memory['peak_mb']:.0f} "
          f"({memory['peak_mb'] - memory['imports_mb']:.0f}) |")


def _row(impl, flops_per_step, peak, baseline):
  if impl.error or not impl.times:
    return (f"| {impl.name} | {impl.execution} | failed: "
            f"{impl.error or 'no steps'} | | | | | |")
  seconds = impl.seconds_per_step
  ratio = "n/a"
  if baseline is not None:
    ratio = (f"{baseline.seconds_per_step / seconds:.2f}x "
             f"({min(baseline.times) / min(impl.times):.2f}x)")
  return (f"| {impl.name} | {impl.execution} | {impl.compile_seconds:.0f} | "
          f"{seconds:.3f} ({min(impl.times):.3f}) | "
          f"{FLAGS.batch_size / seconds:.1f} | "
          f"{flops_per_step / seconds / 1e9:.0f} | "
          f"{100 * flops_per_step / seconds / peak:.0f}% "
          f"({100 * flops_per_step / min(impl.times) / peak:.0f}%) | "
          f"{ratio} |")


def main(argv):
  del argv
  for flag, known in (("tf_modes", TF_MODES), ("precision", PRECISIONS),
                      ("replacement_sampling",
                       config_lib.REPLACEMENT_SAMPLERS)):
    unknown = set(FLAGS[flag].value) - set(known)
    if unknown:
      raise app.UsageError(f"--{flag}: unknown {sorted(unknown)}; use "
                           f"{sorted(known)}")
  threads = configure_threads(FLAGS.threads)
  torch = optional_torch()
  configs = [config_lib.load_pretraining_config(
      FLAGS.preset, train_batch_size=FLAGS.batch_size,
      max_seq_length=FLAGS.seq_length, precision=precision)
             for precision in FLAGS.precision]
  special_ids, word_ids = vocab_ids(FLAGS.vocab_file, configs[0].vocab_size)
  batch = make_batch(FLAGS.batch_size, FLAGS.seq_length, special_ids,
                     word_ids)
  builders = row_builders(torch, configs, special_ids, batch)
  if FLAGS.memory_row is not None:
    print(json.dumps(measure_row_memory(builders[FLAGS.memory_row])))
    return
  dtypes = sorted({"float32"} | {compute_dtype(p) for p in FLAGS.precision})
  # Before this process builds any row: a fresh child beside six built
  # ELECTRA-Base rows can exceed the machine's memory.
  memories = (measure_memory_in_fresh_processes(len(builders))
              if FLAGS.peak_memory else [None] * len(builders))
  peaks = measure_peaks(torch, dtypes)

  implementations = [build() for build in builders]
  for impl, memory in zip(implementations, memories):
    impl.memory = memory
  for impl in implementations:
    print(f"compiling and warming up: {impl.name}, {impl.execution}, "
          f"{impl.precision}", flush=True)
    impl.prepare(FLAGS.warmup_steps)
  meter = cpu_measurements.CpuMeter()
  rounds = max(1, min(FLAGS.rounds, FLAGS.steps))
  for r in range(rounds):
    count = FLAGS.steps // rounds + (r < FLAGS.steps % rounds)
    for impl in implementations:
      impl.time_steps(count, meter)
  after = measure_peaks(torch, dtypes)
  peaks = {d: {k: max(v, after[d][k]) for k, v in peaks[d].items()}
           for d in peaks}
  flops = sizes.pretraining_flops_per_sequence(configs[0]) * FLAGS.batch_size
  report(implementations, peaks, flops, threads, meter)


if __name__ == "__main__":
  app.run(main)
