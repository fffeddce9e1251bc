"""Serving latency of the raw-text classification SavedModel vs transformers.

  python benchmarks/serving_latency.py
  python benchmarks/serving_latency.py --vocab_file=tests/testdata/bert_uncased_vocab.txt

Measures in one run, on the same texts (each 128 tokens after truncation)
and the same threads:
  * ours: an ELECTRA-Small-sized SST classifier (random weights) exported
    with `run_export.export_task`, loaded with `tf.saved_model.load` and
    called through its `serving_default(text)` signature: tokenization,
    encoder, head, softmax and label lookup all in the graph; once as
    exported by default (encoder and head compiled by XLA) and once as a
    plain graph (`electra-export --nojit_compile`);
  * Hugging Face transformers (when `torch` and `transformers` import): a
    `text-classification` pipeline over `ElectraForSequenceClassification`
    of the same config and `ElectraTokenizerFast` on the same vocab, eager
    PyTorch.
For batch 1 and 32 it prints latency p50/p99 (a call until its labels and
probabilities are on the host) and throughput, and the ratio HF / ours
(> 1: ours is faster). Calls are split into rounds alternating between the
implementations; warmup calls (and TF's first-call tracing) are excluded.
See benchmarks/README.md.
"""

import os
import tempfile
import time

from absl import app
from absl import flags
import numpy as np
import tensorflow as tf

import cpu_measurements
from electra_tf.finetuning import model as model_lib
from electra_tf.finetuning import registry
from electra_tf.finetuning.config import FinetuningConfig
from electra_tf import run_export
from electra_tf.tokenization import special_tokens

FLAGS = flags.FLAGS
flags.DEFINE_string("vocab_file", None, "WordPiece vocab (e.g. BERT "
                    "uncased); default: a small vocab generated here.")
flags.DEFINE_list("batch_sizes", ["1", "32"], "Batch sizes to time.")
flags.DEFINE_integer("seq_length", 128, "Tokens per text (max_seq_length).")
flags.DEFINE_integer("calls", 200, "Timed calls per implementation at "
                     "batch 1; batch b gets calls / b (at least MIN_CALLS).")
flags.DEFINE_integer("warmup_calls", 5, "Untimed calls after the first.")
flags.DEFINE_integer("rounds", 4, "Rounds alternating the implementations.")
flags.DEFINE_integer("threads", 0, "Threads for both frameworks (0: all "
                     "cores).")
flags.DEFINE_boolean("skip_torch", False, "Do not run the transformers "
                     "pipeline.")

TASK = "sst"
MODEL_SIZE = "small"
MIN_CALLS = 16
BACKGROUND_WARNING_CORES = 0.25
WORDS = """the of and to in is was for on that with as by at from his it an
were are which this be has also had first one their its new after who they
two her she been other when time during there into school more most years
over only city some world would where later up such used many can state
about national out known university united then made between team like
american called while part being born both well three may film year under
""".split()
PUNCTUATION = ",.;:!?()'\""
WORDS_PER_TEXT = 160  # more than 128 tokens: every text is truncated


