"""The study result README cites follows from the committed per-run scores."""

import json
import os
import re

import numpy as np
import pytest
from scipy import stats

from electra_tf.study import collect
from electra_tf.study import dev_selection
from electra_tf.study import report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "benchmarks", "study")
README_ROWS = {"ELECTRA": "electra", "MLM, same FLOPs": "mlm",
               "random initialisation": "random_init"}


# The full study's result, and those of its profiles that vary one setting
# (each in a folder of its own under it).
RESULT_DIRS = [RESULTS] + sorted(
    os.path.join(RESULTS, name) for name in os.listdir(RESULTS)
    if os.path.exists(os.path.join(RESULTS, name, "results.json")))


def _load(folder):
  with open(os.path.join(folder, "results.json")) as f:
    return json.load(f)


@pytest.fixture(scope="module")
def results():
  return _load(RESULTS)


@pytest.fixture(scope="module", params=RESULT_DIRS,
                ids=lambda d: os.path.relpath(d, ROOT))
def any_results(request):
  return request.param, _load(request.param)


def _mean_ci(values):
  values = np.asarray(values, dtype=np.float64)
  half = stats.t.ppf(0.975, len(values) - 1) * stats.sem(values)
  return values.mean(), half


def _scores(results, init, step=None):
  """{task: {(pretraining seed, finetuning seed): headline test score}} of
  one model; random init's runs count for every pretraining seed."""
  runs = results["runs"] if init != "random_init" else [
      dict(run, init="random_init", pretrain_seed=seed)
      for run in results["random_init"]
      for seed in results["study"]["pretrain_seeds"]]
  scores = {}
  for run in runs:
    if run["init"] == init and (step is None or run.get("step") == step):
      metric = results["tasks"][run["task"]]["metric"]
      scores.setdefault(run["task"], {})[
          (run["pretrain_seed"], run["finetune_seed"])] = run[
              results["headline_split"]][metric]
  return scores


def _random_init_scores(results):
  """{task: {finetuning seed: score}}: random init's own runs, once each."""
  return {task: {fseed: score for (_, fseed), score in by_seed.items()}
          for task, by_seed in _scores(results, "random_init").items()}


def _final_step(results, init):
  points = results["summary"]["objectives"].get(init)  # none: random init
  return max(p["step"] for p in points) if points else None


def _per_seed_means(scores):
  seeds = sorted(set.intersection(*(set(s) for s in scores.values())))
  return np.array([np.mean([s[seed] for s in scores.values()])
                   for seed in seeds])


def test_the_markdown_report_is_rendered_from_the_json(any_results):
  folder, results = any_results
  with open(os.path.join(folder, "results.md")) as f:
    assert f.read() == report.markdown(results)


def test_the_summary_follows_from_the_runs(any_results):
  _, results = any_results
  for init, points in results["summary"]["objectives"].items():
    for point in points:
      scores = _scores(results, init, point["step"])
      for task, by_seed in scores.items():
        mean, half = _mean_ci(list(by_seed.values()))
        assert point[task]["mean"] == pytest.approx(mean, abs=1e-9)
        assert point[task]["ci_high"] - mean == pytest.approx(half, abs=1e-9)
  for task, by_seed in _random_init_scores(results).items():
    mean, half = _mean_ci(list(by_seed.values()))
    estimate = results["summary"]["random_init"][task]
    assert estimate["mean"] == pytest.approx(mean, abs=1e-9)
    assert estimate["ci_high"] - mean == pytest.approx(half, abs=1e-9)
  for name, difference in results["summary"]["paired"].items():
    first, second = name.split(" - ")
    deltas = (_per_seed_means(_scores(results, first,
                                      _final_step(results, first)))
              - _per_seed_means(_scores(results, second,
                                        _final_step(results, second))))
    mean, half = _mean_ci(deltas)
    assert difference["mean"] == pytest.approx(mean, abs=1e-9)
    assert difference["ci_high"] - mean == pytest.approx(half, abs=1e-9)


def _readme_section(heading):
  """README's text from `heading` to the next heading of its level or
  above."""
  with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
    text = f.read()
  start = text.index(heading)
  level = len(heading.split(" ")[0])
  end = re.compile(r"\n#{1,%d} " % level).search(text, start + 1)
  return text[start:end.start() if end else None]


