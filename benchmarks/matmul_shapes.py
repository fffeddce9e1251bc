r"""The pretraining step's matmuls, shape by shape: TensorFlow's kernels
against PyTorch's, on the same CPU in the same run.

    python benchmarks/matmul_shapes.py                 # ELECTRA-Small, bf16

Lists every matmul of one ELECTRA step from the config (the generator's and
the discriminator's layers, attention, the heads; each as its forward
product, its input gradient and its weight gradient), checks that their
FLOPs add up to the model FLOPs that pretrain_throughput.py reports, and
times each distinct shape on TensorFlow's oneDNN kernels (a `tf.function`
of `--calls` independent matmuls, so each call's overhead is a matmul's, as
in the step's graph), on XLA's dots (the same function, `jit_compile`) and
on PyTorch's (`torch.matmul`, when torch imports), alternating for
`--rounds` windows of `--seconds` each. The table gives each shape's median
rate; the totals say how long one step's matmuls take at
each library's rates, and what share of the matmul peak a step made of
nothing but these matmuls would reach: an upper bound of the step's MFU
with that library's kernels. The bias and layer-norm parameter gradients'
column sums are not model FLOPs and are not listed.

Shape legend: T tokens per step (batch x length), H hidden size, I FFN size,
E embedding size, D head size, L sequence length, S prediction slots per
step, V vocabulary size.

See benchmarks/README.md.
"""

import dataclasses
import statistics
import sys
import time

from absl import app
from absl import flags
import tensorflow as tf

import cpu_measurements
import pretrain_throughput
from electra_tf import config as config_lib
from electra_tf.modeling import sizes

FLAGS = flags.FLAGS  # --preset, --batch_size, --seq_length, --threads,
# --rounds, --skip_torch and --peak_seconds are pretrain_throughput's.
flags.DEFINE_integer("calls", 8, "Independent matmuls per timed call.")
flags.DEFINE_float("seconds", 0.5, "Seconds per shape, library and round.")
FLAGS.set_default("precision", ["mixed_bfloat16"])

FORMS = ("forward", "input gradient", "weight gradient")


@dataclasses.dataclass(frozen=True)
class Product:
  """A forward matmul of the step, `[batch] x [m, k] @ [k, n]`."""
  role: str
  batch: int
  m: int
  k: int
  n: int
  per_step: int


@dataclasses.dataclass(frozen=True)
class Matmul:
  """One product as a kernel runs it: `a @ b`, transposed as the form
  needs, `[batch] x [m, k] @ [k, n]` after the transposes."""
  role: str
  form: str
  batch: int
  m: int
  k: int
  n: int
  transpose_a: bool
  transpose_b: bool
  per_step: int

  @property
  def flops(self):
    return 2 * self.batch * self.m * self.k * self.n

  @property
  def kernel_shape(self):
    """What the kernel is given: (batch, a's shape, b's shape, flags)."""
    a = (self.k, self.m) if self.transpose_a else (self.m, self.k)
    b = (self.n, self.k) if self.transpose_b else (self.k, self.n)
    return self.batch, a, b, self.transpose_a, self.transpose_b


def encoder_products(name, config, tokens, sequences, length):
  """The forward matmuls of an encoder over `tokens` = sequences x length."""
  h, i, d = config.hidden_size, config.intermediate_size, config.head_size
  layers = config.num_hidden_layers
  heads = config.num_attention_heads
  products = []
  if config.embedding_size != h:
    products.append(Product(f"{name} embeddings projection [T,E]x[E,H]", 1,
                            tokens, config.embedding_size, h, 1))
  products += [
      Product(f"{name} Q, K, V, attention output [T,H]x[H,H]", 1, tokens,
              h, h, 4 * layers),
      Product(f"{name} FFN in [T,H]x[H,I]", 1, tokens, h, i, layers),
      Product(f"{name} FFN out [T,I]x[I,H]", 1, tokens, i, h, layers),
      Product(f"{name} attention scores [L,D]x[D,L] per head",
              sequences * heads, length, d, length, layers),
      Product(f"{name} attention context [L,L]x[L,D] per head",
              sequences * heads, length, length, d, layers),
  ]
  return products


