"""The benchmark numbers README and benchmarks/README.md quote are those of
the committed output of the run that measured them (benchmarks/logs/)."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THROUGHPUT_LOG = os.path.join(ROOT, "benchmarks", "logs",
                              "pretrain_throughput_2026-12-06.txt")
SECTION = "### Measured: one-hot masked-LM loss and erf GELU"
# Earlier runs of the same command that benchmarks/README.md still shows.
EARLIER_THROUGHPUT = {"### Measured: hand-written gradients in bfloat16":
                          "pretrain_throughput_2026-12-05.txt",
                      "### Measured: both precisions in one run":
                          "pretrain_throughput_2026-12-04.txt"}
# Two runs of the command on an AMD EPYC, minutes apart: benchmarks/README.md's
# section shows the first's tables and quotes both; README's table is the
# first's.
AMD_SECTION = "### Measured: both precisions on an AMD EPYC, twice"
AMD_LOGS = ("pretrain_throughput_amd_2026-12-06.txt",
            "pretrain_throughput_amd_2026-12-06_second.txt")
# A second run of the command on the same code, quoted in SECTION's prose.
SAME_CODE_RUN = "pretrain_throughput_2026-12-06_first.txt"


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
  tables = {}
  for (precision, execution), cells in _table_rows(log).items():
    tables.setdefault(precision, {})[execution] = (
        float(cells[3].split()[0]), cells[7].split()[0])
  return tables


def _section(heading=SECTION):
  """benchmarks/README.md from `heading` to the next heading."""
  text = _read("benchmarks", "README.md")
  start = text.index(heading)
  return text[start:re.search(r"\n##+ ", text[start + 1:]).start() + start + 1]


def _log(name):
  return _read("benchmarks", "logs", name)


def _table_rows(log):
  """{(precision, execution): cells} of every table row of a
  pretrain_throughput log."""
  rows, precision = {}, None
  for line in log.splitlines():
    heading = re.match(r"(\w+): MFU is against", line)
    if heading:
      precision = heading.group(1)
    elif line.startswith("| ") and not line.startswith("| implementation"):
      cells = [c.strip() for c in line.strip("|").split("|")]
      rows[(precision, cells[1])] = cells
  return rows


SCALING_2026_12_04 = ("### Measured: sequence length 512 and ELECTRA-Base, "
                      "with peak memory (2026-12-04")
# README's scaling rows: {table title: (benchmarks/README.md section, log)}.
SCALING = {"ELECTRA-Small, batch 8 x 512":
               (SCALING_2026_12_04, "pretrain_throughput_seq512_2026-12-04.txt"),
           "ELECTRA-Base, batch 8 x 128":
               ("### Measured: ELECTRA-Base again, with peak memory",
                "pretrain_throughput_base_2026-12-06.txt")}
# Tables benchmarks/README.md still shows from earlier runs.
EARLIER_SCALING = {"ELECTRA-Base, batch 8 x 128":
                       (SCALING_2026_12_04,
                        "pretrain_throughput_base_2026-12-04.txt")}
# The same two commands on an AMD EPYC, in one section and in README's table.
AMD_SCALING_SECTION = ("### Measured: sequence length 512 and ELECTRA-Base "
                       "on an AMD EPYC")
AMD_SCALING = {"ELECTRA-Small, batch 8 x 512":
                   (AMD_SCALING_SECTION,
                    "pretrain_throughput_seq512_amd_2026-12-06.txt"),
               "ELECTRA-Base, batch 8 x 128":
                   (AMD_SCALING_SECTION,
                    "pretrain_throughput_base_amd_2026-12-06.txt")}
# README's scaling rows: {row label: log}.
README_SCALING_ROWS = {
    "ELECTRA-Small, 8 x 512": SCALING["ELECTRA-Small, batch 8 x 512"][1],
    "ELECTRA-Base, 8 x 128": SCALING["ELECTRA-Base, batch 8 x 128"][1],
    "ELECTRA-Small, 8 x 512, AMD EPYC":
        AMD_SCALING["ELECTRA-Small, batch 8 x 512"][1],
    "ELECTRA-Base, 8 x 128, AMD EPYC":
        AMD_SCALING["ELECTRA-Base, batch 8 x 128"][1]}
XLA, FUSED = "XLA (jit_compile)", "XLA but matmuls (jit_compile_matmuls false)"
SCALING_ROWS = {"electra-tf, XLA": XLA,
                "electra-tf, XLA but matmuls": FUSED,
                "HF transformers, eager": "eager"}


def _scaling_cell(cells):
  """'s/step, ratio, peak (above imports)' as the README tables put it."""
  return (f"{cells[3].split()[0]}, {cells[7].split()[0]}, "
          f"{cells[8]}")


def _check_scaling_table(title, heading, name):
  section = _section(heading)
  log = _log(name)
  assert _background_cores(log) <= 0.05, name
  command = log.splitlines()[0].lstrip("$ ")
  assert command.startswith("python benchmarks/pretrain_throughput.py")
  assert f"`benchmarks/logs/{name}`" in section
  logged = _table_rows(log)
  table = section[section.index(title.split(",")[0] + ", batch"):]
  for row_name, execution in SCALING_ROWS.items():
    expected = (f"| {row_name} | "
                f"{_scaling_cell(logged[('float32', execution)])} | "
                f"{_scaling_cell(logged[('mixed_bfloat16', execution)])} |")
    assert expected in table, expected


def _peak_gb(cells):
  return float(cells[8].split()[0]) / 1000


def test_the_scaling_tables_are_the_logged_ones():
  for table in (SCALING, EARLIER_SCALING, AMD_SCALING):
    for title, (heading, name) in table.items():
      _check_scaling_table(title, heading, name)
  readme = _flat(_read("README.md"))
  gaps = []
  for label, name in README_SCALING_ROWS.items():
    rows = _table_rows(_log(name))
    f32, bf16 = rows[("float32", XLA)], rows[("mixed_bfloat16", FUSED)]
    ours = [_peak_gb(c) for k, c in rows.items() if k[1] != "eager"]
    theirs = [_peak_gb(c) for k, c in rows.items() if k[1] == "eager"]
    expected = (f"| {label} | {f32[3].split()[0]} s, {f32[7].split()[0]} | "
                f"{bf16[3].split()[0]} s, {bf16[7].split()[0]} | "
                f"{min(ours):.1f}-{max(ours):.1f} / "
                f"{min(theirs):.1f}-{max(theirs):.1f} GB |")
    assert expected in readme.replace("**", ""), expected
    for (precision, execution), cells in rows.items():
      if execution != "eager":
        gaps.append(_peak_gb(cells) - _peak_gb(rows[(precision, "eager")]))
  assert (f"Our steps hold {min(gaps):.1f}-{max(gaps):.1f} GB more memory "
          "than PyTorch's of the same precision") in readme
  base = _table_rows(_log(SCALING["ELECTRA-Base, batch 8 x 128"][1]))
  bf16 = base[("mixed_bfloat16", FUSED)]
  assert (f"for ELECTRA-Base it is "
          f"{base[('float32', XLA)][7].split()[0]} in float32 "
          f"and {bf16[7].split()[0]} in bfloat16, whose step reaches "
          f"{bf16[6].split()[0]} of the bfloat16 matmul peak") in readme


BUILDER_SECTIONS = {
    "2026-12-06": "### Measured: 10 MB of prose, median of 5 builds",
    "2026-12-04": "### Measured on 2026-12-04: 10 MB of prose",
    "amd_2026-12-06": "### Measured: 10 MB of prose on an AMD EPYC",
}
# The Xeon's builder logs README quotes first; the AMD EPYC's after them.
README_BUILDER, README_AMD_BUILDER = "2026-12-06", "amd_2026-12-06"


def _builder_log(corpus, date):
  """The reference's and ours' table cells of a builder log, and ours'
  walls of every build."""
  log = _log(f"data_prep_throughput_{corpus}_{date}.txt")
  rows = {}
  for line in log.splitlines():
    if line.startswith(("| reference", "| electra-tf")):
      cells = [c.strip() for c in line.strip("|").split("|")]
      rows[cells[0].split()[0]] = cells
  walls = re.search(r"- electra-tf, 1 process\(es\): (.*)", log).group(1)
  return rows["reference"], rows["electra-tf"], walls


@pytest.mark.parametrize("date", sorted(BUILDER_SECTIONS))
def test_the_builder_numbers_on_10_mb_are_the_logged_ones(date):
  section = _flat(_section(BUILDER_SECTIONS[date])).replace("**", "")
  for corpus in ("sotu", "wordnet"):
    reference, ours, walls = _builder_log(corpus, date)
    assert f"| {reference[2]} | {ours[2]} | {ours[7]} | {walls} |" in section
    if len(ours) > 8:  # imports timed apart (logs since 2026-12-06)
      assert (f"| {reference[8]} / {ours[8]} | {ours[9]} |") in section


def test_the_readme_quotes_the_latest_builder_numbers():
  readme = _flat(_read("README.md")).replace("**", "")
  latest = README_BUILDER
  speedups = {corpus: _builder_log(corpus, latest)[1] for corpus in
              ("sotu", "wordnet")}
  assert (f"{speedups['sotu'][7]} on the State of the Union speeches and "
          f"{speedups['wordnet'][7]} on WordNet's") in readme
  assert (f"{speedups['sotu'][9]} and {speedups['wordnet'][9]} ") in readme
  assert f"median of 5 builds each ({latest}, same" in readme
  for corpus in ("sotu", "wordnet"):
    assert float(speedups[corpus][7].rstrip("x")) >= 10
  amd = {corpus: _builder_log(corpus, README_AMD_BUILDER)[1]
         for corpus in ("sotu", "wordnet")}
  assert (f"On the AMD EPYC (2026-12-06, same commands): {amd['sotu'][7]} on "
          f"the speeches and {amd['wordnet'][7]} on the glosses; counting the "
          f"imports, {amd['sotu'][9]} and {amd['wordnet'][9]}.") in readme
  for corpus in ("sotu", "wordnet"):
    assert float(amd[corpus][7].rstrip("x")) >= 10


@pytest.mark.parametrize("heading,log_name", [
    (SECTION, os.path.basename(THROUGHPUT_LOG)),
    (AMD_SECTION, AMD_LOGS[0]),
    *EARLIER_THROUGHPUT.items()])
def test_the_benchmarks_readme_tables_are_the_logged_ones(heading, log_name):
  section, log = _section(heading), _log(log_name)
  rows = [l for l in section.splitlines()
          if l.startswith(("| electra-tf", "| HF"))]
  assert len(rows) == 6
  logged = log.splitlines()
  for row in rows:
    assert row in logged, row
  command = log.splitlines()[0].lstrip("$ ")
  assert f"`{command}`" in _flat(section).replace("` (", "`")
  assert _background_cores(log) <= 0.05


def _background_cores(log):
  """The cores other processes used while a log's steps were timed."""
  return float(re.search(r"other processes used ([\d.]+) cores", log)
               .group(1))