def _table_rows(section):
  """First cell -> the other cells, of every table row in `section`."""
  rows = {}
  for line in section.splitlines():
    if line.startswith("|"):
      cells = [c.strip() for c in line.strip().strip("|").split("|")]
      rows[cells[0]] = cells[1:]
  return rows


def _readme_table():
  section = _readme_section("### What the full study found here")
  return section, _table_rows(section)


def _assert_row(cells, estimates, tasks):
  for cell, key in zip(cells, tasks + ["mean_over_tasks"]):
    value = estimates[key]
    assert cell == (f"{value['mean']:.1f} ± "
                    f"{value['ci_high'] - value['mean']:.1f}"), key


def _assert_variant_rows(section, results, suffix):
  """The README rows "ELECTRA<suffix>", "MLM<suffix>" and "random
  initialisation<suffix>" are the end-of-budget scores of `results`."""
  rows = _table_rows(section)
  summary = results["summary"]
  for label, init in README_ROWS.items():
    label = {"MLM, same FLOPs": "MLM"}.get(label, label) + suffix
    estimates = (summary["random_init"] if init == "random_init" else
                 summary["objectives"][init][-1])
    _assert_row(rows[label], estimates, list(results["tasks"]))


def _assert_quoted(section, pattern, difference):
  quoted = re.search(pattern + r"([+-][\d.]+) points, 95% CI "
                     r"\[([+-]?[\d.]+), ([+-][\d.]+)\]", section)
  assert quoted, f"README no longer quotes {pattern!r}"
  assert [float(v) for v in quoted.groups()] == [
      round(difference["mean"], 1), round(difference["ci_low"], 1),
      round(difference["ci_high"], 1)]


def _assert_differences(section, paired, quotes):
  """Each {difference name: README prefix} is quoted from `paired`."""
  for name, prefix in quotes.items():
    _assert_quoted(section, prefix, paired[name])


def test_the_readme_table_is_the_committed_result(results):
  section, rows = _readme_table()
  tasks = list(results["tasks"])
  summary = results["summary"]
  for label, init in README_ROWS.items():
    estimates = (summary["random_init"] if init == "random_init" else
                 summary["objectives"][init][-1])
    _assert_row(rows[label], estimates, tasks)
  tfidf = [f"{summary['tfidf'][t]:.1f}" for t in tasks]
  tfidf.append(f"{np.mean(list(summary['tfidf'].values())):.1f}")
  assert rows["TF-IDF + linear model"] == tfidf
  _assert_quoted(section, "ELECTRA - MLM, paired by seed: ",
                 summary["paired"]["electra - mlm"])


def test_the_readme_quotes_the_finetuning_learning_rate_result():
  results = _load(os.path.join(RESULTS, "finetune_lr_3e-4"))
  assert results["study"]["finetune_hparams"]["learning_rate"] == 3e-4
  section = _readme_section("### What the gap depends on")
  _assert_variant_rows(section, results, " at 3e-4")
  _assert_quoted(section, "ELECTRA - MLM at 3e-4: ",
                 results["summary"]["paired"]["electra - mlm"])


def test_the_readme_quotes_the_learning_rate_picked_on_dev(results):
  at_3e_4 = _load(os.path.join(RESULTS, "finetune_lr_3e-4"))
  picked = _load(os.path.join(RESULTS, "picked_on_dev"))
  assert picked == dev_selection.pick_on_dev([results, at_3e_4])
  final_steps = {_final_step(results, init) for init in ("electra", "mlm")}
  # "dev picks 1e-3 for every end-of-budget model on every task and for
  # random initialisation"
  chosen = [row for row in picked["dev_selection"]["picked"]
            if row["step"] in final_steps | {None}]
  assert len(chosen) == 3 * 3
  assert {row["picked"] for row in chosen} == {"learning_rate=0.001"}
  section = " ".join(_readme_section("### What the gap depends on").split())
  _assert_quoted(section, "ELECTRA - MLM picked on dev: ",
                 picked["summary"]["paired"]["electra - mlm"])
  # "every model finetunes worse than it does at 1e-3"
  for init in ("electra", "mlm"):
    assert (at_3e_4["summary"]["objectives"][init][-1]["mean_over_tasks"]
            ["mean"] < results["summary"]["objectives"][init][-1]
            ["mean_over_tasks"]["mean"])
  assert (at_3e_4["summary"]["random_init"]["mean_over_tasks"]["mean"]
          < results["summary"]["random_init"]["mean_over_tasks"]["mean"])


