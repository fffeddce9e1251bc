"""Reads the finished runs and writes report.md, results.json and the plots.

Importable without matplotlib: only `write` needs it (for the PNGs).
"""

import datetime
import json
import os
import platform
import subprocess

import spread

DONE = "DONE.json"
# Held-out metrics of the original's metric_fn; the first four are the ones
# the pass/fail summary is about.
CHECKED = ("masked_lm_loss", "disc_loss", "disc_auc", "disc_accuracy")
METRICS = CHECKED + ("masked_lm_accuracy", "sampled_masked_lm_accuracy",
                     "disc_precision", "disc_recall")
TRAIN_LOSSES = ("total_loss", "mlm_loss", "disc_loss")
# Config keys that name files or runs, expected to differ between the sides.
PATH_KEYS = ("model_dir", "model_name", "pretrain_tfrecords", "results_pkl",
             "results_txt")
COLORS = {"original": "tab:blue", "ours": "tab:red"}


def _load(path):
  with open(path) as f:
    return json.load(f)


def _runs(work_dir, name, implementation):
  """seed -> the files of each finished run of one side."""
  folder = os.path.join(work_dir, "runs", name, implementation)
  runs = {}
  for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
    run_dir = os.path.join(folder, entry)
    if not os.path.exists(os.path.join(run_dir, DONE)):
      continue
    with open(os.path.join(run_dir, "train.jsonl")) as f:
      train = [json.loads(line) for line in f if line.strip()]
    runs[int(entry[len("seed"):])] = {
        "eval": _load(os.path.join(run_dir, "eval.json")),
        "train": train,
        "config": _load(os.path.join(run_dir, "config.json")),
        "hparams": _load(os.path.join(run_dir, "hparams.json")),
        "timing": _load(os.path.join(run_dir, DONE))}
  return runs


def setting_differences(original_config, our_config):
  """Keys both configs have whose values differ (paths aside)."""
  shared = set(original_config) & set(our_config)
  return sorted(
      (k, original_config[k], our_config[k]) for k in shared
      if k not in PATH_KEYS and original_config[k] != our_config[k])


def _compare_eval(runs):
  """step -> metric -> `spread.compare` (+ the per-seed values)."""
  steps = None
  for side in runs.values():
    for run in side.values():
      steps = set(run["eval"]) if steps is None else steps & set(run["eval"])
  table = {}
  for step in sorted(steps or (), key=int):
    table[step] = {}
    for metric in METRICS:
      values = {impl: [run["eval"][step][metric] for run in side.values()]
                for impl, side in runs.items()}
      result = spread.compare(values["ours"], values["original"])
      result.update({f"{impl}_values": v for impl, v in values.items()})
      table[step][metric] = result
  return table


def _train_curves(side):
  """step -> loss -> per-seed values, at steps every seed logged."""
  steps = None
  for run in side.values():
    logged = {row["step"] for row in run["train"]}
    steps = logged if steps is None else steps & logged
  curves = {}
  for step in sorted(steps or ()):
    curves[step] = {loss: [next(r[loss] for r in run["train"]
                                if r["step"] == step) for run in side.values()]
                    for loss in TRAIN_LOSSES}
  return curves


