"""benchmarks/step_kernels.py sums the outermost kernels of the executor
threads, by kind, and the gaps between them."""

import collections
import os
import sys

import pytest
from tensorflow.core.framework import graph_pb2
from tensorflow.tsl.profiler.protobuf import xplane_pb2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "benchmarks"))
import cpu_measurements  # pylint: disable=g-import-not-at-top,wrong-import-position
import step_kernels  # pylint: disable=g-import-not-at-top,wrong-import-position

MS = 10**9  # picoseconds


def _space():
  """One executor thread: a step's frame, a matmul, an XLA cluster (with a
  kernel nested inside it), an add left to TensorFlow; and an intra-op
  thread whose work is inside the cluster's time."""
  space = xplane_pb2.XSpace()
  plane = space.planes.add(name="/host:CPU")
  names = {1: "ExecutorState::Process", 2: "layer/dense/MatMul:_MklMatMul",
           3: "cluster_7_1/xla_compile:_XlaCompile",
           4: "cluster_7_1/xla_run:_XlaRun", 5: "inner/Cast:Cast",
           6: "layer/LayerNorm/add:AddV2", 7: "multiply_add_fusion"}
  for i, name in names.items():
    plane.event_metadata[i].name = name
  line = plane.lines.add(name="tf_Compute/123", timestamp_ns=1000)
  for metadata, start_ms, ms in ((1, 0, 30), (2, 0, 10), (3, 11, 1),
                                 (4, 12, 5), (5, 13, 1), (6, 20, 1)):
    line.events.add(metadata_id=metadata, offset_ps=start_ms * MS,
                    duration_ps=ms * MS)
  pool = plane.lines.add(name="tf_numa_-1_Eigen/9", timestamp_ns=1000)
  pool.events.add(metadata_id=7, offset_ps=12 * MS, duration_ps=4 * MS)
  return space


def test_kernels_are_summed_by_kind_with_the_gaps_between_them():
  times = step_kernels.kernel_times(_space())
  assert dict(times.ms) == pytest.approx({
      "matmul": 10, "XLA cluster launch": 1, "XLA cluster run": 5,
      "outside XLA: AddV2": 1, "executor gaps": 1 + 0 + 3})
  assert times.count["executor gaps"] == 3
  assert times.count["XLA cluster run"] == 1
  assert times.span_ms == pytest.approx(21)
  assert times.cluster_runs_ms == pytest.approx([5])
  assert dict(times.ms_by_cluster) == pytest.approx({"cluster_7": 5})
  assert times.runs_by_cluster == {"cluster_7": 1}


def test_cluster_runs_are_counted_in_bins_by_duration():
  bins = step_kernels.cluster_run_bins([0.01, 0.04, 0.3, 5.0, 40.0])
  assert [(upper, runs) for upper, runs, _ in bins] == [
      (0.05, 2), (0.2, 0), (0.5, 1), (1, 0), (2, 0), (5, 0),
      (float("inf"), 2)]
  assert bins[0][2] == pytest.approx(0.05)
  assert bins[-1][2] == pytest.approx(45.0)


def test_clusters_are_listed_longest_first_with_their_ops(capsys):
  graph = graph_pb2.GraphDef()
  for cluster, op, name in (
      ("cluster_7", "Erf", "model/layer_0/gelu/Erf"),
      ("cluster_7", "Mul", "model/layer_0/gelu/mul"),
      ("cluster_7", "Mul", "model/layer_0/gelu/mul_1"),
      ("cluster_7", "Const", "model/layer_0/gelu/Const"),
      ("cluster_9", "Exp", "model/softmax/Exp"),
      ("cluster_9", "Mul", "mul_3"), ("cluster_9", "Mul", "mul_4"),
      ("cluster_4", "Sub", "sub_1")):
    node = graph.node.add(op=op, name=name)
    node.attr["_XlaCluster"].s = cluster.encode()
  graph.node.add(op="MatMul", name="model/layer_0/dense/MatMul")
  inside = graph.library.function.add().node_def.add(op="Sum", name="grad/Sum")
  inside.attr["_XlaCluster"].s = b"cluster_9"
  members = step_kernels.cluster_members(graph)
  assert sorted(members) == ["cluster_4", "cluster_7", "cluster_9"]
  assert ("Sum", "grad/Sum") in members["cluster_9"]
  times = step_kernels.KernelTimes(
      ms=collections.Counter(), count=collections.Counter(), span_ms=0,
      cluster_runs_ms=[],
      ms_by_cluster={"cluster_9": 2.0, "cluster_7": 6.0, "cluster_4": 1.5,
                     "cluster_3": 1.0},
      runs_by_cluster=collections.Counter(
          {"cluster_9": 2, "cluster_7": 2, "cluster_4": 2, "cluster_3": 2}))
  io_bytes = {"cluster_7": 12e6, "cluster_9": 3e6}  # cluster_4: no module
  step_kernels.report_clusters(times, members, io_bytes, steps=2, top=3)
  rows = [line for line in capsys.readouterr().out.splitlines()
          if line.startswith("| cluster_")]
  assert rows == [
      "| cluster_7 | 3.0 | 12.0 | 4.0 | 3 | Mul 2, Erf 1 | "
      "model/layer_0/gelu |",
      "| cluster_9 | 1.0 | 3.0 | 3.0 | 4 | Mul 2, Exp 1, Sum 1 | "
      "model/softmax |",
      "| cluster_4 | 0.8 | ? | ? | 1 | Sub 1 | (top level) |"]