def _loss_curve(results, objective):
  (run,) = [r for r in results["pretraining"] if r["objective"] == objective]
  return {step: losses for step, losses in run["loss_curve"]}


def test_the_readme_quotes_the_current_code_at_both_rates(results):
  at_1e_3 = _load(os.path.join(RESULTS, "current_lr_1e-3"))
  at_3e_4 = _load(os.path.join(RESULTS, "current_lr_3e-4"))
  assert at_1e_3["study"]["finetune_hparams"]["learning_rate"] == 1e-3
  assert at_3e_4["study"]["finetune_hparams"]["learning_rate"] == 3e-4
  # One set of pretrained models, finetuned at both rates.
  assert at_1e_3["pretraining"] == at_3e_4["pretraining"]
  section, rows = _readme_table()
  tasks = list(results["tasks"])
  for label, current in (("ELECTRA, current code at 1e-3", at_1e_3),
                         ("ELECTRA, current code at 3e-4", at_3e_4)):
    _assert_row(rows[label], current["summary"]["objectives"]["electra"][-1],
                tasks)
  flat = " ".join(section.split())
  _assert_quoted(flat, "ELECTRA - MLM with the current code at 1e-3: ",
                 at_1e_3["summary"]["paired"]["electra - mlm"])
  _assert_quoted(flat, "ELECTRA - MLM with the current code at 3e-4: ",
                 at_3e_4["summary"]["paired"]["electra - mlm"])
  _assert_quoted(flat, "ELECTRA - random init with the current code at "
                 "3e-4: ", at_3e_4["summary"]["paired"]["electra - random_init"])
  mlm_random = at_3e_4["summary"]["paired"]["mlm - random_init"]
  assert (f"MLM - random init {mlm_random['mean']:+.1f} "
          f"[{mlm_random['ci_low']:+.1f}, {mlm_random['ci_high']:+.1f}]"
          in flat)
  # "at 3e-4 ... every interval excluding zero; at 1e-3 it does not"
  assert all(d["ci_low"] > 0 for d in at_3e_4["summary"]["paired"].values())
  assert at_1e_3["summary"]["paired"]["electra - mlm"]["ci_low"] < 0
  auc = at_3e_4["pretraining"][0]["eval"]["6000"]["disc_auc"]
  assert f"Its discriminator: held-out AUC {auc:.3f}." in flat
  # "Every MLM and random-initialisation score there equals the study before
  # the fix exactly, at both rates, and so does the MLM loss curve"
  key = lambda run: (run["init"], run["step"], run["task"],
                     run["finetune_seed"])
  before_3e_4 = _load(os.path.join(RESULTS, "finetune_lr_3e-4"))
  for current, before in ((at_1e_3, results), (at_3e_4, before_3e_4)):
    before_mlm = {key(r): r for r in before["runs"] if r["init"] == "mlm"}
    current_mlm = [r for r in current["runs"] if r["init"] == "mlm"]
    assert len(current_mlm) == 9  # 3 tasks x 3 seeds, end of budget
    assert all(before_mlm[key(r)] == r for r in current_mlm)
    assert current["random_init"] == before["random_init"]
    assert current["tfidf"] == before["tfidf"]
  curve = _loss_curve(at_3e_4, "mlm")
  assert curve == {step: losses for step, losses
                   in _loss_curve(results, "mlm").items() if step in curve}
  # "dev picks 1e-3 for every model and task"
  picked = _load(os.path.join(RESULTS, "current_picked_on_dev"))
  assert picked == dev_selection.pick_on_dev([at_1e_3, at_3e_4])
  assert {row["picked"] for row in picked["dev_selection"]["picked"]} == {
      "learning_rate=0.001"}
  # The two runs with the current code differ from step 100 on; the
  # headline run's MLM and random init differ from the first study's.
  init_fix = _load(os.path.join(RESULTS, "init_fix"))
  later = _loss_curve(at_3e_4, "electra")[100]["mlm_loss"]
  earlier = _loss_curve(init_fix, "electra")[100]["mlm_loss"]
  assert (f"MLM loss of {later:.3f} at step 100 on one day's machine and "
          f"{earlier:.3f} on the other's") in flat
  assert init_fix["random_init"] != results["random_init"]
  assert _loss_curve(init_fix, "mlm") != _loss_curve(results, "mlm")