def test_the_same_code_run_quoted_beside_the_section_is_the_logged_one():
  log = _log(SAME_CODE_RUN)
  f32, bf16 = (_tables(log)[p] for p in ("float32", "mixed_bfloat16"))
  fused = "XLA but matmuls (jit_compile_matmuls false)"
  quoted = (f"XLA {f32['XLA (jit_compile)'][0]:.3f} s/step, "
            f"{f32['XLA (jit_compile)'][1]}; bfloat16 with XLA but matmuls "
            f"{bf16[fused][0]:.3f} s/step, {bf16[fused][1]}.")
  assert quoted in _flat(_section())
  assert f"`benchmarks/logs/{SAME_CODE_RUN}`" in _flat(_section())
  assert _background_cores(log) <= 0.05
  assert log.splitlines()[0] == _log(os.path.basename(THROUGHPUT_LOG)
                                     ).splitlines()[0]


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
  f32_ratio = f32["XLA (jit_compile)"][1]
  bf16_ratio = bf16["XLA but matmuls (jit_compile_matmuls false)"][1]
  assert f"{f32_ratio} in float32" in section
  assert f"{bf16_ratio} in bfloat16" in section


def _serving_p50(threads, name="serving_latency_threads_{}_2026-12-04.txt"):
  """{(implementation, batch): p50 ms as printed} of a serving log."""
  log = _log(name.format(threads))
  rows = {}
  for line in log.splitlines():
    cells = [c.strip() for c in line.strip("|").split("|")]
    if line.startswith("| ") and cells[1].isdigit():
      rows[(cells[0], int(cells[1]))] = cells[2]
      rows[(cells[0], int(cells[1]), "p50 / ours")] = cells[5]
  return rows


def test_the_serving_thread_numbers_are_the_logged_ones():
  one, two = _serving_p50(1), _serving_p50(2)
  section = _section("### Measured: one thread against two")
  for name in ("ours (SavedModel, raw text)",
               "ours, exported with --jit_compile (XLA)",
               "HF transformers pipeline (PyTorch)"):
    assert (f"| {name} | {one[(name, 1)]} | {two[(name, 1)]} | "
            f"{one[(name, 32)]} | {two[(name, 32)]} |") in section, name
  ours, xla, hf = ("ours (SavedModel, raw text)",
                   "ours, exported with --jit_compile (XLA)",
                   "HF transformers pipeline (PyTorch)")

  def ratio(rows, name, batch):
    return f"{float(rows[(hf, batch)]) / float(rows[(name, batch)]):.2f}x"
  flat = _flat(section)
  # The log's own ratio, from unrounded times.
  assert one[(hf, 1, "p50 / ours")] == one[(hf, 32, "p50 / ours")] == "1.16"
  assert "(1.16x at batch 1 and at batch 32)" in flat
  assert (f"({ratio(one, xla, 1)}, {ratio(one, xla, 32)})") in flat
  assert f"({two[(xla, 1)]} ms, {ratio(two, xla, 1)} the pipeline's" in flat
  assert f"({ratio(two, ours, 32)} the pipeline with two threads)" in flat
  assert float(one[(ours, 1)]) < float(one[(hf, 1)])


XLA_DEFAULT_LOG = "serving_latency_xla_default_threads_{}_2026-12-04.txt"
SERVING_README_ROWS = {
    "ours, default export (XLA)": "electra-tf, default export (XLA)",
    "ours, --nojit_compile export (plain graph)":
        "electra-tf, `--nojit_compile` export",
    "HF transformers pipeline (PyTorch)": "HF transformers pipeline"}


