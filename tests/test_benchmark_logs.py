"""The benchmark numbers README and benchmarks/README.md quote are those of
the committed output of the run that measured them (benchmarks/logs/)."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THROUGHPUT_LOG = os.path.join(ROOT, "benchmarks", "logs",
                              "pretrain_throughput_2026-12-04.txt")
SECTION = "### Measured: both precisions in one run"


def _read(*path):
  with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
    return f.read()


def _flat(text):
  return " ".join(text.split())


@pytest.fixture(scope="module")
def log():
  with open(THROUGHPUT_LOG, encoding="utf-8") as f:
    return f.read()


def _tables(log):
  """{precision: {execution: (s/step median, speed vs PyTorch median)}}."""
  tables, precision = {}, None
  for line in log.splitlines():
    heading = re.match(r"(\w+): MFU is against", line)
    if heading:
      precision = heading.group(1)
    elif line.startswith("| ") and not line.startswith("| implementation"):
      cells = [c.strip() for c in line.strip("|").split("|")]
      tables.setdefault(precision, {})[cells[1]] = (
          float(cells[3].split()[0]), cells[7].split()[0])
  return tables


def _section():
  text = _read("benchmarks", "README.md")
  start = text.index(SECTION)
  return text[start:text.index("\n## ", start)]


def test_the_benchmarks_readme_tables_are_the_logged_ones(log):
  section = _section()
  rows = [l for l in section.splitlines()
          if l.startswith(("| electra-tf", "| HF"))]
  assert len(rows) == 6
  logged = log.splitlines()
  for row in rows:
    assert row in logged, row
  command = log.splitlines()[0].lstrip("$ ")
  assert f"`{command}`" in _flat(section).replace("` (", "`")
  assert "other processes used 0.01 cores" in log


def test_the_quoted_ratios_follow_from_the_log(log):
  tables = _tables(log)
  f32, bf16 = tables["float32"], tables["mixed_bfloat16"]
  fastest_f32 = f32["XLA (jit_compile)"][0]
  fastest_bf16 = bf16["XLA but matmuls (jit_compile_matmuls false)"][0]
  # bfloat16 with XLA but the matmuls is the fastest row of both tables.
  ours = [t for table in tables.values() for e, (t, _) in table.items()
          if e != "eager"]
  assert fastest_bf16 == min(ours)
  section = _flat(_section())
  assert (f"{fastest_bf16:.3f} s against {fastest_f32:.3f} s for float32 "
          f"with XLA ({fastest_f32 / fastest_bf16:.2f}x)") in section
  readme = _flat(_read("README.md"))
  f32_ratio = f32["XLA (jit_compile)"][1]
  bf16_ratio = bf16["XLA but matmuls (jit_compile_matmuls false)"][1]
  assert (f"XLA {fastest_f32:.3f} s/step, {f32_ratio} PyTorch's eager "
          f"{f32['eager'][0]:.3f}") in readme
  assert (f"{fastest_bf16:.3f} s/step, the fastest of all, {bf16_ratio} "
          f"PyTorch's eager bfloat16 step ({bf16['eager'][0]:.3f})") in readme
  assert f"{f32_ratio} in float32" in section
  assert f"{bf16_ratio} in bfloat16" in section