def test_the_readme_quotes_the_longer_finetuning_at_3e_4():
  longer = _load(os.path.join(RESULTS, "current_lr_3e-4_epochs_x3"))
  shorter = _load(os.path.join(RESULTS, "current_lr_3e-4"))
  at_1e_3 = _load(os.path.join(RESULTS, "current_lr_1e-3"))
  epochs = [t["num_train_epochs"] for t in longer["study"]["tasks"]]
  assert epochs == [3 * t["num_train_epochs"]
                    for t in shorter["study"]["tasks"]] == [6, 3, 15]
  assert longer["study"]["finetune_hparams"]["learning_rate"] == 3e-4
  section, _ = _readme_table()
  _assert_variant_rows(section, longer, ", current code at 3e-4 x3 epochs")
  flat = " ".join(section.split())
  _assert_differences(flat, longer["summary"]["paired"], {
      "electra - mlm": "ELECTRA - MLM at 3e-4 x3 epochs: ",
      "electra - random_init": "ELECTRA - random init at 3e-4 x3 epochs: "})
  random = lambda r: r["summary"]["random_init"]["mean_over_tasks"]["mean"]
  assert f"catches up ({random(shorter):.1f} to {random(longer):.1f})" in flat
  picked = _load(os.path.join(RESULTS, "current_picked_on_dev_3"))
  assert picked == dev_selection.pick_on_dev([at_1e_3, shorter, longer])
  longest = picked["dev_selection"]["labels"][2]
  assert {row["picked"] for row in picked["dev_selection"]["picked"]
          if row["init"] != "random_init"} == {longest}
  _assert_quoted(flat, "ELECTRA - MLM picked on dev over three settings: ",
                 picked["summary"]["paired"]["electra - mlm"])


def test_the_readme_quotes_the_half_budget_scores(results):
  section, _ = _readme_table()
  for init, label in (("mlm", "MLM"), ("electra", "ELECTRA")):
    first = results["summary"]["objectives"][init][0]["mean_over_tasks"]
    assert (f"{label} {first['mean']:.1f} ± "
            f"{first['ci_high'] - first['mean']:.1f}") in section, init


def test_a_second_run_from_scratch_reproduced_every_score(results):
  """benchmarks/study/rerun: the same command in a new output dir (data,
  pretraining, finetuning all again), stopped after its first report."""
  rerun = _load(os.path.join(RESULTS, "rerun"))
  key = lambda run: (run["init"], run["step"], run["task"],
                     run["finetune_seed"])
  first = {key(run): run for run in results["runs"]}
  assert len(rerun["runs"]) == 18  # 2 objectives x 3 tasks x 3 seeds
  for run in rerun["runs"]:
    assert run == first[key(run)], key(run)
  assert rerun["random_init"] == results["random_init"]
  assert rerun["tfidf"] == results["tfidf"]
  for again, before in zip(rerun["pretraining"], results["pretraining"]):
    assert again["loss_curve"] == before["loss_curve"]
    for step, metrics in again["eval"].items():
      assert metrics == before["eval"][step]


def test_the_readme_quotes_the_generator_size_result():
  results = _load(os.path.join(RESULTS, "generator_half"))
  objectives = results["study"]["objectives"]
  assert objectives["electra_generator_half"]["generator_hidden_size"] == 0.5
  section = _readme_section("### What the gap depends on")
  summary = results["summary"]
  _assert_row(_table_rows(section)["ELECTRA, generator 1/2"],
              summary["objectives"]["electra_generator_half"][-1],
              list(results["tasks"]))
  _assert_quoted(section, "Generator 1/4 - generator 1/2: ",
                 summary["paired"]["electra - electra_generator_half"])


def test_the_readme_quotes_the_second_pretraining_seed():
  section = _readme_section("### What the gap depends on")
  seed1 = _load(os.path.join(RESULTS, "pretrain_seed_1"))
  assert seed1["study"]["pretrain_seeds"] == [1]
  summary = seed1["summary"]
  for label, init in (("ELECTRA", "electra"), ("MLM", "mlm")):
    final = summary["objectives"][init][-1]["mean_over_tasks"]
    assert (f"{label} {final['mean']:.1f} ± "
            f"{final['ci_high'] - final['mean']:.1f}") in " ".join(
                section.split()), init
  pooled = _load(os.path.join(RESULTS, "pretrain_seeds_0_1"))
  assert pooled["study"]["pretrain_seeds"] == [0, 1]
  rows = _table_rows(section)
  for label, init in (("ELECTRA", "electra"), ("MLM", "mlm")):
    _assert_row(rows[f"{label}, seeds 0 and 1"],
                pooled["summary"]["objectives"][init][-1],
                list(pooled["tasks"]))
  _assert_quoted(" ".join(section.split()),
                 "ELECTRA - MLM over both pretraining seeds: ",
                 pooled["summary"]["paired"]["electra - mlm"])