def test_the_readme_serving_table_is_the_logged_one():
  one, two = _serving_p50(1, XLA_DEFAULT_LOG), _serving_p50(2, XLA_DEFAULT_LOG)
  hf = "HF transformers pipeline (PyTorch)"
  readme = _read("README.md")
  for batch in (1, 32):
    for name, label in SERVING_README_ROWS.items():
      ratios = [float(rows[(hf, batch)]) / float(rows[(name, batch)])
                for rows in (one, two)]
      cells = [f"{one[(name, batch)]} ms", f"{ratios[0]:.2f}x",
               f"{two[(name, batch)]} ms", f"{ratios[1]:.2f}x"]
      row = "| ".join(f"{c} " for c in [label, str(batch)])
      got = next(line for line in readme.splitlines()
                 if line.startswith(f"| {row}|"))
      assert [c.strip().strip("*") for c in got.strip("|").split("|")[2:]] == (
          cells), got
  default = "ours, default export (XLA)"
  # Ahead everywhere but at batch 1 on two threads, as README says.
  for rows, batch in ((one, 1), (one, 32), (two, 32)):
    assert float(rows[(default, batch)]) < float(rows[(hf, batch)])
  assert float(two[(default, 1)]) > float(two[(hf, 1)])
  flat = _flat(readme)
  short = _serving_p50(
      2, "serving_latency_xla_default_threads_{}_calls200_2026-12-04.txt")
  assert (f"measured the two level at {short[(default, 1)]} and "
          f"{short[(hf, 1)]} ms") in flat
  assert "ahead of the pipeline everywhere but at batch 1 on two threads" in (
      flat)
  section = _section("### Measured: XLA as the default export")
  for name in SERVING_README_ROWS:
    assert (f"| {name} | {one[(name, 1)]} | {two[(name, 1)]} | "
            f"{one[(name, 32)]} | {two[(name, 32)]} |") in section, name
  assert f"({short[(default, 1)]} against {short[(hf, 1)]} ms;" in _flat(
      section)


def _breakdown_tables(name):
  """{(precision, execution): {phase: (seconds, share of peak)}} of a
  step_breakdown log, with the whole step, the backward share and the
  matmul peak."""
  phases = {}
  for block in _log(name).split("\n\n"):
    precision = re.search(r"^(\w+), ([^:\n]+): full step ([\d.]+) s "
                          r"\(matmul peak (\d+)", block, re.M)
    if not precision:
      continue
    rows = {}
    for line in block.splitlines():
      cells = [c.strip() for c in line.strip("|").split("|")]
      if line.startswith("| ") and cells[0] not in ("phase", "---"):
        rows[cells[0]] = (cells[1], cells[5])
    rows["whole"] = (precision.group(3), "-")
    rows["backward share"] = re.search(r"^\| backward \| [\d.]+ \| (\d+%)",
                                       block, re.M).group(1)
    rows["peak"] = precision.group(4)
    phases[precision.group(1, 2)] = rows
  return phases


def _breakdown(name):
  """{precision: rows} of a step_breakdown log's xla_but_matmuls tables."""
  return {precision: rows for (precision, execution), rows
          in _breakdown_tables(name).items()
          if execution == "xla_but_matmuls"}


BREAKDOWN_PHASES = {"masking": "masking", "generator": "generator forward",
                    "sampling": "sampling",
                    "discriminator": "discriminator forward",
                    "backward": "backward + gradient norm",
                    "update": "clip + AdamW + metrics", "whole": "whole step"}
XEON_BREAKDOWN = ("### Measured: XLA for all but the matmuls (2026-12-04",
                  "step_breakdown_xla_but_matmuls_2026-12-04.txt")
AMD_BREAKDOWN = ("### Measured: XLA for all but the matmuls on an AMD EPYC",
                 "step_breakdown_xla_but_matmuls_amd_2026-12-06.txt")


@pytest.mark.parametrize("heading,name", [XEON_BREAKDOWN, AMD_BREAKDOWN])
def test_the_xla_but_matmuls_breakdown_is_the_logged_one(heading, name):
  phases = _breakdown(name)
  section = _section(heading)
  for logged, shown in BREAKDOWN_PHASES.items():
    cells = []
    for precision in ("float32", "mixed_bfloat16"):
      seconds, share = phases[precision][logged]
      cells.append(seconds if share == "-" else f"{seconds} ({share})")
    line = next(l for l in section.splitlines() if l.startswith(f"| {shown}"))
    assert line.endswith(f"| {cells[0]} | {cells[1]} |"), line
  assert (f"({phases['float32']['peak']} GFLOP/s float32, "
          f"{phases['mixed_bfloat16']['peak']} bfloat16 in this run)"
          ) in _flat(section)
  assert f"`benchmarks/logs/{name}`" in _flat(section)


SAMPLERS_SECTION = ("### Measured: inverse-CDF sampling, both precisions on "
                    "an AMD EPYC")
SAMPLERS_LOG = "pretrain_throughput_samplers_amd_2026-12-07.txt"
CDF = ", inverse_cdf sampling"
# The rows the inverse-CDF runs quote: bfloat16's fastest step, float32's.
BF16_FUSED_CDF = ("mixed_bfloat16", FUSED + CDF)
F32_XLA_CDF = ("float32", XLA + CDF)


def test_the_samplers_throughput_is_the_logged_one():
  log = _log(SAMPLERS_LOG)
  section = _section(SAMPLERS_SECTION)
  table_lines = [l for l in log.splitlines()
                 if l.startswith("| electra-tf") or l.startswith("| HF")]
  assert len(table_lines) == 10
  for line in table_lines:
    assert line in section.splitlines(), line
  rows = _table_rows(log)
  seconds = {key: float(cells[3].split()[0]) for key, cells in rows.items()}
  flat = _flat(section)
  for precision, mode, words in (
      ("mixed_bfloat16", FUSED, "the bfloat16 step with XLA but matmuls took"),
      ("float32", XLA, "the float32 step with XLA")):
    cdf, gumbel = seconds[(precision, mode + CDF)], seconds[(precision, mode)]
    assert (f"{words} {cdf:.3f} s against {gumbel:.3f} s "
            f"({1 - cdf / gumbel:.1%} less)") in flat, (words, cdf, gumbel)
  assert (f"did not move ({seconds[('float32', FUSED + CDF)]:.3f} against "
          f"{seconds[('float32', FUSED)]:.3f} s)") in flat
  best = rows[BF16_FUSED_CDF]
  assert min(seconds[k] for k in seconds if k[0] == "mixed_bfloat16") == (
      seconds[BF16_FUSED_CDF])
  assert (f"{best[7].split()[0]} PyTorch's eager bfloat16 step by the median "
          f"({best[7].split()[1].strip('()')} by the minimum") in flat
  assert f"at {best[6].split()[0]} of the bfloat16 matmul peak" in flat
  f32 = rows[F32_XLA_CDF][7]
  assert (f"XLA with inverse-CDF sampling is {f32.split()[0]} "
          f"({f32.split()[1].strip('()')})") in flat
  assert f"`benchmarks/logs/{SAMPLERS_LOG}`" in flat
  bf16 = rows[BF16_FUSED_CDF][7].split()
  assert (f"made that step {seconds[BF16_FUSED_CDF]:.3f} s "
          f"against {seconds[('mixed_bfloat16', FUSED)]:.3f} s in one run on "
          f"the AMD EPYC (2026-12-07), {bf16[0]} PyTorch's eager bfloat16 "
          f"step of the same run by the median and {bf16[1].strip('()')} by "
          "the minimum") in _flat(_read("README.md"))
  assert (f"float32 with XLA took {seconds[F32_XLA_CDF]:.3f} s, "
          f"{f32.split()[0]}") in _flat(_read("README.md"))


