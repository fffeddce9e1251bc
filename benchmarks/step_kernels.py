"""Which kernels a pretraining step runs, and how long each kind takes.

  python benchmarks/step_kernels.py          # Small 32 x 128, bfloat16,
                                             # XLA but matmuls, ~3 min
  python benchmarks/step_kernels.py --precision=float32 --tf_mode=graph

Profiles a few calls of our `PretrainStep` (built as pretrain_throughput.py
builds its rows) with TensorFlow's profiler, and sorts the kernels that
TensorFlow's executor threads ran, outermost only, into: matmuls (oneDNN),
XLA cluster executions (`_XlaRun`: the fused element-wise work, waited for
by the executor), XLA cluster launches (`_XlaCompile`: a cache lookup once
compiled), every other kernel by op type (work left outside the XLA
clusters), and the executor's gaps between kernels; then counts the XLA
cluster runs by duration. With one inter-op thread (the default here) the
kernels run one at a time, so the rows add up to the step; the wall time
per profiled step is printed beside them.
`--inter_op_threads=0` profiles the step as trained (kernels overlap, rows
then add up to more than the step). `--clusters=N` (XLA but matmuls) also
lists the N XLA clusters that take longest, each with its op types and the
name scope most of its ops come from, read from the clustering pass's
graph dump, and the bytes each run reads and writes (its compiled module's
parameters and results, from XLA's dump) at the rate it achieved. Then the
step's floor for these kernels: the matmuls as they ran, plus every
cluster's bytes at the streaming rate of an XLA element-wise kernel
measured in the same run, against the model FLOPs and the matmul peak.
See benchmarks/README.md.
"""

import collections
import dataclasses
import math
import os
import re
import shutil
import sys
import tempfile
import time

from absl import app
from absl import flags
from google.protobuf import text_format
import tensorflow as tf
from tensorflow.core.framework import graph_pb2
from tensorflow.tsl.profiler.protobuf import xplane_pb2

import cpu_measurements
import pretrain_throughput
from electra_tf import config as config_lib
from electra_tf.modeling import sizes

FLAGS = flags.FLAGS  # --preset, --batch_size, --seq_length, --warmup_steps
# and --vocab_file are pretrain_throughput's.
flags.DEFINE_string("tf_mode", "xla_but_matmuls",
                    "graph or xla_but_matmuls (see pretrain_throughput.py "
                    "--tf_modes); under xla the whole step is one XLA "
                    "executable, no kernels of TensorFlow's to sort.")
KERNEL_MODES = ("graph", "xla_but_matmuls")
flags.DEFINE_integer("profiled_steps", 3, "Steps inside the profile.")
flags.DEFINE_integer("inter_op_threads", 1, "TensorFlow's inter-op "
                     "threads (0: TensorFlow's default).")
flags.DEFINE_integer("top", 12, "Rows of kernels outside XLA to list.")
flags.DEFINE_integer("clusters", 0, "List this many XLA clusters, longest "
                     "first, by their ops (xla_but_matmuls only).")
flags.DEFINE_float("stream_seconds", 2.0, "Seconds of the streaming "
                   "rate's window (with --clusters).")
FLAGS.set_default("precision", ["mixed_bfloat16"])  # one precision here

# Executor threads, where TensorFlow's kernels start (XLA's own work runs
# on these and on the intra-op pool's threads).
EXECUTOR_THREAD = "tf_Compute"
# A kernel's event: "<node name>:<op type>".
_KERNEL = re.compile(r"^[^:]+:(?P<op>[A-Z_][A-Za-z0-9_]*)$")
# An XLA cluster's run: "cluster_<n>_<k>/xla_run:_XlaRun".
_CLUSTER_RUN = re.compile(r"^(?P<cluster>cluster_\d+)_\d+/xla_run:_XlaRun$")
# The clustering pass's dump of the graph, its nodes marked with their
# cluster (`_XlaCluster`), under TF_DUMP_GRAPH_PREFIX.
CLUSTERED_GRAPH = "mark_for_compilation.pbtxt"
# Set (to the dump's temporary directory) in the re-run with the dump on.
GRAPH_DUMP_ENV = "STEP_KERNELS_GRAPH_DUMP"
# Where in that directory XLA dumps its modules; a cluster's optimized
# module: "module_<k>.cluster_<n>__<attributes>.<j>.cpu_after_optimizations
# .txt", its first line's entry layout "(parameters)->results".
HLO_DUMP = "hlo"
_MODULE = re.compile(r"^module_(?P<k>\d+)\.(?P<cluster>cluster_\d+)__.*"
                     r"\.cpu_after_optimizations\.txt$")
