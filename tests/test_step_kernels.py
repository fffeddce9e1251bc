"""benchmarks/step_kernels.py sums the outermost kernels of the executor
threads, by kind, and the gaps between them."""

import os
import sys

import pytest
from tensorflow.core.framework import graph_pb2
from tensorflow.tsl.profiler.protobuf import xplane_pb2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "benchmarks"))
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
  step_kernels.report_clusters(
      {"cluster_9": 2.0, "cluster_7": 6.0, "cluster_4": 1.5,
       "cluster_3": 1.0}, members, steps=2, top=3)
  rows = [line for line in capsys.readouterr().out.splitlines()
          if line.startswith("| cluster_")]
  assert rows == [
      "| cluster_7 | 3.0 | 3 | Mul 2, Erf 1 | model/layer_0/gelu |",
      "| cluster_9 | 1.0 | 4 | Mul 2, Exp 1, Sum 1 | model/softmax |",
      "| cluster_4 | 0.8 | 1 | Sub 1 | (top level) |"]