SAMPLERS_BREAKDOWN = (
    "### Measured: inverse-CDF sampling on an AMD EPYC",
    "step_breakdown_samplers_amd_2026-12-07.txt")


def test_the_samplers_breakdown_is_the_logged_one():
  tables = _breakdown_tables(SAMPLERS_BREAKDOWN[1])
  columns = [(precision, execution + sampler)
             for precision, execution in (("mixed_bfloat16",
                                           "xla_but_matmuls"),
                                          ("float32", "xla"))
             for sampler in ("", ", inverse_cdf sampling")]
  assert sorted(tables) == sorted(columns)
  section = _section(SAMPLERS_BREAKDOWN[0])
  for logged, shown in BREAKDOWN_PHASES.items():
    cells = " | ".join(tables[column][logged][0] for column in columns)
    line = next(l for l in section.splitlines()
                if l.startswith(f"| {shown}"))
    assert line.endswith(f" | {cells} |"), line
  bf16, bf16_cdf, f32, f32_cdf = (tables[c]["sampling"][0] for c in columns)
  assert (f"takes sampling from {bf16} to {bf16_cdf} s per step in bfloat16 "
          f"and from {f32} to {f32_cdf} s in float32") in _flat(section)
  assert (f"takes sampling from {bf16} to {bf16_cdf} s per ELECTRA-Small step "
          f"in bfloat16 and from {f32} to {f32_cdf} s in float32"
          ) in _flat(_read("README.md"))
  assert f"`benchmarks/logs/{SAMPLERS_BREAKDOWN[1]}`" in _flat(section)
  assert tables[columns[2]]["update"][0].startswith("-")
  shares = [(float(tables[gumbel]["sampling"][0])
             - float(tables[cdf]["sampling"][0]))
            / float(tables[gumbel]["whole"][0])
            for gumbel, cdf in ((columns[2], columns[3]),
                                (columns[0], columns[1]))]
  assert (f"at {shares[0]:.1%} and {shares[1]:.1%} of the step"
          in _flat(section))


def test_the_breakdown_prose_follows_from_the_logs():
  xeon = _breakdown(XEON_BREAKDOWN[1])["mixed_bfloat16"]
  assert (f"the backward pass is {xeon['backward share']} of the step"
          in _flat(_section(XEON_BREAKDOWN[0])))
  assert f"reaches {xeon['generator'][1]}" in _flat(_section(XEON_BREAKDOWN[0]))
  amd = _breakdown(AMD_BREAKDOWN[1])["mixed_bfloat16"]
  section = _flat(_section(AMD_BREAKDOWN[0]))
  assert (f"the bfloat16 backward pass runs at {amd['backward'][1]} of "
          f"oneDNN's bfloat16 peak, against {xeon['backward'][1]} on the Xeon"
          ) in section
  assert (f"({amd['backward'][0]} s here, {xeon['backward'][0]} s there"
          ) in section
  backward_gflop = 191.7
  assert (f"its {backward_gflop} GFLOP of matmuls take "
          f"{backward_gflop / int(amd['peak']):.2f} s, at the Xeon's "
          f"({xeon['peak']} GFLOP/s) {backward_gflop / int(xeon['peak']):.2f} s"
          ) in section
  small = sum(float(amd[p][0]) for p in ("masking", "sampling", "update"))
  assert (f"together are {round(100 * small / float(amd['whole'][0]))}% of the "
          "bfloat16 step") in section


def test_the_2026_12_06_serving_numbers_are_the_logged_ones():
  name = "serving_latency_threads_{}_2026-12-06.txt"
  one, two = _serving_p50(1, name), _serving_p50(2, name)
  short = _serving_p50(2, "serving_latency_threads_{}_calls200_2026-12-06.txt")
  section = _section("### Measured: after the ASCII tokenizer road")
  for row in SERVING_README_ROWS:
    assert (f"| {row} | {one[(row, 1)]} | {two[(row, 1)]} | "
            f"{one[(row, 32)]} | {two[(row, 32)]} |") in section, row
  default, hf = "ours, default export (XLA)", "HF transformers pipeline (PyTorch)"
  for rows in (one, two):
    for batch in (1, 32):
      assert float(rows[(default, batch)]) < float(rows[(hf, batch)])
  flat = _flat(section)
  assert f"by 3% ({two[(default, 1)]} against {two[(hf, 1)]} ms)" in flat
  assert f"({short[(default, 1)]} against {short[(hf, 1)]} ms;" in flat
  assert (f"by 3% ({two[(default, 1)]} against {two[(hf, 1)]} ms)") in _flat(
      _read("README.md"))


def _ratios(cells):
  """(median, min) of a row's speed against PyTorch, as printed."""
  median, minimum = cells[7].split()
  return median, minimum.strip("()")


def _peaks(log, precision):
  return re.search(rf"matmul peak {precision} .*: TF/XLA (\d+), "
                   rf"TF/oneDNN (\d+), torch (\d+)", log).groups()


def test_the_amd_runs_are_quoted_as_logged():
  logs = [_log(name) for name in AMD_LOGS]
  runs = [_table_rows(log) for log in logs]
  assert all(_background_cores(log) <= 0.05 for log in logs)
  assert logs[0].splitlines()[0] == logs[1].splitlines()[0]
  section = _flat(_section(AMD_SECTION))
  f32 = [_ratios(rows[("float32", XLA)]) for rows in runs]
  bf16 = [_ratios(rows[("mixed_bfloat16", FUSED)]) for rows in runs]
  assert (f"float32 with XLA {f32[0][0]} and {f32[1][0]} ({f32[0][1]} and "
          f"{f32[1][1]} by the minimum), bfloat16 with XLA but matmuls "
          f"{bf16[0][0]} and {bf16[1][0]} ({bf16[0][1]} and {bf16[1][1]} by "
          f"the minimum)") in section
  # "Both precisions are at least 1.5x ... in both runs".
  assert min(float(r[0].rstrip("x")) for r in f32 + bf16) >= 1.5
  fastest = []
  for rows in runs:
    times = {key: float(cells[3].split()[0]) for key, cells in rows.items()}
    ours = [t for (_, execution), t in times.items() if execution != "eager"]
    assert times[("mixed_bfloat16", FUSED)] == min(ours)
    fastest.append((times[("mixed_bfloat16", FUSED)], times[("float32", XLA)]))
  (b1, f1), (b2, f2) = fastest
  assert (f"{b1:.3f} s against {f1:.3f} s for float32 with XLA "
          f"({f1 / b1:.2f}x) in the first run, {b2:.3f} s against {f2:.3f} s "
          f"({f2 / b2:.2f}x) in the second") in section
  mfu = [rows[("mixed_bfloat16", FUSED)][6].split()[0] for rows in runs]
  assert (f"It reaches {mfu[0]} of the bfloat16 matmul peak ({mfu[1]} in the "
          "second run)") in section
  assert all(int(m.rstrip("%")) >= 25 for m in mfu)
  first = runs[0]
  assert (f"({first[('mixed_bfloat16', XLA)][3].split()[0]} against "
          f"{first[('float32', XLA)][3].split()[0]} s)") in section
  f32_peaks, bf16_peaks = (_peaks(logs[0], p) for p in ("float32", "bfloat16"))
  assert (f"float32 XLA {f32_peaks[0]}, TF oneDNN {f32_peaks[1]}, torch "
          f"{f32_peaks[2]} GFLOP/s; bfloat16 XLA {bf16_peaks[0]}, TF oneDNN "
          f"{bf16_peaks[1]}, torch {bf16_peaks[2]} GFLOP/s") in section
  assert (f"({bf16_peaks[0]} against {f32_peaks[0]} GFLOP/s)") in section
  eager = [rows[("float32", "eager")][3].split() for rows in runs]
  assert (f"(median {eager[0][0]} s, minimum {eager[0][1].strip('()')} s) "
          f"and less in the second ({eager[1][0]} s, "
          f"{eager[1][1].strip('()')} s)") in section