_ENTRY_LAYOUT = re.compile(r"entry_computation_layout=\{(?P<layout>.*)\}")
_ARRAY = re.compile(r"\b(?P<dtype>[a-z]+\d*)\[(?P<dims>[\d,]*)\]")
BYTES_PER_ELEMENT = {"pred": 1, "s8": 1, "u8": 1, "bf16": 2, "f16": 2,
                     "s16": 2, "u16": 2, "f32": 4, "s32": 4, "u32": 4,
                     "f64": 8, "s64": 8, "u64": 8}


@dataclasses.dataclass
class KernelTimes:
  """Summed durations (ms) and counts of an executor's outermost kernels."""
  ms: collections.Counter
  count: collections.Counter
  span_ms: float  # first kernel start to last kernel end, all threads
  cluster_runs_ms: list  # each `_XlaRun`'s duration
  ms_by_cluster: collections.Counter  # summed `_XlaRun` ms per cluster
  runs_by_cluster: collections.Counter  # `_XlaRun`s per cluster


def kernel_kind(op):
  """The row a kernel's op type is counted in."""
  if "MatMul" in op:
    return "matmul"
  if op == "_XlaRun":
    return "XLA cluster run"
  if op == "_XlaCompile":
    return "XLA cluster launch"
  if op == "_XlaMerge":
    return "XLA cluster output"
  return f"outside XLA: {op}"


def kernel_times(space):
  """`KernelTimes` of the executor threads of an `XSpace`'s host plane."""
  ms, count = collections.Counter(), collections.Counter()
  cluster_runs, by_cluster = [], collections.Counter()
  runs_by_cluster = collections.Counter()
  first, last = None, None
  for plane in space.planes:
    if plane.name != "/host:CPU":
      continue
    for line in plane.lines:
      if not line.name.startswith(EXECUTOR_THREAD):
        continue
      kernels = []
      for event in line.events:
        name = plane.event_metadata[event.metadata_id].name
        match = _KERNEL.match(name)
        if match:
          kernels.append((event.offset_ps, event.duration_ps,
                          match.group("op")))
        run = _CLUSTER_RUN.match(name)
        if run:
          by_cluster[run.group("cluster")] += event.duration_ps / 1e9
          runs_by_cluster[run.group("cluster")] += 1
      kernels.sort()
      end = None
      for start, duration, op in kernels:
        if end is not None and start < end:
          continue  # nested inside the previous kernel
        if end is not None:
          ms["executor gaps"] += (start - end) / 1e9
          count["executor gaps"] += 1
        kind = kernel_kind(op)
        ms[kind] += duration / 1e9
        count[kind] += 1
        if kind == "XLA cluster run":
          cluster_runs.append(duration / 1e9)
        end = start + duration
        at = line.timestamp_ns * 1000 + start
        first = at if first is None else min(first, at)
        last = max(last or 0, at + duration)
  return KernelTimes(ms, count,
                     0.0 if first is None else (last - first) / 1e9,
                     cluster_runs, by_cluster, runs_by_cluster)


def cluster_members(graph_def):
  """{cluster: [(op type, node name)]} of a graph marked by the clustering
  pass (its functions' nodes included)."""
  members = collections.defaultdict(list)
  nodes = list(graph_def.node)
  for function in graph_def.library.function:
    nodes += function.node_def
  for node in nodes:
    if "_XlaCluster" in node.attr:
      members[node.attr["_XlaCluster"].s.decode()].append(
          (node.op, node.name))
  return members


def layout_bytes(layout):
  """Bytes of the arrays in an HLO layout ("(bf16[8,4]{1,0}, f32[])->...")."""
  total = 0
  for array in _ARRAY.finditer(layout):
    dtype = array.group("dtype")
    if dtype not in BYTES_PER_ELEMENT:
      raise ValueError(f"element type {dtype!r} (in {layout[:200]!r}) is not "
                       f"one of {sorted(BYTES_PER_ELEMENT)}")
    elements = math.prod(int(d) for d in array.group("dims").split(",") if d)
    total += elements * BYTES_PER_ELEMENT[dtype]
  return total