def _machine():
  try:
    lines = subprocess.run(["lscpu"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    model = next(l.split(":", 1)[1].strip() for l in lines
                 if l.startswith("Model name"))
  except (OSError, subprocess.CalledProcessError, StopIteration):
    model = platform.processor() or platform.machine()
  return f"{model}, {os.cpu_count()} cores"


def collect(work_dir, names, implementations, variant, data_orders, command,
            original_runs_of=None):
  """Everything the report shows, as one JSON-serialisable dict.

  `original_runs_of`: configuration -> the configuration whose original
  runs it shares (its changes are ours-only settings).
  """
  original_runs_of = original_runs_of or {}
  results = {"command": command, "machine": _machine(),
             "date": datetime.date.today().isoformat(), "variant": variant,
             "checked_metrics": list(CHECKED), "configs": {}}
  for name in names:
    runs = {impl: _runs(work_dir, original_runs_of.get(name, name)
                        if impl == "original" else name, impl)
            for impl in implementations}
    if not all(runs.values()):
      continue
    first = {impl: next(iter(side.values())) for impl, side in runs.items()}
    hparams = dict(first["ours"]["hparams"])
    for key in ("preset", "seed"):
      hparams.pop(key, None)
    results["configs"][name] = {
        "hparams": hparams,
        "data_order": data_orders[name],
        "not_in_original": sorted(
            set(first["original"]["config"]["not_in_original"])
            | (set(hparams) - set(first["original"]["config"]["config"]))),
        "original_runs_of": original_runs_of.get(name),
        "setting_differences": setting_differences(
            first["original"]["config"]["config"],
            first["ours"]["config"]["config"]),
        "seeds": {impl: sorted(side) for impl, side in runs.items()},
        "eval": _compare_eval(runs),
        "train": {impl: _train_curves(side) for impl, side in runs.items()},
        "timing": {impl: {k: sum(r["timing"][k] for r in side.values())
                          for k in ("wall_seconds", "cpu_seconds")}
                   for impl, side in runs.items()},
    }
    seeds = [len(side) for side in runs.values()]
    results["configs"][name]["null_pass_rate"] = spread.null_pass_rate(
        seeds[1], seeds[0])
  return results


def write(results, output_dir):
  """results.json, report.md and <config>.png under `output_dir`."""
  os.makedirs(output_dir, exist_ok=True)
  with open(os.path.join(output_dir, "results.json"), "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)
  for name, config in results["configs"].items():
    plot(name, config, os.path.join(output_dir, f"{name}.png"))
  with open(os.path.join(output_dir, "report.md"), "w") as f:
    f.write("\n".join(markdown(results)) + "\n")


def _bands(ax, xs, per_step, implementation):
  means = [spread.mean(v) for v in per_step]
  ax.plot(xs, means, color=COLORS[implementation], label=implementation,
          marker="o" if len(xs) < 12 else None, markersize=3)
  ax.fill_between(xs, [min(v) for v in per_step], [max(v) for v in per_step],
                  color=COLORS[implementation], alpha=0.2, linewidth=0)


def plot(name, config, path):
  """Training losses and held-out metrics, mean and min-max band per side."""
  import matplotlib  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  matplotlib.use("Agg")
  from matplotlib import pyplot  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  panels = [("train", loss) for loss in TRAIN_LOSSES] + [
      ("eval", m) for m in METRICS if m != "sampled_masked_lm_accuracy"]
  figure, axes = pyplot.subplots(2, 5, figsize=(15, 5.6))
  for ax, (kind, key) in zip(axes.flat, panels):
    for implementation in ("original", "ours"):
      if kind == "train":
        curve = config["train"][implementation]
        xs = [int(s) for s in curve]
        _bands(ax, xs, [curve[s][key] for s in curve], implementation)
      else:
        xs = [int(s) for s in config["eval"]]
        _bands(ax, xs, [config["eval"][s][key][f"{implementation}_values"]
                        for s in config["eval"]], implementation)
    ax.set_title(f"{kind}: {key}", fontsize=9)
    ax.tick_params(labelsize=7)
    ax.set_xlabel("step", fontsize=7)
  axes.flat[0].legend(fontsize=7)
  seeds = config["seeds"]
  figure.suptitle(
      f"{name}: mean and min-max over seeds (original {len(seeds['original'])}"
      f", ours {len(seeds['ours'])}); training losses are means over "
      "each 50 steps", fontsize=9)
  figure.tight_layout()
  figure.savefig(path, dpi=60)
  pyplot.close(figure)


def _fmt(value):
  return f"{value:.4f}" if abs(value) < 10 else f"{value:.3f}"


def markdown(results):
  """The lines of report.md."""
  lines = ["# Training dynamics: electra-tf against the original ELECTRA", "",
           f"Produced on {results['date']} by", "", "```",
           f"python {results['command']}", "```", "",
           f"Machine: {results['machine']}, shared with other jobs; every run "
           "under `nice -n 19`.", ""]
  lines += _summary(results)
  for name, config in results["configs"].items():
    lines += _config_section(name, config)
  return lines


def _summary(results):
  lines = ["## Summary", "",
           "Pass: |mean(ours) - mean(original)| <= max - min of the "
           "original's seeds, at that eval point, for that metric (see "
           "`spread.py`).", "",
           "| configuration | seeds (original / ours) | eval points | "
           "checks passed (" + ", ".join(CHECKED) + ") | all 8 metrics | "
           "expected pass rate of pure noise |",
           "|---|---|---|---|---|---|"]
  for name, config in results["configs"].items():
    checked = [config["eval"][s][m]["passed"] for s in config["eval"]
               for m in CHECKED]
    every = [config["eval"][s][m]["passed"] for s in config["eval"]
             for m in METRICS]
    lines.append(
        f"| {name} | {len(config['seeds']['original'])} / "
        f"{len(config['seeds']['ours'])} | "
        f"{', '.join(config['eval'])} | {sum(checked)}/{len(checked)} | "
        f"{sum(every)}/{len(every)} | {100 * config['null_pass_rate']:.0f}% |")
  return lines + [""]


def _config_section(name, config):
  lines = [f"## `{name}`", "",
           "Hparams given to both (the `tiny` preset written out, then this "
           "configuration's changes):", "", "```",
           json.dumps(config["hparams"], sort_keys=True), "```", "",
           *([f"The original's runs are `{config['original_runs_of']}`'s: "
              "this configuration only changes settings the original does "
              "not have.", ""] if config.get("original_runs_of") else []),
           f"Training data: {config['data_order']}.", "",
           "Resolved configs compared key by key (paths aside): "
           + ("identical." if not config["setting_differences"] else
              "differences: " + "; ".join(
                  f"`{k}` original {o!r} ours {x!r}"
                  for k, o, x in config["setting_differences"])),
           "Keys the original does not have (ours only): "
           + ", ".join(f"`{k}`" for k in config["not_in_original"]) + ".", "",
           f"![{name}]({name}.png)", "",
           "Pass/fail per eval point: gap = mean(ours) - mean(original), "
           "spread = the original's max - min, and the gap in the original's "
           "standard deviations.", "",
           "| metric | " + " | ".join(f"step {s}" for s in config["eval"])
           + " | signs |", "|---|" + "---|" * (len(config["eval"]) + 1)]
  for metric in METRICS:
    cells = []
    for step in config["eval"]:
      r = config["eval"][step][metric]
      cells.append(f"{'pass' if r['passed'] else '**FAIL**'} "
                   f"{r['gap']:+.4f} / {r['spread']:.4f} "
                   f"({r['gap_in_sd']:+.1f} sd)")
    signs = spread.sign_pattern(
        [config["eval"][s][metric]["gap"] for s in config["eval"]])
    lines.append(f"| {metric} | " + " | ".join(cells) + f" | {signs} |")
  lines += ["", "Means (min-max) over seeds:", "",
            "| step | metric | original | ours |", "|---|---|---|---|"]
  for step in config["eval"]:
    for metric in METRICS:
      r = config["eval"][step][metric]
      lines.append(
          f"| {step} | {metric} | {_fmt(r['original_mean'])} "
          f"({_fmt(r['original_min'])}-{_fmt(r['original_max'])}) | "
          f"{_fmt(r['ours_mean'])} ({_fmt(r['ours_min'])}-"
          f"{_fmt(r['ours_max'])}) |")
  timing = config["timing"]
  lines += ["", "Run time (training + evaluation, all seeds): " + ", ".join(
      f"{impl} {t['wall_seconds'] / 60:.1f} min wall, "
      f"{t['cpu_seconds'] / 60:.1f} min CPU" for impl, t in timing.items())
            + ".", ""]
  return lines