def test_layout_bytes_counts_every_array_by_its_element_type():
  layout = ("(bf16[32,128,256]{2,1,0}, f32[256]{0}, pred[4]{0}, f32[])"
            "->(bf16[8,4]{1,0}, s32[3]{0})")
  assert step_kernels.layout_bytes(layout) == (
      32 * 128 * 256 * 2 + 256 * 4 + 4 + 4 + 8 * 4 * 2 + 3 * 4)
  with pytest.raises(ValueError, match="'c64'"):
    step_kernels.layout_bytes("(c64[2]{0})->f32[2]{0}")


def _module(directory, name, layout):
  (directory / name).write_text(
      f"HloModule m, entry_computation_layout={{{layout}}}\n\nENTRY ...\n")


def test_cluster_bytes_come_from_the_latest_optimized_module(tmp_path):
  suffix = "__XlaCompiledKernel_true__XlaNumResourceArgs_0_.1."
  _module(tmp_path, f"module_0003.cluster_7{suffix}cpu_after_optimizations"
          ".txt", "(f32[10]{0})->f32[10]{0}")
  _module(tmp_path, f"module_0012.cluster_7{suffix}cpu_after_optimizations"
          ".txt", "(bf16[10]{0})->bf16[10]{0}")  # compiled again, later
  _module(tmp_path, f"module_0004.cluster_9{suffix}cpu_after_optimizations"
          ".txt", "(f32[4,4]{1,0}, f32[4]{0})->f32[4,4]{1,0}")
  _module(tmp_path, f"module_0004.cluster_9{suffix}before_optimizations.txt",
          "(f32[99]{0})->f32[99]{0}")
  _module(tmp_path, f"module_0004.cluster_9{suffix}cpu_after_optimizations"
          "-buffer-assignment.txt", "(f32[99]{0})->f32[99]{0}")
  assert step_kernels.cluster_io_bytes(str(tmp_path)) == {
      "cluster_7": 40, "cluster_9": 144}
  (tmp_path / f"module_0013.cluster_7{suffix}cpu_after_optimizations.txt"
   ).write_text("HloModule m\n")
  with pytest.raises(ValueError, match="module_0013.*no entry_computation"):
    step_kernels.cluster_io_bytes(str(tmp_path))


def test_the_floor_is_the_matmuls_plus_the_cluster_bytes_at_the_stream_rate(
    capsys):
  times = step_kernels.KernelTimes(
      ms=collections.Counter({"matmul": 800.0, "XLA cluster run": 1400.0}),
      count=collections.Counter(), span_ms=0, cluster_runs_ms=[],
      ms_by_cluster={}, runs_by_cluster=collections.Counter(
          {"cluster_7": 2, "cluster_9": 4}))
  floor = step_kernels.step_floor(
      times, {"cluster_7": 1e9, "cluster_9": 0.5e9, "cluster_5": 7e9},
      steps=2, stream_bytes_per_s=10e9)
  assert floor.matmul_ms == 400 and floor.cluster_ms == 700
  assert floor.cluster_bytes == 2e9  # (2 x 1 GB + 4 x 0.5 GB) / 2 steps
  assert floor.cluster_floor_ms == pytest.approx(200)
  assert floor.ms == pytest.approx(600)
  step_kernels.report_floor(floor, 288e9, "bfloat16: torch", 2000e9)
  out = capsys.readouterr().out
  assert "2000 MB read and written per step in 700.0 ms, 2.9 GB/s" in out
  assert "10.0 GB/s, at which they would take 200.0 ms" in out
  assert ("matmuls as run 400.0 ms + clusters at the streaming rate 200.0 "
          "ms = 600.0 ms per step; 288.0 model GFLOP in that time: 480 "
          "GFLOP/s, 24.0% of the matmul peak (bfloat16: torch, 2000 GFLOP/s)"
          in out)
  with pytest.raises(ValueError, match=r"1 cluster\(s\).*'cluster_9'"):
    step_kernels.step_floor(times, {"cluster_7": 1e9}, 2, 10e9)


def test_the_streaming_rate_counts_what_each_pass_reads_and_writes(
    monkeypatch):
  monkeypatch.setattr(cpu_measurements, "STREAM_BUFFER_ELEMENTS", 1024)
  monkeypatch.setattr(cpu_measurements, "STREAM_BUFFERS", 3)
  calls = []

  def fake_best_rate(fn, work_per_call, seconds):
    fn()
    calls.append((work_per_call, seconds))
    return 1.0

  monkeypatch.setattr(cpu_measurements, "best_rate", fake_best_rate)
  assert cpu_measurements.streaming_rate(0.5) == 1.0
  assert calls == [(3 * 2 * 4 * 1024, 0.5)]