README_AMD_ROWS = [
    ("electra-tf, XLA", "float32", XLA),
    ("electra-tf, XLA but matmuls", "float32", FUSED),
    ("Hugging Face transformers, eager", "float32", "eager"),
    ("electra-tf, XLA but matmuls", "bfloat16", FUSED),
    ("electra-tf, XLA", "bfloat16", XLA),
    ("Hugging Face transformers, eager, autocast", "bfloat16", "eager")]


def test_the_readme_pretraining_table_is_the_amd_run():
  log = _log(AMD_LOGS[0])
  rows, second = _table_rows(log), _table_rows(_log(AMD_LOGS[1]))
  readme = _read("README.md")
  lines = [l.replace("**", "") for l in readme.splitlines()]
  peaks = {"float32": max(int(p) for p in _peaks(log, "float32")),
           "bfloat16": max(int(p) for p in _peaks(log, "bfloat16"))}
  shown = set()
  for label, precision, execution in README_AMD_ROWS:
    cells = rows[("mixed_" * (precision == "bfloat16") + precision,
                  execution)]
    mfu = cells[6].split()[0]
    if precision not in shown:
      mfu += f" of {peaks[precision]} GFLOP/s"
      shown.add(precision)
    expected = (f"| {label} | {precision} | {cells[3].split()[0]} | "
                f"{cells[4]} | {mfu} | {cells[7].split()[0]} |")
    assert expected in lines, expected
  assert f"`benchmarks/logs/{AMD_LOGS[0]}`" in readme
  flat = _flat(readme)
  assert (f"second run minutes later measured "
          f"{second[('float32', XLA)][7].split()[0]} in float32 and "
          f"{second[('mixed_bfloat16', FUSED)][7].split()[0]} in bfloat16"
          ) in flat
  xla, onednn, _ = (int(p) for p in _peaks(log, "bfloat16"))
  assert round(onednn / xla) == 2
  assert "whose bfloat16 rate is twice XLA's here" in flat


def test_the_amd_serving_numbers_are_the_logged_ones():
  name = "serving_latency_amd_threads_{}_2026-12-06.txt"
  one, two = _serving_p50(1, name), _serving_p50(2, name)
  section = _section("### Measured: on an AMD EPYC")
  for row in SERVING_README_ROWS:
    assert (f"| {row} | {one[(row, 1)]} | {two[(row, 1)]} | "
            f"{one[(row, 32)]} | {two[(row, 32)]} |") in section, row
  default, hf = "ours, default export (XLA)", "HF transformers pipeline (PyTorch)"
  ratios = {}
  for threads, rows in ((1, one), (2, two)):
    for batch in (1, 32):
      assert float(rows[(default, batch)]) < float(rows[(hf, batch)])
      ratios[(threads, batch)] = f"{rows[(hf, batch, 'p50 / ours')]}x"
  flat = _flat(section)
  assert (f"{ratios[(1, 1)]} and {ratios[(1, 32)]} with one thread (batch 1, "
          f"batch 32), {ratios[(2, 1)]} and {ratios[(2, 32)]} with two") in flat
  plain = "ours, --nojit_compile export (plain graph)"
  assert (f"({two[(plain, 1)]} against {two[(default, 1)]} ms)") in flat
  faster = sorted(round(100 * (1 - float(one[(plain, b, "p50 / ours")])))
                  for b in (1, 32))
  assert f"({faster[0]}-{faster[1]}% faster in this run)" in flat
  readme = _flat(_read("README.md"))
  assert (f"at batch 1, {one[(default, 1)]} against {one[(hf, 1)]} ms with one "
          f"thread ({ratios[(1, 1)]}) and {two[(default, 1)]} against "
          f"{two[(hf, 1)]} ms with two ({ratios[(2, 1)]}); at batch 32, "
          f"{ratios[(1, 32)]} and {ratios[(2, 32)]}.") in readme


def test_the_amd_scaling_runs_are_quoted_as_logged():
  logs = {title: _log(name) for title, (_, name) in AMD_SCALING.items()}
  small_log, base_log = (logs["ELECTRA-Small, batch 8 x 512"],
                         logs["ELECTRA-Base, batch 8 x 128"])
  small, base = _table_rows(small_log), _table_rows(base_log)
  assert all(_background_cores(log) <= 0.05 for log in logs.values())

  def ratio(rows, precision, execution):
    return rows[(precision, execution)][7].split()[0]
  readme = _flat(_read("README.md"))
  assert (f"the leads are {ratio(small, 'float32', XLA)} and "
          f"{ratio(small, 'mixed_bfloat16', FUSED)} at sequence length 512, "
          f"{ratio(base, 'float32', XLA)} and "
          f"{ratio(base, 'mixed_bfloat16', FUSED)} for ELECTRA-Base") in readme
  section = _flat(_section(AMD_SCALING_SECTION))
  mfu = [rows[("mixed_bfloat16", FUSED)][6].split()[0] for rows in (small, base)]
  assert (f"{ratio(small, 'mixed_bfloat16', FUSED)} PyTorch's eager bfloat16 "
          f"step at sequence length 512 and "
          f"{ratio(base, 'mixed_bfloat16', FUSED)} for ELECTRA-Base, at "
          f"{mfu[0]} and {mfu[1]} of the bfloat16 matmul peak") in section
  assert (f"the lead is {ratio(small, 'float32', XLA)} at sequence length 512 "
          f"and {ratio(base, 'float32', XLA)} for ELECTRA-Base") in section
  for rows in (small, base):
    times = {k: float(c[3].split()[0]) for k, c in rows.items()
             if k[1] != "eager"}
    assert min(times, key=times.get) == ("mixed_bfloat16", FUSED)
  gaps = [_peak_gb(c) - _peak_gb(rows[(k[0], "eager")])
          for rows in (small, base) for k, c in rows.items()
          if k[1] != "eager"]
  assert f"Memory: {min(gaps):.1f}-{max(gaps):.1f} GB more" in section
  f32_peaks, bf16_peaks = (_peaks(base_log, p) for p in ("float32",
                                                           "bfloat16"))
  assert (f"float32 XLA {f32_peaks[0]}, TF oneDNN {f32_peaks[1]}, torch "
          f"{f32_peaks[2]} GFLOP/s; bfloat16 XLA {bf16_peaks[0]}, TF oneDNN "
          f"{bf16_peaks[1]}, torch {bf16_peaks[2]} GFLOP/s") in section
  peaks = [_peaks(log, "float32") for log in (small_log, base_log)]
  tf_f32, torch_f32 = ([int(p[i]) for p in peaks] for i in (1, 2))
  assert (f"{min(torch_f32)}-{max(torch_f32)} GFLOP/s here against "
          f"{min(tf_f32)}-{max(tf_f32)} for TensorFlow's oneDNN") in section