def test_the_pooled_result_is_the_two_committed_studies_pooled(results):
  seed1 = _load(os.path.join(RESULTS, "pretrain_seed_1"))
  # No pretraining: the references of both seeds are the same runs.
  assert seed1["random_init"] == results["random_init"]
  assert seed1["tfidf"] == results["tfidf"]
  pooled = _load(os.path.join(RESULTS, "pretrain_seeds_0_1"))
  assert pooled == collect.pool([results, seed1])


def _wall_time(folder):
  """(hours, minutes, seconds) of the finished run whose `/usr/bin/time -v`
  output its timeline.txt holds."""
  with open(os.path.join(RESULTS, folder, "timeline.txt")) as f:
    timeline = f.read()
  assert "Exit status: 0" in timeline
  hours, minutes, seconds = re.search(
      r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): "
      r"(?:(\d+):)?(\d+):(\d+)", timeline).groups()  # m:ss under an hour
  return int(hours or 0), int(minutes), int(seconds)


def test_the_readme_quotes_the_measured_wall_time():
  hours, minutes, seconds = _wall_time("pretrain_seed_1")
  section = " ".join(_readme_section(
      "### What the full study found here").split())
  assert (f"ran start to end in {hours} h {minutes} min "
          f"{seconds} s of wall time") in section
  assert hours * 60 + minutes < 180  # the study's 3-hour bound


def test_the_readme_quotes_the_model_size_result(results):
  layers_2 = _load(os.path.join(RESULTS, "layers_2"))
  overrides = layers_2["study"]["pretrain_hparams"]["model_hparam_overrides"]
  assert overrides["num_hidden_layers"] == 2
  assert results["study"]["pretrain_hparams"]["model_hparam_overrides"][
      "num_hidden_layers"] == 4
  section = _readme_section("### What the gap depends on")
  _assert_variant_rows(section, layers_2, ", 2 layers")
  section = " ".join(section.split())
  _assert_differences(section, layers_2["summary"]["paired"], {
      "electra - mlm": "ELECTRA - MLM with 2 layers: ",
      "electra - random_init": "ELECTRA - random init with 2 layers: "})
  auc = layers_2["pretraining"][0]["eval"]["6000"]["disc_auc"]
  base_auc = results["pretraining"][0]["eval"]["6000"]["disc_auc"]
  assert f"held-out AUC {auc:.3f} against {base_auc:.3f}" in section
  hours, minutes, seconds = _wall_time("layers_2")
  assert f"{hours} h {minutes} min {seconds} s start to end" in section


def test_the_readme_quotes_the_model_size_result_at_3e_4():
  results = _load(os.path.join(RESULTS, "layers_2_finetune_lr_3e-4"))
  study = results["study"]
  assert study["pretrain_hparams"]["model_hparam_overrides"][
      "num_hidden_layers"] == 2
  assert study["finetune_hparams"]["learning_rate"] == 3e-4
  section = _readme_section("### What the gap depends on")
  _assert_variant_rows(section, results, ", 2 layers at 3e-4")
  section = " ".join(section.split())
  paired = results["summary"]["paired"]
  _assert_differences(section, paired, {
      "electra - mlm": "ELECTRA - MLM with 2 layers at 3e-4: ",
      "electra - random_init": "ELECTRA - random init with 2 layers at 3e-4: "})
  four_layers = _load(os.path.join(RESULTS, "finetune_lr_3e-4"))
  wider = four_layers["summary"]["paired"]["electra - mlm"]["mean"]
  narrower = paired["electra - mlm"]["mean"]
  assert f"shrinks from {wider:+.1f} to {narrower:+.1f}" in section