def cluster_io_bytes(hlo_dir):
  """{cluster: bytes one run reads and writes}: the parameters and results
  of its optimized module in XLA's dump (its latest, if compiled again)."""
  latest = {}
  for name in tf.io.gfile.listdir(hlo_dir):
    module = _MODULE.match(name)
    if module:
      number, cluster = int(module.group("k")), module.group("cluster")
      if number >= latest.get(cluster, (-1, None))[0]:
        latest[cluster] = (number, name)
  io_bytes = {}
  for cluster, (_, name) in latest.items():
    with tf.io.gfile.GFile(os.path.join(hlo_dir, name)) as f:
      layout = _ENTRY_LAYOUT.search(f.readline())
    if not layout:
      raise ValueError(f"{os.path.join(hlo_dir, name)}: no "
                       "entry_computation_layout on its first line")
    io_bytes[cluster] = layout_bytes(layout.group("layout"))
  return io_bytes


def _main_scope(names):
  """The name scope most of `names` sit in; names at the top level (often
  ops that grappler made or renamed) only where no name has a scope."""
  scopes = collections.Counter(name.rsplit("/", 1)[0] for name in names
                               if "/" in name)
  if scopes:
    return scopes.most_common(1)[0][0]
  return "(top level)" if names else "?"


def report_clusters(times, members, io_bytes, steps, top):
  """Markdown rows of the `top` longest clusters: ms per step, the MB a run
  reads and writes and the rate it moved them at, their ops (constants not
  counted), the commonest op types and the main scope."""
  print("\n| XLA cluster | ms per step | MB in+out per run | GB/s | ops | "
        "commonest op types | main name scope |")
  print("|---|---|---|---|---|---|---|")
  longest = sorted(times.ms_by_cluster.items(), key=lambda item: -item[1])
  for cluster, ms in longest[:top]:
    ops = [(op, name) for op, name in members.get(cluster, ())
           if op != "Const"]
    kinds = collections.Counter(op for op, _ in ops).most_common(4)
    kinds_text = ", ".join(f"{op} {n}" for op, n in kinds) or "?"
    if cluster in io_bytes:
      moved = io_bytes[cluster] * times.runs_by_cluster[cluster]
      traffic = f"{io_bytes[cluster] / 1e6:.1f} | {moved / ms / 1e6:.1f}"
    else:
      traffic = "? | ?"
    print(f"| {cluster} | {ms / steps:.1f} | {traffic} | {len(ops)} | "
          f"{kinds_text} | {_main_scope([name for _, name in ops])} |")


@dataclasses.dataclass
class Floor:
  """What this step's kernels need at least, per step: the matmuls as they
  ran and the clusters' bytes at a streaming rate."""
  matmul_ms: float
  cluster_ms: float  # as they ran
  cluster_bytes: float
  stream_bytes_per_s: float

  @property
  def cluster_floor_ms(self):
    return self.cluster_bytes / self.stream_bytes_per_s * 1e3

  @property
  def ms(self):
    return self.matmul_ms + self.cluster_floor_ms


def step_floor(times, io_bytes, steps, stream_bytes_per_s):
  """The `Floor` of a profile of `steps` steps (clusters without a module
  in `io_bytes` are an error: their bytes would be missing)."""
  missing = sorted(set(times.runs_by_cluster) - set(io_bytes))
  if missing:
    raise ValueError(f"no compiled module in XLA's dump for {len(missing)} "
                     f"cluster(s) that ran: {missing[:5]}")
  moved = sum(io_bytes[c] * runs for c, runs in times.runs_by_cluster.items())
  return Floor(times.ms["matmul"] / steps,
               times.ms["XLA cluster run"] / steps, moved / steps,
               stream_bytes_per_s)