KERNELS_SECTION = "### Measured: bfloat16, XLA but matmuls, kernels by kind"


def _kernel_rows(name):
  """{kind: (ms per step, share, kernels per step)} of a step_kernels log."""
  return {cells[0]: tuple(cells[1:])
          for cells in ([c.strip() for c in line.strip("|").split("|")]
                        for line in _log(name).splitlines()
                        if line.startswith("| "))}


def _profiled_ms(log):
  """A step_kernels log's profiled wall time per step, ms."""
  return float(re.search(r"wall time per step: ([\d.]+) ms", log).group(1))


def _result_lines(log):
  """The table rows of a pretrain_throughput log, as printed."""
  return [line for line in log.splitlines()
          if line.startswith("| electra") or line.startswith("| HF")]


def _seconds(rows, key):
  """A `_table_rows` row's median s/step, as printed."""
  return rows[key][3].split()[0]


def _minimum_seconds(rows, key):
  """A `_table_rows` row's minimum s/step, as printed."""
  return rows[key][3].split()[1].strip("()")


def test_the_kernel_table_and_its_prose_are_the_logged_ones():
  name = "step_kernels_amd_2026-12-07.txt"
  section = _section(KERNELS_SECTION)
  table = [l for l in _log(name).splitlines() if l.startswith("|")]
  assert "\n".join(table) in section
  text = _flat(section)
  assert f"(profiled step {_profiled_ms(_log(name)):.0f} ms)" in text
  after = _kernel_rows(name)
  before = _kernel_rows("step_kernels_amd_2026-12-07_before_layer_norm.txt")
  matmul_ms = float(after["matmul"][0])
  assert (f"take {after['matmul'][1]} of the serial step (287.6 GFLOP at "
          f"{287.6 / matmul_ms * 1e3:.0f} GFLOP/s); XLA's "
          f"{after['XLA cluster run'][2]} cluster executions per step take "
          f"{after['XLA cluster run'][1]}") in text
  adds = [before[f"outside XLA: {op}"] for op in ("AddV2", "AddN")]
  assert (f"ran {before['XLA cluster run'][2]} cluster executions per step, "
          f"and {adds[0][2]} AddV2 and {adds[1][2]} AddN kernels outside XLA "
          f"({float(adds[0][0]) + float(adds[1][0]):.1f} ms)") in text
  assert (f"took {float(before['matmul'][0]):.0f} ms against "
          f"{matmul_ms:.0f})") in text


XEON_SAMPLERS_SECTION = ("### Measured: inverse-CDF sampling and the "
                         "bfloat16 GELU's backward on an Intel Xeon")
# The same command before and after the bfloat16 GELU change, the same day.
XEON_SAMPLERS_LOGS = ("pretrain_throughput_samplers_2026-12-07.txt",
                      "pretrain_throughput_samplers_gelu_2026-12-07.txt")


def test_the_xeon_samplers_runs_are_quoted_as_logged():
  section = _section(XEON_SAMPLERS_SECTION)
  text, readme = _flat(section), _flat(_read("README.md"))
  before, after = (_table_rows(_log(name)) for name in XEON_SAMPLERS_LOGS)
  for name in XEON_SAMPLERS_LOGS:
    lines = _result_lines(_log(name))
    assert len(lines) == 10
    for line in lines:
      assert line in section.splitlines(), line
    assert f"`benchmarks/logs/{name}`" in text
  best, f32 = BF16_FUSED_CDF, F32_XLA_CDF
  ratios = lambda rows, key: [r.strip("()") for r in rows[key][7].split()]
  eager = lambda rows, precision: rows[(precision, "eager")][3].split()
  for rows in (before, after):
    ours = [float(_seconds(rows, k)) for k in rows if k[1] != "eager"]
    assert float(_seconds(rows, best)) == min(ours)
  assert (f"sampling: {_seconds(after, best)} s after the GELU change, "
          f"{ratios(after, best)[0]} PyTorch's eager bfloat16 step by the "
          f"median and {ratios(after, best)[1]} by the minimum; "
          f"{_seconds(before, best)} s before it, {ratios(before, best)[0]} "
          f"({ratios(before, best)[1]})") in text
  assert (f"a median of {eager(before, 'mixed_bfloat16')[0]} s (minimum "
          f"{eager(before, 'mixed_bfloat16')[1].strip('()')}) in the first "
          f"run and {eager(after, 'mixed_bfloat16')[0]} s "
          f"({eager(after, 'mixed_bfloat16')[1].strip('()')})") in text
  assert (f"{ratios(before, f32)[0]} ({ratios(before, f32)[1]}) in the first "
          f"run and {ratios(after, f32)[0]} ({ratios(after, f32)[1]}) in the "
          f"second; with Gumbel-max sampling "
          f"{ratios(before, ('float32', XLA))[0]} and "
          f"{ratios(after, ('float32', XLA))[0]}") in text
  mfu = sorted({before[best][6].split()[0], after[best][6].split()[0]})
  assert f"uses {mfu[0].rstrip('%')}-{mfu[-1]} of the bfloat16" in text
  peak = re.search(r"bfloat16 matmul peak, (\d+) GFLOP/s",
                   _log(XEON_SAMPLERS_LOGS[1])).group(1)
  assert (f"float32 with XLA and inverse-CDF sampling {_seconds(after, f32)} "
          f"s/step, {ratios(after, f32)[0]} PyTorch's eager "
          f"{eager(after, 'float32')[0]} ({ratios(after, f32)[1]} by the "
          "minimum)") in readme
  assert (f"inverse-CDF sampling {_seconds(after, best)} s/step, the fastest "
          f"of all, {ratios(after, best)[0]} PyTorch's eager bfloat16 step "
          f"({eager(after, 'mixed_bfloat16')[0]}; {ratios(after, best)[1]} by "
          f"the minimum), at {after[best][6].split()[0]} of the bfloat16 "
          f"matmul peak ({peak} GFLOP/s)") in readme
  assert (f"gave {ratios(before, f32)[0]} in float32 and "
          f"{ratios(before, best)[0]} in bfloat16 ({_seconds(before, best)} "
          "s/step") in readme
  for name in XEON_SAMPLERS_LOGS:
    assert f"`benchmarks/logs/{name}`" in readme


