"""A study's report: results.json, results.md and two PNG plots.

* `score_vs_flops.png`: the mean headline score over tasks (95% CI bars)
  against pretraining FLOPs, one line per objective, with random
  initialisation and TF-IDF as horizontal references (the shape of the
  paper's Figure 4);
* `pretraining_loss.png`: each pretraining run's losses against FLOPs.

Plots need matplotlib (the `study` extra); without it the Markdown and JSON
are still written and the plots are skipped with a warning.
"""

import json
import math
import os

from absl import logging
import tensorflow as tf

from electra_tf import output_files

RESULTS_JSON = "results.json"
RESULTS_MD = "results.md"
SCORE_PLOT = "score_vs_flops.png"
LOSS_PLOT = "pretraining_loss.png"


def _estimate(value):
  if value is None:
    return "n/a"
  if value["n"] < 2 or math.isnan(value["ci_low"]):
    return f"{value['mean']:.1f}"
  return f"{value['mean']:.1f} ± {value['ci_high'] - value['mean']:.1f}"


def _difference(name, value):
  if value is None:
    return f"- {name}: fewer than two seed pairs, no interval"
  verdict = ("excludes zero" if value["ci_low"] > 0 or value["ci_high"] < 0
             else "includes zero")
  return (f"- {name}: {value['mean']:+.2f} points (95% CI "
          f"[{value['ci_low']:+.2f}, {value['ci_high']:+.2f}], "
          f"{value['n']} seed pairs; the interval {verdict})")


def markdown(results):
  """The Markdown tables of a results dict."""
  tasks = list(results["tasks"])
  summary = results["summary"]
  split = results["headline_split"]
  header = ("| model | pretraining FLOPs | " + " | ".join(
      f"{t} ({results['tasks'][t]['metric']})" for t in tasks)
            + " | mean over tasks |")
  lines = [f"Headline metric of each task on its {split} split, percent; "
           "mean ± half-width of the 95% CI over seeds.", "", header,
           "|" + " --- |" * (len(tasks) + 3)]
  for label, points in summary["objectives"].items():
    final = points[-1]
    lines.append(f"| {label} | {final['flops']:.3g} | " + " | ".join(
        _estimate(final[t]) for t in tasks)
                 + f" | {_estimate(final['mean_over_tasks'])} |")
  if "random_init" in summary:
    random = summary["random_init"]
    lines.append("| random init | 0 | " + " | ".join(
        _estimate(random[t]) for t in tasks)
                 + f" | {_estimate(random['mean_over_tasks'])} |")
  if "tfidf" in summary:
    tfidf = summary["tfidf"]
    shown = [tfidf.get(t) for t in tasks]
    mean = (sum(shown) / len(shown)) if None not in shown else None
    lines.append("| TF-IDF + linear | – | " + " | ".join(
        "n/a" if v is None else f"{v:.1f}" for v in shown)
                 + f" | {'n/a' if mean is None else f'{mean:.1f}'} |")
  lines += ["", "Paired differences of the mean over tasks:", ""]
  lines += [_difference(name, value)
            for name, value in summary["paired"].items()]
  lines += _health_lines(results)
  lines += _dev_selection_lines(results)
  lines += ["", "Along the budget (mean over tasks):", "",
            "| model | step | pretraining FLOPs | mean over tasks |",
            "| --- | --- | --- | --- |"]
  for label, points in summary["objectives"].items():
    lines += [f"| {label} | {p['step']} | {p['flops']:.3g} | "
              f"{_estimate(p['mean_over_tasks'])} |" for p in points]
  return "\n".join(lines) + "\n"


HEALTH_COLUMNS = (("disc_auc", "disc AUC"), ("disc_loss_gain", "loss gain"),
                  ("cls_cosine", "[CLS] cosine"),
                  ("masked_lm_accuracy", "MLM accuracy"),
                  ("sampled_masked_lm_accuracy", "sampled accuracy"))


def _dev_selection_lines(results):
  """What `--pick_on_dev` chose, with the mean dev scores it chose by."""
  selection = results.get("dev_selection")
  if not selection:
    return []
  labels = selection["labels"]
  lines = ["", "Finetuning settings picked on dev (mean dev score over "
           "finetuning seeds of each setting; the tables above show the "
           f"picked setting's {results['headline_split']} scores):", "",
           "| model | seed | step | task | picked | " + " | ".join(labels)
           + " |", "|" + " --- |" * (len(labels) + 5)]
  for row in selection["picked"]:
    model = "random init" if row["step"] is None else row["init"]
    cells = [model] + ["–" if row[k] is None else str(row[k])
                       for k in ("pretrain_seed", "step")]
    cells += [row["task"], row["picked"]] + [
        f"{row['dev_means'][label]:.1f}" for label in labels]
    lines.append("| " + " | ".join(cells) + " |")
  return lines