def report_floor(floor, flops_per_step, peak_name, peak):
  """The floor's lines: the clusters' bytes and rates, the floor, and the
  share of the matmul peak a step at the floor would reach."""
  print(f"\nXLA clusters: {floor.cluster_bytes / 1e6:.0f} MB read and "
        f"written per step in {floor.cluster_ms:.1f} ms, "
        f"{floor.cluster_bytes / floor.cluster_ms / 1e6:.1f} GB/s; the "
        f"streaming rate (XLA, x * 2 over "
        f"{cpu_measurements.STREAM_BUFFERS} float32 buffers of "
        f"{4 * cpu_measurements.STREAM_BUFFER_ELEMENTS / 2**20:.0f} MB, "
        f"this run): {floor.stream_bytes_per_s / 1e9:.1f} GB/s, at which "
        f"they would take {floor.cluster_floor_ms:.1f} ms.")
  print(f"Floor of these kernels: matmuls as run {floor.matmul_ms:.1f} ms + "
        f"clusters at the streaming rate {floor.cluster_floor_ms:.1f} ms = "
        f"{floor.ms:.1f} ms per step; {flops_per_step / 1e9:.1f} model "
        f"GFLOP in that time: {flops_per_step / floor.ms / 1e6:.0f} GFLOP/s, "
        f"{flops_per_step / floor.ms * 1e3 / peak:.1%} of the matmul peak "
        f"({peak_name}, {peak / 1e9:.0f} GFLOP/s).")


# Upper bounds (ms) of the bins XLA cluster runs are counted in.
RUN_BINS_MS = (0.05, 0.2, 0.5, 1, 2, 5, float("inf"))


def cluster_run_bins(runs_ms):
  """[(upper bound ms, runs, their summed ms)] over `RUN_BINS_MS`."""
  bins = []
  lower = 0.0
  for upper in RUN_BINS_MS:
    inside = [r for r in runs_ms if lower <= r < upper]
    bins.append((upper, len(inside), sum(inside)))
    lower = upper
  return bins


def profile_steps(step_fn, steps):
  """The `XSpace` of `steps` calls of `step_fn`, and their wall seconds."""
  logdir = tempfile.mkdtemp(prefix="step_kernels_")
  try:
    tf.profiler.experimental.start(logdir)
    start = time.perf_counter()
    for _ in range(steps):
      step_fn()
    seconds = time.perf_counter() - start
    tf.profiler.experimental.stop()
    paths = tf.io.gfile.glob(f"{logdir}/plugins/profile/*/*.xplane.pb")
    if not paths:
      raise RuntimeError("the profiler wrote no .xplane.pb")
    space = xplane_pb2.XSpace()
    with tf.io.gfile.GFile(paths[0], "rb") as f:
      space.ParseFromString(f.read())
  finally:
    shutil.rmtree(logdir)
  return space, seconds


def report(times, steps, wall_seconds, top):
  """Markdown rows per step: matmuls, XLA, the rest by op type."""
  print(f"profiled wall time per step: {wall_seconds / steps * 1e3:.1f} ms "
        f"(the profiler adds to it); kernels' first start to last end: "
        f"{times.span_ms / steps:.1f} ms\n")
  print("| kernels | ms per step | share of the rows | kernels per step |")
  print("|---|---|---|---|")
  total = sum(times.ms.values())
  outside = sorted((k for k in times.ms if k.startswith("outside XLA")),
                   key=lambda k: -times.ms[k])
  listed = [k for k, _ in times.ms.most_common() if k not in outside]
  listed += outside[:top]
  for kind in listed:
    print(f"| {kind} | {times.ms[kind] / steps:.1f} | "
          f"{times.ms[kind] / total:.0%} | {times.count[kind] / steps:.0f} |")
  rest = outside[top:]
  if rest:
    ms = sum(times.ms[k] for k in rest)
    count = sum(times.count[k] for k in rest)
    print(f"| outside XLA: {len(rest)} other op types | {ms / steps:.1f} | "
          f"{ms / total:.0%} | {count / steps:.0f} |")
  print("\n| XLA cluster runs of | runs per step | ms per step |")
  print("|---|---|---|")
  lowers = (0,) + RUN_BINS_MS[:-1]
  for lower, (upper, runs, ms) in zip(
      lowers, cluster_run_bins(times.cluster_runs_ms)):
    span = f"{lower:g} ms or more" if upper == float("inf") else (
        f"{lower:g} to {upper:g} ms")
    print(f"| {span} | {runs / steps:.1f} | {ms / steps:.1f} |")