def test_the_xeon_kernel_table_is_the_logged_one():
  name = "step_kernels_inverse_cdf_2026-12-07.txt"
  section = _section("### Measured: bfloat16, XLA but matmuls, inverse-CDF "
                     "sampling, on an Intel Xeon")
  log = _log(name)
  tables = log[log.index("| kernels"):].strip()
  assert tables in section
  rows = _kernel_rows(name)
  matmul_ms = float(rows["matmul"][0])
  runs = rows["XLA cluster run"]
  assert (f"the matmul kernels take {rows['matmul'][1]} of the serial step "
          f"(287.6 GFLOP at {287.6 / matmul_ms * 1e3:.0f} GFLOP/s), XLA's "
          f"{runs[2]} cluster executions per step {runs[1]} ({runs[0]} ms)"
          ) in _flat(section)
  assert f"(profiled step {_profiled_ms(log):.0f} ms)" in _flat(section)


def test_the_cluster_list_is_the_logged_one():
  name = "step_kernels_clusters_2026-12-07.txt"
  section = _section("### Measured: the longest XLA clusters, bfloat16")
  log = _log(name)
  assert log[log.index("| XLA cluster |"):].strip() in section
  rows = _kernel_rows(name)
  text = _flat(section)
  for cluster in ("cluster_0", "cluster_2", "cluster_10"):
    assert f"{cluster} ({rows[cluster][0]} ms)" in text
  assert f"{_profiled_ms(log):.0f} ms: the host ran slower" in text
  assert f"`benchmarks/logs/{name}`" in text


def test_the_floor_and_its_prose_are_the_logged_ones():
  name = "step_kernels_floor_2026-12-07.txt"
  section = _section("### Measured: the floor of the step's kernels")
  log = _log(name)
  lines = log.splitlines()
  for cluster in ("cluster_0", "cluster_2", "cluster_10"):
    row = next(l for l in lines if l.startswith(f"| {cluster} |"))
    assert row in section.splitlines(), row
  traffic = next(l for l in lines if l.startswith("XLA clusters:"))
  floor = next(l for l in lines if l.startswith("Floor of these kernels:"))
  assert traffic in section and floor in section
  text = _flat(section)
  megabytes, cluster_ms = re.search(
      r"(\d+) MB read and written per step in ([\d.]+) ms", traffic).groups()
  at_stream = float(re.search(r"would take ([\d.]+) ms", traffic).group(1))
  assert f"read and write {megabytes} MB per step" in text
  assert (f"about {round(at_stream, -1):.0f} ms instead of about "
          f"{round(float(cluster_ms), -1):.0f}") in text
  matmul_ms = float(re.search(r"matmuls as run ([\d.]+) ms", floor).group(1))
  assert (f"({matmul_ms:.0f} ms for 287.5 GFLOP, "
          f"{287.5 / matmul_ms * 1e3:.0f} GFLOP/s") in text
  share = re.search(r"([\d.]+%) of the matmul peak", floor).group(1)
  assert f"and {share} of their runs' peaks" in text
  assert f"profiled step {_profiled_ms(log):.0f} ms" in text
  assert f"`benchmarks/logs/{name}`" in text


def test_the_loss_change_runs_are_quoted_as_logged():
  section = _section("### Measured: after the masked-LM loss's written "
                     "gradient, and ELECTRA-Base")
  text, readme = _flat(section), _flat(_read("README.md"))
  names = ("pretrain_throughput_loss_2026-12-07.txt",
           "pretrain_throughput_base_bf16_2026-12-07.txt")
  for name in names:
    log = _log(name)
    assert _background_cores(log) <= 0.05
    for line in _result_lines(log):
      assert line in section.splitlines(), line
    assert f"`benchmarks/logs/{name}`" in text
  small, base = (_table_rows(_log(name)) for name in names)
  best, f32 = BF16_FUSED_CDF, F32_XLA_CDF
  ours = [float(_seconds(small, k)) for k in small if k[1] != "eager"]
  assert float(_seconds(small, best)) == min(ours)
  bf16, fp32 = _ratios(small[best]), _ratios(small[f32])
  torch_bf16 = _seconds(small, ("mixed_bfloat16", "eager"))
  assert (f"{_seconds(small, best)} s, but {bf16[0]} PyTorch's eager bfloat16 "
          f"step by the median ({bf16[1]} by the minimum)") in text
  assert (f"PyTorch's step took {torch_bf16} s here") in text
  assert (f"XLA: {_seconds(small, f32)} s, {fp32[0]} ({fp32[1]} by the "
          "minimum)") in text
  base_ratios = _ratios(base[best])
  mfu = [m.strip("()") for m in base[best][6].split()]
  assert (f"{base_ratios[0]} PyTorch's eager step by the median "
          f"({base_ratios[1]} by the minimum), {mfu[0]} of torch's bfloat16 "
          f"peak ({mfu[1]} by the minimum)") in text
  assert (f"1.52x in float32 ({_seconds(small, f32)} s/step) and {bf16[0]} in "
          f"bfloat16 ({_seconds(small, best)} s/step against PyTorch's "
          f"{torch_bf16}), {small[best][6].split()[0]} of the bfloat16 matmul "
          "peak") in readme and fp32[0] == "1.52x"
  floor = _log("step_kernels_floor_2026-12-07.txt")
  share = re.search(r"([\d.]+%) of the matmul peak", floor).group(1)
  assert f"floor with its present kernels, {share} of the peak" in readme


def _matmul_rows(log):
  """{(matmul, form): [cells]} of a matmul_shapes log's table."""
  rows = {}
  for line in log.splitlines():
    if line.startswith("| ") and not line.startswith("| matmul |"):
      cells = [cell.strip() for cell in line.strip("|").split("|")]
      rows[(cells[0], cells[1])] = cells[2:]
  return rows


def _step_ms_at(log, library):
  return float(re.search(rf"At {re.escape(library)}'s rates: ([\d.]+) ms",
                         log).group(1))