def make_texts(count, seed=0):
  """English-like texts with capitals and punctuation, all over-long."""
  rng = np.random.default_rng(seed)
  texts = []
  for _ in range(count):
    words = list(rng.choice(WORDS, WORDS_PER_TEXT))
    for i in rng.choice(WORDS_PER_TEXT, WORDS_PER_TEXT // 8, replace=False):
      words[i] = words[i].capitalize() + rng.choice(list(PUNCTUATION))
    texts.append(" ".join(words))
  return texts


def generated_vocab(directory):
  """Special tokens, the words, characters and "##" characters."""
  chars = sorted(set("".join(WORDS)) | set(PUNCTUATION))
  tokens = (list(special_tokens.REQUIRED_TOKENS) + sorted(set(WORDS)) +
            chars + ["##" + c for c in chars])
  path = os.path.join(directory, "vocab.txt")
  with open(path, "w") as f:
    f.write("\n".join(tokens) + "\n")
  return path


def export_classifier(vocab_file, directory):
  """An ELECTRA-Small SST classifier with random weights, exported twice:
  as by default (XLA) and as a plain graph. Returns (config, paths)."""
  config = FinetuningConfig.from_hparams({
      "task_names": [TASK], "model_size": MODEL_SIZE,
      "max_seq_length": FLAGS.seq_length, "vocab_file": vocab_file})
  tf.keras.utils.set_random_seed(0)
  model = model_lib.build_finetuning_model(config)
  paths = [run_export.export_task(
      model, config, registry.get_task(TASK),
      os.path.join(directory, "export", name), jit_compile=jit_compile)
           for name, jit_compile in (("default", True), ("plain", False))]
  return config, paths


def ours(path):
  """Call on a list of texts -> (label strings, probabilities)."""
  serve = tf.saved_model.load(path).signatures["serving_default"]
  def call(texts):
    out = serve(text=tf.constant(texts))
    return out["label"].numpy(), out["probabilities"].numpy()
  return call


def hugging_face(config, vocab_file):
  """The transformers pipeline of the same size, or None if unavailable."""
  if FLAGS.skip_torch:
    return None
  try:
    import transformers  # pylint: disable=g-import-not-at-top
  except ImportError:
    return None
  encoder = config.encoder_config
  hf_config = transformers.ElectraConfig(
      vocab_size=encoder.vocab_size, embedding_size=encoder.embedding_size,
      hidden_size=encoder.hidden_size,
      num_hidden_layers=encoder.num_hidden_layers,
      num_attention_heads=encoder.num_attention_heads,
      intermediate_size=encoder.intermediate_size, num_labels=2,
      max_position_embeddings=encoder.max_position_embeddings)
  model = transformers.ElectraForSequenceClassification(hf_config).eval()
  tokenizer = transformers.ElectraTokenizerFast(vocab_file=vocab_file,
                                                do_lower_case=True)
  pipe = transformers.pipeline("text-classification", model=model,
                               tokenizer=tokenizer, device=-1, top_k=None)
  def call(texts):
    return pipe(texts, batch_size=len(texts), truncation=True,
                max_length=FLAGS.seq_length)
  return call, tokenizer


def time_calls(implementations, texts, batch_size):
  """{name: [seconds per call]}, rounds alternating the implementations."""
  batch = texts[:batch_size]
  for call in implementations.values():
    for _ in range(1 + FLAGS.warmup_calls):
      call(batch)
  calls = max(MIN_CALLS, FLAGS.calls // batch_size)
  times = {name: [] for name in implementations}
  meter = cpu_measurements.CpuMeter()
  for _ in range(FLAGS.rounds):
    for name, call in implementations.items():
      for _ in range(calls // FLAGS.rounds):
        with meter:
          start = time.perf_counter()
          call(batch)
          times[name].append(time.perf_counter() - start)
  return times, meter


def row(name, batch_size, seconds):
  seconds = np.asarray(seconds)
  p50, p99 = np.percentile(seconds, 50), np.percentile(seconds, 99)
  return {"name": name, "batch": batch_size, "p50": p50 * 1e3,
          "p99": p99 * 1e3, "throughput": batch_size / seconds.mean()}


def main(argv):
  del argv
  threads = FLAGS.threads or os.cpu_count()
  tf.config.threading.set_intra_op_parallelism_threads(threads)
  tf.config.threading.set_inter_op_parallelism_threads(threads)
  directory = tempfile.mkdtemp(prefix="serving_latency_")
  vocab_file = FLAGS.vocab_file or generated_vocab(directory)
  config, (path, plain_path) = export_classifier(vocab_file, directory)
  texts = make_texts(max(int(b) for b in FLAGS.batch_sizes))
  implementations = {"ours, default export (XLA)": ours(path),
                     "ours, --nojit_compile export (plain graph)": ours(
                         plain_path)}
  hf = hugging_face(config, vocab_file)
  if hf is not None:
    import torch  # pylint: disable=g-import-not-at-top
    torch.set_num_threads(threads)
    implementations["HF transformers pipeline (PyTorch)"] = hf[0]
    check_same_tokens(path, hf[1], texts)
  print(f"{cpu_measurements.cpu_name()}, {threads} threads; vocab "
        f"{vocab_file}; ELECTRA-{MODEL_SIZE} classifier, length "
        f"{FLAGS.seq_length}")
  rows = []
  for batch_size in (int(b) for b in FLAGS.batch_sizes):
    times, meter = time_calls(implementations, texts, batch_size)
    batch_rows = [row(name, batch_size, t) for name, t in times.items()]
    reference = batch_rows[0]["p50"]
    for r in batch_rows:
      r["ratio"] = r["p50"] / reference
    rows += batch_rows
    if meter.other_cores and meter.other_cores > BACKGROUND_WARNING_CORES:
      print(f"warning: other processes used {meter.other_cores:.2f} cores "
            f"while batch {batch_size} was timed")
  print_table(rows)


def check_same_tokens(path, hf_tokenizer, texts):
  """Asserts both tokenizers give the same ids (so the work is the same)."""
  serve = tf.saved_model.load(path).signatures["serving_default"]
  ours_ids = serve(text=tf.constant(texts[:4]))["input_ids"].numpy()
  hf_ids = hf_tokenizer(texts[:4], truncation=True,
                        max_length=FLAGS.seq_length)["input_ids"]
  if [list(r) for r in ours_ids] != hf_ids:
    raise SystemExit("the two tokenizers disagree on the benchmark texts")
  print(f"same {len(hf_ids[0])} token ids from both tokenizers")


def print_table(rows):
  print("\n| implementation | batch | p50 ms | p99 ms | seq/s | "
        "p50 / ours |")
  print("|---|---:|---:|---:|---:|---:|")
  for r in rows:
    print(f"| {r['name']} | {r['batch']} | {r['p50']:.1f} | {r['p99']:.1f} "
          f"| {r['throughput']:.1f} | {r['ratio']:.2f} |")


if __name__ == "__main__":
  app.run(main)