def main(argv):
  del argv
  if FLAGS.tf_mode not in KERNEL_MODES:
    raise app.UsageError(f"--tf_mode: {FLAGS.tf_mode!r} is not one of "
                         f"{KERNEL_MODES} (under xla the step is one XLA "
                         "executable; step_breakdown.py times its phases)")
  for flag in ("precision", "replacement_sampling"):
    if len(FLAGS[flag].value) != 1:
      raise app.UsageError(
          f"--{flag}: one at a time, got {FLAGS[flag].value}")
  if FLAGS.clusters and FLAGS.tf_mode != "xla_but_matmuls":
    raise app.UsageError("--clusters: only under --tf_mode=xla_but_matmuls "
                         "(graph mode has no XLA clusters)")
  if FLAGS.inter_op_threads:
    tf.config.threading.set_inter_op_parallelism_threads(
        FLAGS.inter_op_threads)
  if FLAGS.clusters and GRAPH_DUMP_ENV not in os.environ:
    # TensorFlow reads its XLA flags once, when its runtime starts: run this
    # script again with the clustering pass's graph dump asked for.
    graph_dump = tempfile.mkdtemp(prefix="step_kernels_graphs_")
    hlo_dump = os.path.join(graph_dump, HLO_DUMP)
    os.environ.update({
        GRAPH_DUMP_ENV: graph_dump, "TF_DUMP_GRAPH_PREFIX": graph_dump,
        "TF_XLA_FLAGS": " ".join([os.environ.get("TF_XLA_FLAGS", ""),
                                  "--tf_xla_clustering_debug"]),
        "XLA_FLAGS": " ".join([os.environ.get("XLA_FLAGS", ""),
                               f"--xla_dump_to={hlo_dump}"])})
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable] + sys.argv)
  graph_dump = os.environ.get(GRAPH_DUMP_ENV)
  try:
    profile_and_report(graph_dump)
  finally:
    # Last: TensorFlow dumps again whenever it compiles (the peaks too).
    if graph_dump:
      shutil.rmtree(graph_dump, ignore_errors=True)


def profile_and_report(graph_dump):
  """Builds and profiles the step, prints the tables; with `--clusters`,
  reads the clusters' ops and bytes from `graph_dump` too."""
  config = config_lib.load_pretraining_config(
      FLAGS.preset, train_batch_size=FLAGS.batch_size,
      max_seq_length=FLAGS.seq_length, precision=FLAGS.precision[0],
      replacement_sampling=FLAGS.replacement_sampling[0])
  special_ids, word_ids = pretrain_throughput.vocab_ids(FLAGS.vocab_file,
                                                        config.vocab_size)
  batch = pretrain_throughput.make_batch(FLAGS.batch_size, FLAGS.seq_length,
                                         special_ids, word_ids)
  impl = pretrain_throughput.tf_implementation(config, special_ids, batch,
                                               FLAGS.tf_mode)
  print(f"{FLAGS.preset}, {FLAGS.batch_size} x {FLAGS.seq_length}, "
        f"{config.precision}, {impl.execution}, inter-op threads: "
        f"{FLAGS.inter_op_threads or 'default'}; compiling ...", flush=True)
  impl.prepare(FLAGS.warmup_steps)
  if impl.error:
    raise RuntimeError(impl.error)
  print(f"first step {impl.compile_seconds:.0f} s", flush=True)
  space, seconds = profile_steps(impl.step_fn, FLAGS.profiled_steps)
  times = kernel_times(space)
  report(times, FLAGS.profiled_steps, seconds, FLAGS.top)
  if FLAGS.clusters:
    graph_def = graph_pb2.GraphDef()
    with tf.io.gfile.GFile(os.path.join(graph_dump, CLUSTERED_GRAPH)) as f:
      text_format.Parse(f.read(), graph_def)
    io_bytes = cluster_io_bytes(os.path.join(graph_dump, HLO_DUMP))
    report_clusters(times, cluster_members(graph_def), io_bytes,
                    FLAGS.profiled_steps, FLAGS.clusters)
    floor = step_floor(times, io_bytes, FLAGS.profiled_steps,
                       cpu_measurements.streaming_rate(FLAGS.stream_seconds))
    dtype = pretrain_throughput.compute_dtype(config.precision)
    peaks = cpu_measurements.matmul_peaks(
        dtype, FLAGS.peak_seconds, pretrain_throughput.optional_torch())
    best = max(peaks, key=peaks.get)
    report_floor(floor, FLAGS.batch_size *
                 sizes.pretraining_flops_per_sequence(config),
                 f"{dtype}, best of {', '.join(sorted(peaks))}: {best}",
                 peaks[best])


if __name__ == "__main__":
  app.run(main)