def test_the_matmul_shapes_section_is_the_logged_runs():
  section = _section("### Measured: bfloat16 and float32 on an Intel Xeon")
  text = _flat(section)
  bf16 = _log("matmul_shapes_2026-12-07.txt")
  fp32 = _log("matmul_shapes_float32_2026-12-07.txt")
  for log in (bf16, fp32):
    for line in log.splitlines():
      if line.startswith(("At ", "matmul peak")):
        assert line in section.splitlines(), line
  for line in section.splitlines():
    if line.startswith("| discriminator"):
      assert line in bf16.splitlines(), line
  onednn, xla, torch = (_step_ms_at(bf16, lib)
                        for lib in ("TF/oneDNN", "TF/XLA", "torch"))
  assert (f"matmuls take {onednn:.0f} ms on TensorFlow's oneDNN kernels and "
          f"{torch:.0f} ms on PyTorch's") in text
  assert f"dots take {xla / onednn:.1f}x as long" in text
  for log, quoted in ((bf16, "slower at {} of the {} rows"),
                      (fp32, "({} of {} in float32)")):
    rows = _matmul_rows(log)
    slower = sum(float(cells[2]) < float(cells[6]) for cells in rows.values())
    assert quoted.format(slower, len(rows)) in text
  rows = _matmul_rows(bf16)
  for role in ("Q, K, V, attention output [T,H]x[H,H]", "FFN in [T,H]x[H,I]",
               "FFN out [T,I]x[I,H]"):
    for column in (2, 4, 6):  # GFLOP/s of TF/oneDNN, TF/XLA, torch
      rate = {form: float(rows[(f"discriminator {role}", form)][column])
              for form in ("forward", "input gradient", "weight gradient")}
      assert min(rate, key=rate.get) == "weight gradient", (role, column)
  qkv = {form: rows[("discriminator Q, K, V, attention output [T,H]x[H,H]",
                     form)] for form in ("forward", "weight gradient")}
  assert (f"{qkv['weight gradient'][2]} GFLOP/s against "
          f"{qkv['forward'][2]} forward on TensorFlow, "
          f"{qkv['weight gradient'][6]} against {qkv['forward'][6]} on "
          "PyTorch") in text
  share = re.search(r"At TF/oneDNN's rates: .*?([\d.]+)% of", bf16).group(1)
  assert f"at most {share}% of this run's peak" in text
  top_torch = max(float(cells[6]) for cells in rows.values())
  assert f"(up to {top_torch:.0f} GFLOP/s)" in text
  f32 = [_step_ms_at(fp32, lib) for lib in ("TF/XLA", "TF/oneDNN", "torch")]
  assert ("runs on XLA's dots: {:.0f} ms per step at this hour, against "
          "{:.0f} on oneDNN and {:.0f} on PyTorch".format(*f32)) in text
  for name in ("matmul_shapes_2026-12-07.txt",
               "matmul_shapes_float32_2026-12-07.txt"):
    assert f"`benchmarks/logs/{name}`" in text
  readme = _flat(_read("README.md"))
  assert ("output in `benchmarks/logs/matmul_shapes_2026-12-07.txt`, a slow "
          f"hour of the host), the bfloat16 step's matmuls alone take "
          f"{onednn:.0f} ms on TensorFlow's oneDNN kernels and {torch:.0f} ms "
          "on PyTorch's") in readme
  assert f"reach at most {share}% of that run's matmul peak" in readme


def _checked_row_sums_run(name, heading):
  """A row-sums throughput log and its benchmarks/README section: an idle
  run, every result line quoted, the log named in both READMEs, bfloat16
  with XLA but matmuls the fastest of our steps. Returns the section and
  README flattened, the log, and its table rows."""
  section = _section(heading)
  text, readme = _flat(section), _flat(_read("README.md"))
  log = _log(name)
  assert _background_cores(log) <= 0.05
  assert f"used {_background_cores(log)} cores while steps" in text
  for line in _result_lines(log):
    assert line in section.splitlines(), line
  assert f"`benchmarks/logs/{name}`" in text and f"`benchmarks/logs/{name}`" \
      in readme
  rows = _table_rows(log)
  ours = [float(_seconds(rows, k)) for k in rows if k[1] != "eager"]
  assert float(_seconds(rows, BF16_FUSED_CDF)) == min(ours)
  return text, readme, log, rows


def test_the_row_sums_run_is_quoted_as_logged():
  text, readme, log, rows = _checked_row_sums_run(
      "pretrain_throughput_row_sums_2026-12-07.txt",
      "### Measured: row sums as matmuls, on an Intel Xeon")
  best, f32 = BF16_FUSED_CDF, F32_XLA_CDF
  bf16, fp32 = _ratios(rows[best]), _ratios(rows[f32])
  mfu = rows[best][6].split()[0]
  gflops = rows[best][5]
  onednn, torch = _peaks(log, "bfloat16")[1:]
  assert (f"fastest step, {_seconds(rows, best)} s, {bf16[0]} PyTorch's "
          f"eager bfloat16 step by the median ({bf16[1]} by the minimum), at "
          f"{mfu} of torch's bfloat16 matmul peak and "
          f"{round(100 * float(gflops) / float(onednn))}% of TensorFlow's "
          f"oneDNN peak ({gflops} of {onednn} GFLOP/s)") in text
  assert f"oneDNN bfloat16 peak {onednn} GFLOP/s, torch's {torch}" in text
  assert (f"XLA, whose code did not change: {_seconds(rows, f32)} s, "
          f"{fp32[0]} ({fp32[1]} by the minimum)") in text
  torch_f32 = ("float32", "eager")
  assert (f"spread from {_minimum_seconds(rows, torch_f32)} s to a median of "
          f"{_seconds(rows, torch_f32)} s") in text
  torch_bf16 = _seconds(rows, ("mixed_bfloat16", "eager"))
  assert (f"measured {fp32[0]} in float32 ({_seconds(rows, f32)} s/step) and "
          f"{bf16[0]} in bfloat16 ({_seconds(rows, best)} s/step against "
          f"PyTorch's {torch_bf16}; {bf16[1]} by the minimum), {mfu} of the "
          "bfloat16 matmul peak") in readme


def test_the_slow_hour_row_sums_run_is_quoted_as_logged():
  fast = _table_rows(_log("pretrain_throughput_row_sums_2026-12-07.txt"))
  text, readme, log, rows = _checked_row_sums_run(
      "pretrain_throughput_row_sums_slow_hour_2026-12-08.txt",
      "### Measured: row sums as matmuls again, at a slow hour")
  best, f32 = BF16_FUSED_CDF, F32_XLA_CDF
  torch_bf16 = ("mixed_bfloat16", "eager")
  bf16, fp32 = _ratios(rows[best]), _ratios(rows[f32])
  # "1.5x ahead" holds for both precisions, by the median and the minimum.
  assert min(float(r.rstrip("x")) for r in bf16 + fp32) >= 1.5
  mfu = rows[best][6].split()[0]
  onednn, torch = _peaks(log, "bfloat16")[1:]
  assert f"oneDNN bfloat16 peak {onednn} GFLOP/s, torch's {torch}." in text
  assert (f"matmuls: {_seconds(rows, best)} s, {bf16[0]} PyTorch's eager "
          f"bfloat16 step by the median ({bf16[1]} by the minimum), at {mfu} "
          f"of torch's bfloat16 matmul peak. float32 with XLA: "
          f"{_seconds(rows, f32)} s, {fp32[0]} ({fp32[1]} by the minimum)"
          ) in text
  assert (f"(ours {_seconds(fast, best)} to {_seconds(rows, best)} s, "
          f"PyTorch's {_seconds(fast, torch_bf16)} to "
          f"{_seconds(rows, torch_bf16)} s") in text
  assert (f"the {_ratios(fast[best])[0]} and {_ratios(fast[f32])[0]} there "
          "are a fast hour's leads") in text
  fastest_torch_f32 = _minimum_seconds(fast, ("float32", "eager"))
  assert (f"float32's did not at the fast hour ({_ratios(fast[f32])[1]} "
          f"there, against PyTorch's fastest step, {fastest_torch_f32} s)"
          ) in text and float(_ratios(fast[f32])[1].rstrip("x")) < 1.5
  assert (f"measured {fp32[0]} in float32 and {bf16[0]} in bfloat16 "
          f"({_seconds(rows, best)} s/step; {bf16[1]} by the minimum), {mfu} "
          "of the peak") in readme