def step_products(config, batch_size):
  """Every forward matmul of one ELECTRA step (replaced-token detection
  with a generator; the FLOPs of `sizes.pretraining_flops_per_sequence`)."""
  if config.objective != "electra" or config.uniform_generator:
    raise ValueError("matmul_shapes lists the ELECTRA objective with a "
                     f"generator; got objective={config.objective!r}, "
                     f"uniform_generator={config.uniform_generator}")
  disc, gen = config.discriminator_config, config.generator_config
  length = config.max_seq_length
  tokens = batch_size * length
  slots = batch_size * config.max_predictions_per_seq
  width = (gen.hidden_size if config.untied_generator_embeddings
           else disc.embedding_size)
  return (
      encoder_products("generator", gen, tokens, batch_size, length)
      + [Product("generator MLM head dense [S,H]x[H,E]", 1, slots,
                 gen.hidden_size, width, 1),
         Product("generator MLM logits [S,E]x[E,V]", 1, slots, width,
                 disc.vocab_size, 1)]
      + encoder_products("discriminator", disc, tokens, batch_size, length)
      + [Product("discriminator head dense [T,H]x[H,H]", 1, tokens,
                 disc.hidden_size, disc.hidden_size, 1),
         Product("discriminator head logit [T,H]x[H,1]", 1, tokens,
                 disc.hidden_size, 1, 1)])


def step_matmuls(products):
  """Each forward product with the two products of its gradient, as
  autodiff forms them for a plain matmul: dx = dy @ w^T ([m, n] x [n, k])
  and dw = x^T @ dy ([k, m] x [m, n]). (Attention's products are listed the
  same way; the step's graph may pass them other transpose flags.)"""
  matmuls = []
  for p in products:
    matmuls += [
        Matmul(p.role, "forward", p.batch, p.m, p.k, p.n, False, False,
               p.per_step),
        Matmul(p.role, "input gradient", p.batch, p.m, p.n, p.k, False,
               True, p.per_step),
        Matmul(p.role, "weight gradient", p.batch, p.k, p.m, p.n, True,
               False, p.per_step),
    ]
  return matmuls


def step_flops(matmuls):
  return sum(mm.flops * mm.per_step for mm in matmuls)


def _tf_calls(matmul, dtype, calls, jit_compile):
  """A callable running `calls` independent products on TensorFlow: its
  oneDNN kernels, or XLA's dots under `jit_compile`."""
  batch, a_shape, b_shape, transpose_a, transpose_b = matmul.kernel_shape
  lead = [batch] if batch > 1 else []
  pairs = [(tf.cast(tf.random.stateless_uniform(lead + list(a_shape),
                                                seed=[1, c]), dtype),
            tf.cast(tf.random.stateless_uniform(lead + list(b_shape),
                                                seed=[2, c]), dtype))
           for c in range(calls)]

  @tf.function(jit_compile=jit_compile)
  def run():
    # One element of each product, so none is pruned from the graph.
    return tf.add_n([tf.reshape(tf.matmul(a, b, transpose_a=transpose_a,
                                          transpose_b=transpose_b),
                                [-1])[0] for a, b in pairs])

  return lambda: run().numpy()


def _torch_calls(torch, matmul, dtype_name, calls):
  """The same products on PyTorch (`torch.matmul`, no autograd)."""
  batch, a_shape, b_shape, transpose_a, transpose_b = matmul.kernel_shape
  lead = [batch] if batch > 1 else []
  generator = torch.Generator().manual_seed(0)
  dtype = getattr(torch, dtype_name)
  pairs = [(torch.rand(lead + list(a_shape), generator=generator).to(dtype),
            torch.rand(lead + list(b_shape), generator=generator).to(dtype))
           for _ in range(calls)]

  def run():
    with torch.no_grad():
      for a, b in pairs:
        torch.matmul(a.transpose(-1, -2) if transpose_a else a,
                     b.transpose(-1, -2) if transpose_b else b)

  return run


def measure(matmuls, dtype_name, torch, calls, seconds, rounds):
  """{kernel shape: {library: median FLOP/s}}, libraries alternating; a
  progress line per shape, with the time left."""
  rates = {}
  distinct = len({mm.kernel_shape for mm in matmuls})
  start = time.perf_counter()
  for matmul in matmuls:
    if matmul.kernel_shape in rates:
      continue
    runners = {
        library: _tf_calls(matmul, tf.as_dtype(dtype_name), calls, jit)
        for library, jit in (("TF/oneDNN", False), ("TF/XLA", True))}
    if torch is not None:
      runners["torch"] = _torch_calls(torch, matmul, dtype_name, calls)
    samples = {library: [] for library in runners}
    for _ in range(rounds):
      for library, run in runners.items():
        samples[library].append(cpu_measurements.best_rate(
            run, calls * matmul.flops, seconds))
    rates[matmul.kernel_shape] = {library: statistics.median(values)
                                  for library, values in samples.items()}
    elapsed = time.perf_counter() - start
    left = elapsed / len(rates) * (distinct - len(rates))
    print(f"  timed {len(rates)}/{distinct}: {matmul.role}, {matmul.form}; "
          f"about {left:.0f} s left", flush=True)
  return rates