def test_the_readme_quotes_the_demo_recipe_result(results):
  demo = _load(os.path.join(RESULTS, "demo_recipe"))
  study = demo["study"]
  with open(os.path.join(ROOT, "configs", "study", "demo_recipe.json")) as f:
    config = json.load(f)
  # The committed result is the config's study (labels aside).
  for key, value in config.items():
    if key not in ("description", "profiles"):
      assert study[key] == value, key
  assert study["pretrain_preset"] == "tiny"
  assert set(study["pretrain_hparams"]) == {"num_eval_steps"}  # the preset
  section = _readme_section("### The demo's model")
  _assert_variant_rows(section, demo, ", demo's recipe")
  section = " ".join(section.split())
  paired = demo["summary"]["paired"]
  _assert_quoted(section, "ELECTRA - random init with the demo's recipe: ",
                 paired["electra - random_init"])
  _assert_quoted(section, "ELECTRA - MLM with the demo's recipe: ",
                 paired["electra - mlm"])
  auc = demo["pretraining"][0]["eval"]["2000"]["disc_auc"]
  assert f"held-out AUC {auc:.3f}" in section
  # "far below the 4-layer study model on every task"
  final = demo["summary"]["objectives"]["electra"][-1]
  study_final = results["summary"]["objectives"]["electra"][-1]
  assert all(final[task]["mean"] < study_final[task]["mean"] - 4
             for task in demo["tasks"])
  tfidf = np.mean(list(demo["summary"]["tfidf"].values()))
  assert f"(TF-IDF: {tfidf:.1f})" in section
  _, minutes, seconds = _wall_time("demo_recipe")
  assert f"The study took {minutes} min {seconds} s" in section


def _exploration():
  with open(os.path.join(RESULTS, "demo_recipe", "exploration.json")) as f:
    return json.load(f)


def _exploration_mean(rows, model, lr, task, shape_of=None):
  """Mean over seeds of one exploration row (`shape_of`: whose shape and
  vocab the row's model has; default: its own)."""
  (row,) = [r for r in rows if r["model"] == model
            and r["shape_of"] == (shape_of or model)
            and r["finetune_lr"] == lr]
  assert len(row["scores"][task]) == 3  # 3 finetuning seeds
  return float(np.mean(row["scores"][task]))


def test_the_demo_exploration_table_is_rendered_from_its_json():
  rows = _exploration()["rows"]
  with open(os.path.join(RESULTS, "demo_recipe", "exploration.md")) as f:
    lines = [l for l in f.read().splitlines()
             if l.startswith("| ") and not l.startswith(("| model", "| ---"))]
  assert len(lines) == len(rows)
  for line, row in zip(lines, rows):
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[:3] == [row["model"], row["shape_of"],
                         f"{row['finetune_lr']:g}"]
    for cell, task in zip(cells[3:6], ("bbc_news", "tweet_sentiment",
                                       "wnut16")):
      scores = row["scores"].get(task)
      assert cell == (f"{np.mean(scores):.1f}" if scores else "not run")
    assert cells[6] == (f"{row['mean_over_tasks']:.1f}"
                        if "mean_over_tasks" in row else "")


