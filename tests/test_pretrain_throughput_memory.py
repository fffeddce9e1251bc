"""benchmarks/pretrain_throughput.py --peak_memory: a row's peak resident
memory covers what its steps allocate, and not what came before them."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "benchmarks"))
import pretrain_throughput  # pylint: disable=g-import-not-at-top,wrong-import-position

MB = 2**20

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"),
                                reason="needs Linux's /proc peak reset")


def _row(step_mb, build_mb):
  """A row whose building holds `build_mb` and whose steps touch `step_mb`
  more, freed after each step."""
  def build():
    # Touched and freed before the steps: the reset peak must forget it.
    np.ones(build_mb * MB, np.uint8).sum()

    def step():
      np.ones(step_mb * MB, np.uint8).sum()
    return pretrain_throughput.Implementation("row", "test", step, "float32")
  return build


def test_the_peak_holds_the_steps_allocation_not_the_builds(monkeypatch):
  pretrain_throughput.FLAGS.mark_as_parsed()
  monkeypatch.setattr(pretrain_throughput.FLAGS, "warmup_steps", 0)
  small = pretrain_throughput.measure_row_memory(_row(20, 600))
  large = pretrain_throughput.measure_row_memory(_row(400, 600))
  for memory in (small, large):
    assert set(memory) == {"peak_mb", "imports_mb"}
  # 380 MB more touched per step shows up in the peak (within page noise),
  # while the 600 MB freed during the build does not.
  assert 330 < large["peak_mb"] - small["peak_mb"] < 430
  assert small["peak_mb"] - small["imports_mb"] < 300


def test_a_failing_row_reports_its_error():
  def build():
    def step():
      raise ValueError("out of memory, say")
    return pretrain_throughput.Implementation("row", "test", step, "float32")
  pretrain_throughput.FLAGS.mark_as_parsed()
  assert pretrain_throughput.measure_row_memory(build) == {
      "error": "ValueError: out of memory, say"}