def _ms_per_step(matmul, rates, library):
  """A product's time per step (ms) at its shape's rate on a library."""
  return matmul.per_step * matmul.flops / rates[matmul.kernel_shape][
      library] * 1e3


def step_ms(matmuls, rates, library):
  """One step's matmul time (ms) at a library's rates."""
  return sum(_ms_per_step(mm, rates, library) for mm in matmuls)


def report(matmuls, rates, libraries, peak):
  """The table of shapes and the per-step totals."""
  columns = " | ".join(f"{lib} ms per step | {lib} GFLOP/s"
                       for lib in libraries)
  print(f"\n| matmul | form | per step | {columns} |")
  print("|---|---|---|" + "---|---|" * len(libraries))
  for mm in matmuls:
    cells = " | ".join(
        f"{_ms_per_step(mm, rates, lib):.1f} | "
        f"{rates[mm.kernel_shape][lib] / 1e9:.0f}" for lib in libraries)
    print(f"| {mm.role} | {mm.form} | {mm.per_step} | {cells} |")
  flops = step_flops(matmuls)
  print(f"\n{len(matmuls)} products, "
        f"{sum(mm.per_step for mm in matmuls)} matmuls per step, "
        f"{flops / 1e9:.1f} GFLOP (the model FLOPs).")
  for lib in libraries:
    ms = step_ms(matmuls, rates, lib)
    rate = flops / ms * 1e3
    print(f"At {lib}'s rates: {ms:.1f} ms per step, {rate / 1e9:.0f} GFLOP/s, "
          f"{rate / peak:.1%} of the matmul peak ({peak / 1e9:.0f} GFLOP/s): "
          "the MFU of a step that did nothing else.")


def main(argv):
  del argv
  if len(FLAGS.precision) != 1:
    raise app.UsageError(f"--precision: one at a time, got {FLAGS.precision}")
  config = config_lib.load_pretraining_config(
      FLAGS.preset, train_batch_size=FLAGS.batch_size,
      max_seq_length=FLAGS.seq_length, precision=FLAGS.precision[0])
  matmuls = step_matmuls(step_products(config, FLAGS.batch_size))
  model_flops = (sizes.pretraining_flops_per_sequence(config)
                 * FLAGS.batch_size)
  if step_flops(matmuls) != model_flops:
    raise AssertionError(f"the listed matmuls add up to {step_flops(matmuls)}"
                         f" FLOPs, the model to {model_flops}")
  threads = pretrain_throughput.configure_threads(FLAGS.threads)
  torch = pretrain_throughput.optional_torch()
  dtype_name = pretrain_throughput.compute_dtype(FLAGS.precision[0])
  libraries = ["TF/oneDNN", "TF/XLA"] + (
      ["torch"] if torch is not None else [])
  print(f"{cpu_measurements.cpu_name()}, {threads} threads; {FLAGS.preset} "
        f"batch {FLAGS.batch_size} x {FLAGS.seq_length}, {dtype_name}; "
        f"TF {tf.__version__}"
        + (f", torch {torch.__version__}" if torch is not None else ""),
        flush=True)
  before = pretrain_throughput.measure_peaks(torch, [dtype_name])[dtype_name]
  rates = measure(matmuls, dtype_name, torch, FLAGS.calls, FLAGS.seconds,
                  FLAGS.rounds)
  after = pretrain_throughput.measure_peaks(torch, [dtype_name])[dtype_name]
  best = {name: max(before[name], after[name]) for name in before}
  print("matmul peak (GFLOP/s, best of squares before and after): "
        + ", ".join(f"{name} {rate / 1e9:.0f}" for name, rate in best.items()))
  report(matmuls, rates, libraries, max(best.values()))


if __name__ == "__main__":
  sys.exit(app.run(main))