def _health_lines(results):
  """Pretraining eval (held-out) and health verdict of each checkpoint."""
  lines = ["", "Pretraining on held-out text at each finetuned checkpoint "
           "(see README, Pretraining health):", "",
           "| model | seed | step | " + " | ".join(
               name for _, name in HEALTH_COLUMNS) + " | verdict |",
           "|" + " --- |" * (len(HEALTH_COLUMNS) + 4)]
  for run in results["pretraining"]:
    for step, metrics in sorted(run["eval"].items(), key=lambda i: int(i[0])):
      cells = [f"{metrics[key]:.3f}" if key in metrics else "–"
               for key, _ in HEALTH_COLUMNS]
      verdict = ("healthy" if metrics.get("healthy", 0.0) >= 1.0
                 else "unhealthy")
      lines.append(f"| {run['objective']} | {run['seed']} | {step} | "
                   + " | ".join(cells) + f" | {verdict} |")
  return lines


def _pyplot():
  try:
    import matplotlib  # pylint: disable=g-import-not-at-top
    matplotlib.use("Agg")
    from matplotlib import pyplot  # pylint: disable=g-import-not-at-top
  except ImportError:
    logging.warning("matplotlib is not installed: no plots (pip install "
                    "'electra-tf[study]')")
    return None
  return pyplot


def _save(figure, path):
  temp = path + ".tmp.png"
  figure.savefig(temp, dpi=110, bbox_inches="tight")
  tf.io.gfile.rename(temp, path, overwrite=True)


def plot_scores(results, path, pyplot):
  summary = results["summary"]
  figure, axes = pyplot.subplots(figsize=(6.4, 4.4))
  for label, points in summary["objectives"].items():
    means = [p["mean_over_tasks"] for p in points]
    errors = [0.0 if math.isnan(m["ci_high"]) else m["ci_high"] - m["mean"]
              for m in means]
    axes.errorbar([p["flops"] for p in points], [m["mean"] for m in means],
                  yerr=errors, marker="o", capsize=3, label=label)
  for name, style in (("random_init", ":"), ("tfidf", "--")):
    if name not in summary:
      continue
    value = summary[name]
    level = (value["mean_over_tasks"]["mean"] if name == "random_init"
             else sum(value.values()) / len(value))
    axes.axhline(level, linestyle=style, color="grey",
                 label="random init" if name == "random_init"
                 else "TF-IDF + linear")
  largest = max((p["flops"] for points in summary["objectives"].values()
                 for p in points), default=0.0)
  # From no pretraining, like the paper's Figure 4.
  axes.set_xlim(0, 1.08 * largest or None)
  axes.ticklabel_format(axis="x", useOffset=False)
  axes.set_xlabel("pretraining FLOPs")
  axes.set_ylabel(f"mean {results['headline_split']} score over tasks (%)")
  axes.legend()
  axes.grid(alpha=0.3)
  _save(figure, path)
  pyplot.close(figure)


def plot_losses(results, path, pyplot):
  figure, axes = pyplot.subplots(figsize=(6.4, 4.4))
  flops = {label: o["flops_per_step"]
           for label, o in results["objectives"].items()}
  for run in results["pretraining"]:
    curve = run["loss_curve"]
    for tag in ("mlm_loss", "disc_loss", "replace_mlm_loss",
                "all_tokens_mlm_loss"):
      points = [(s * flops[run["objective"]], v[tag]) for s, v in curve
                if tag in v]
      if points:
        axes.plot(*zip(*points), label=f"{run['objective']} seed "
                  f"{run['seed']} {tag.replace('_loss', '')}")
  axes.set_xlabel("pretraining FLOPs")
  axes.set_ylabel("training loss")
  axes.set_yscale("log")
  axes.legend(fontsize="small")
  axes.grid(alpha=0.3)
  _save(figure, path)
  pyplot.close(figure)


def write(results, output_dir):
  """Writes the report files; returns {name: path} of those written."""
  written = {}
  path = os.path.join(output_dir, RESULTS_JSON)
  output_files.write_atomically(path, json.dumps(results, indent=1))
  written["json"] = path
  path = os.path.join(output_dir, RESULTS_MD)
  output_files.write_atomically(path, markdown(results))
  written["markdown"] = path
  pyplot = _pyplot()
  if pyplot is not None:
    for name, plot in ((SCORE_PLOT, plot_scores), (LOSS_PLOT, plot_losses)):
      written[name] = os.path.join(output_dir, name)
      plot(results, written[name], pyplot)
  for line in markdown(results).splitlines():
    logging.info("%s", line)
  return written
