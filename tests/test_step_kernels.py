"""benchmarks/step_kernels.py sums the outermost kernels of the executor
threads, by kind, and the gaps between them."""

import os
import sys

import pytest
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


def test_cluster_runs_are_counted_in_bins_by_duration():
  bins = step_kernels.cluster_run_bins([0.01, 0.04, 0.3, 5.0, 40.0])
  assert [(upper, runs) for upper, runs, _ in bins] == [
      (0.05, 2), (0.2, 0), (0.5, 1), (1, 0), (2, 0), (5, 0),
      (float("inf"), 2)]
  assert bins[0][2] == pytest.approx(0.05)
  assert bins[-1][2] == pytest.approx(45.0)