def test_the_readme_quotes_the_demo_exploration():
  data = _exploration()
  rows, pretrained = data["rows"], data["pretrained"]
  assert data["split"] == "dev"
  mini = pretrained["mini_4x128"]["changes_from_demo"]
  assert mini["num_train_steps"] == 1500
  assert mini["model_hparam_overrides"]["num_hidden_layers"] == 4
  assert mini["model_hparam_overrides"]["hidden_size"] == 128
  mean = lambda *args, **kw: _exploration_mean(rows, *args, **kw)
  random = lambda shape, lr, task="bbc_news": mean("random_init", lr, task,
                                                   shape_of=shape)
  # "every ELECTRA pretrained on the docstrings finetunes below random
  # initialisation" (of its own shape; the demo's when it kept that shape).
  for key, model in pretrained.items():
    if key in ("mlm", "prose"):
      continue
    same_shape = not {"model_hparam_overrides", "embedding_size"} & set(
        model["changes_from_demo"])
    own_random = any(r["model"] == "random_init" and r["shape_of"] == key
                     for r in rows)
    for lr in (1e-3, 2e-3):
      if any(r["model"] == key and r["finetune_lr"] == lr for r in rows):
        for task in ("bbc_news", "tweet_sentiment"):
          assert mean(key, lr, task) < random(
              key if own_random or not same_shape else "demo", lr, task), (
                  key, lr, task)
  section = " ".join(_readme_section("### The demo's model").split())
  quotes = [
      f"the demo {mean('demo', 1e-3, 'bbc_news'):.1f} against "
      f"{random('demo', 1e-3):.1f}",
      f"pretraining lr 5e-4 {mean('pretrain_lr_5e-4', 1e-3, 'bbc_news'):.1f}",
      "the generator with its own embeddings "
      f"{mean('untied_embeddings', 1e-3, 'bbc_news'):.1f}",
      f"2 layers of width 128 {mean('wide_2x128', 1e-3, 'bbc_news'):.1f} "
      f"against {random('wide_2x128', 1e-3):.1f}",
      f"after 1,500 steps {mean('mini_4x128', 1e-3, 'bbc_news'):.1f} "
      f"against {random('mini_4x128', 1e-3):.1f}",
      f"ahead on BBC News ({mean('mini_4x128', 3e-4, 'bbc_news'):.1f} "
      f"against {random('mini_4x128', 3e-4):.1f},",
      "behind on tweet sentiment "
      f"({mean('mini_4x128', 3e-4, 'tweet_sentiment'):.1f} against "
      f"{random('mini_4x128', 3e-4, 'tweet_sentiment'):.1f})",
      "leaves BBC News at " + format(mean(
          "mini_4x128_word_embeddings_reinitialised", 1e-3, "bbc_news",
          shape_of="mini_4x128"), ".1f"),
      "pretrained embeddings, gives " + format(mean(
          "mini_4x128_layers_reinitialised", 1e-3, "bbc_news",
          shape_of="mini_4x128"), ".1f"),
      f"narrows the gap ({mean('prose', 1e-3, 'bbc_news'):.1f} against "
      f"{random('prose', 1e-3):.1f})",
  ]
  for quote in quotes:
    assert quote in section, quote
  assert mean("mini_4x128", 3e-4, "bbc_news") > random("mini_4x128", 3e-4)
  assert mean("mini_4x128", 3e-4, "tweet_sentiment") < random(
      "mini_4x128", 3e-4, "tweet_sentiment")


def test_the_demo_after_the_initializer_fix_is_quoted_from_the_json():
  data = _exploration()
  rows, fixed = data["rows"], data["pretrained"]["demo_init_fix"]
  assert fixed["changes_from_demo"] == {}  # the demo's recipe, unchanged
  mean = lambda *args, **kw: _exploration_mean(rows, *args, **kw)
  random = lambda shape, task: mean("random_init", 1e-3, task,
                                    shape_of=shape)
  before = data["pretrained"]["demo"]
  claims = [
      f"(BBC News {mean('demo_init_fix', 1e-3, 'bbc_news'):.1f} against "
      f"{random('demo_init_fix', 'bbc_news'):.1f}, tweet sentiment "
      f"{mean('demo_init_fix', 1e-3, 'tweet_sentiment'):.1f} against "
      f"{random('demo_init_fix', 'tweet_sentiment'):.1f})",
      f"(BBC News {random('demo', 'bbc_news'):.1f} before)",
      f"(held-out AUC {fixed['held_out']['disc_auc']:.3f} against "
      f"{before['held_out']['disc_auc']:.3f}",
      f"first in {fixed['replaced_word_check']} held-out sentences against "
      f"{before['replaced_word_check']})",
  ]
  with open(os.path.join(RESULTS, "demo_recipe", "exploration.md")) as f:
    text = " ".join(f.read().split())
  section = " ".join(_readme_section("### The demo's model").split())
  for claim in claims:
    assert claim in text, claim
  assert claims[0] in section


def test_the_readme_quotes_the_study_with_the_current_code():
  """benchmarks/study/init_fix: the full study again after
  `embeddings_project` got the original's initializer."""
  folder = os.path.join(RESULTS, "init_fix")
  results = _load(folder)
  section, _ = _readme_table()
  _assert_variant_rows(section, results, ", current code")
  _assert_quoted(section, "ELECTRA - MLM with the current code: ",
                 results["summary"]["paired"]["electra - mlm"])
  tfidf = np.mean(list(results["summary"]["tfidf"].values()))
  assert f"TF-IDF features (same data, {tfidf:.1f})" in " ".join(
      section.split())
  auc = results["pretraining"][0]["eval"]
  final = auc[str(max(int(step) for step in auc))]["disc_auc"]
  assert f"held-out AUC {final:.3f}" in section
  with open(os.path.join(folder, "timeline.txt")) as f:
    assert "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:51:46" in f.read()
  assert "1 h 52 min" in section
