"""README's and benchmarks/README.md's account of the side-by-side training
runs follows from the committed results of benchmarks/training_dynamics:
`results/` (after `embeddings_project` got the original's initializer) and
`results/before_init_fix/`."""

import json
import statistics
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AFTER = os.path.join(ROOT, "benchmarks", "training_dynamics", "results")
BEFORE = os.path.join(AFTER, "before_init_fix")
CHECKED = ("masked_lm_loss", "disc_loss", "disc_auc", "disc_accuracy")
DISCRIMINATOR = CHECKED[1:]
SHARED = ("tiny_shared", "variant_shared")
NO_DROPOUT = "tiny_shared_no_dropout"
STREAM = "tiny_original_stream"


def _load(name, results=BEFORE):
  with open(os.path.join(results, name)) as f:
    return json.load(f)


def _text(*path):
  with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
    return " ".join(f.read().split())


def _passes(config, metrics):
  return sum(config["eval"][step][metric]["passed"]
             for step in config["eval"] for metric in metrics)


def _mlm_gaps(config):
  return [config["eval"][step]["masked_lm_loss"]["gap"]
          for step in sorted(config["eval"], key=int)]


def _last(cross_eval, name):
  (step,) = cross_eval[name]
  return cross_eval[name][step]


def _training_gaps(cross):
  """Per seed: ours' weights minus the original's, both scored by ours."""
  return [seed["masked_lm_loss"]["ours_by_ours"]
          - seed["masked_lm_loss"]["original_by_ours"]
          for _, seed in sorted(cross["seeds"].items())]


def test_before_the_fix_every_configuration_has_three_seeds_a_side():
  configs = _load("results.json")["configs"]
  assert set(configs) == {"tiny", "variant", *SHARED, NO_DROPOUT}
  for config in configs.values():
    assert config["seeds"] == {"original": [1, 2, 3], "ours": [1, 2, 3]}


def test_before_the_fix_the_discriminator_counts_are_the_committed_ones():
  configs = _load("results.json")["configs"]
  bench = _text("benchmarks", "README.md")
  shared = sum(_passes(configs[name], DISCRIMINATOR) for name in SHARED)
  noise = round(configs["tiny_shared"]["null_pass_rate"] * 24)
  assert f"pass {shared} of 24 checks in the two shared" in bench
  assert f"pure noise would pass about {noise}" in bench
  own = [_passes(configs[name], DISCRIMINATOR) for name in ("tiny", "variant")]
  assert (f"{own[0]} of 12 pass in `tiny` and {own[1]} of 12 in `variant`"
          in bench)
  assert _passes(configs["tiny_shared"], DISCRIMINATOR) == 12  # "every one"
  for name, config in configs.items():
    assert (f"| {name} | {_passes(config, CHECKED)}/16 | "
            f"{_passes(config, DISCRIMINATOR)}/12 |") in bench


def test_before_the_fix_the_generator_gap_is_the_committed_one():
  configs = _load("results.json")["configs"]
  shared = [configs[name] for name in (*SHARED, NO_DROPOUT)]
  gaps = [gap for config in shared for gap in _mlm_gaps(config)]
  assert min(gaps) > 0  # "above the original's at every evaluation"
  quoted = f"(+{min(gaps):.3f} to +{max(gaps):.3f} nats, about 1%"
  assert quoted in _text("benchmarks", "README.md")
  failing = sum(not config["eval"][step]["masked_lm_loss"]["passed"]
                for config in shared for step in config["eval"])
  assert (f"outside the original's spread at {failing} of {len(gaps)} points"
          in _text("benchmarks", "README.md"))
  no_dropout = _mlm_gaps(configs[NO_DROPOUT])[-1]
  assert f"(+{no_dropout:.3f} at step 600 as each side evaluates itself" in (
      _text("benchmarks", "README.md"))


def test_before_the_fix_the_cross_evaluation_is_the_committed_one():
  cross = _load("cross_eval.json")
  readme = _text("README.md")
  bench = _text("benchmarks", "README.md")
  tiny, variant, no_dropout = (_last(cross, name)
                               for name in (*SHARED, NO_DROPOUT))
  gap = lambda result: result["summary"]["masked_lm_loss"]["training_gap"]
  seeds = _training_gaps(tiny)
  assert all(value > 0 for value in seeds + _training_gaps(variant))
  assert (f"ours' generator ended +{gap(tiny):.3f} nats "
          f"behind (+{min(seeds):.3f} to +{max(seeds):.3f} over the seeds)"
          in readme)
  per_seed = lambda result: ", ".join(f"+{v:.3f}"
                                      for v in _training_gaps(result))
  assert (f"+{gap(tiny):.3f} nats behind in `tiny_shared` "
          f"({per_seed(tiny)} for seeds 1-3)") in bench
  assert f"+{gap(variant):.3f} in `variant_shared` ({per_seed(variant)})" in (
      bench)
  assert f"+{gap(no_dropout):.3f} on the same masks" in bench
  largest = max(abs(result["summary"][metric]["training_gap"])
                for result in (tiny, variant, no_dropout)
                for metric in DISCRIMINATOR)
  assert f"differ by at most {largest:.3f}" in bench
  evaluation = [result["summary"]["masked_lm_loss"]["evaluation_gap"]
                for result in (tiny, variant, no_dropout)]
  assert (f"+{min(evaluation):.3f} to +{max(evaluation):.3f} higher than "
          "the original's") in bench


# After the fix: `tiny`, `variant` and the two shared configurations.


def _table_row(name, config):
  every = sum(result["passed"] for point in config["eval"].values()
              for result in point.values())
  return (f"| {name} | {_passes(config, CHECKED)}/16 | "
          f"{_passes(config, DISCRIMINATOR)}/12 | {every}/32 | "
          f"{round(config['null_pass_rate'] * 100)}% of checks |")


def _signed(value):
  return f"{value:+.3f}"


def after_fix_claims():
  """Placeholder -> text of the after-fix account in benchmarks/README.md."""
  configs = _load("results.json", AFTER)["configs"]
  cross = _load("cross_eval.json", AFTER)
  noise = _load("eval_noise.json", AFTER)
  shared = [configs[name] for name in SHARED]
  gaps = [gap for config in shared for gap in _mlm_gaps(config)]
  tiny, variant = (_last(cross, name) for name in SHARED)
  per_seed = lambda result: ", ".join(
      _signed(v) for v in _training_gaps(result))
  training_gap = lambda result: _signed(
      result["summary"]["masked_lm_loss"]["training_gap"])
  metrics = noise["metrics"]
  return {
      "TABLE": "\n".join(_table_row(name, configs[name])
                         for name in ("tiny", "variant", *SHARED, STREAM)),
      "SHARED": str(sum(_passes(c, CHECKED) for c in shared)),
      "NOISE32": str(round(shared[0]["null_pass_rate"] * 32)),
      "SHAREDDISC": str(sum(_passes(c, DISCRIMINATOR) for c in shared)),
      "MLMRANGE": f"{_signed(min(gaps))} to {_signed(max(gaps))}",
      "TGAP_TINY": training_gap(tiny), "SEEDS_TINY": per_seed(tiny),
      "TGAP_VARIANT": training_gap(variant),
      "SEEDS_VARIANT": per_seed(variant),
      "DISCMAX": f"{max(abs(r['summary'][m]['training_gap']) for r in (tiny, variant) for m in DISCRIMINATOR):.3f}",
      "DRAWS": str(noise["draws"]),
      "EN_MLM": _signed(metrics["masked_lm_loss"]["difference"]),
      "EN_MLM_SE": f"{metrics['masked_lm_loss']['standard_error']:.3f}",
      "EN_DISC": f"{metrics['disc_loss']['difference']:+.4f}",
      "EN_DISC_SE": f"{metrics['disc_loss']['standard_error']:.4f}",
      "EN_ZMAX": f"{max(abs(m['z']) for m in metrics.values()):.1f}",
      "EN_SD": f"{metrics['masked_lm_loss']['ours_sd']:.2f}",
      "OWN_TINY": str(_passes(configs["tiny"], CHECKED)),
      "OWN_VARIANT": str(_passes(configs["variant"], CHECKED)),
      "OWN_DISC_TINY": str(_passes(configs["tiny"], DISCRIMINATOR)),
      "OWN_DISC_VARIANT": str(_passes(configs["variant"], DISCRIMINATOR)),
      "STREAM_PASS": str(_passes(configs[STREAM], CHECKED)),
      "STREAM_FIRST": _signed(_mlm_gaps(configs[STREAM])[0]),
      "TINY_FIRST": _signed(_mlm_gaps(configs["tiny"])[0]),
      "STREAM_LAST": _signed(_mlm_gaps(configs[STREAM])[-1]),
      "CURVES": ", ".join(f"{_train_curve_gap(configs[name]):.3f}"
                          for name in ("tiny", STREAM, "tiny_shared")),
  }


def _train_curve_gap(config, metric="mlm_loss", from_step=100):
  """Mean over logged steps of |mean(ours) - mean(original)| of a training
  loss (warmup's first steps left out)."""
  train = config["train"]
  return statistics.mean(
      abs(statistics.mean(train["ours"][step][metric])
          - statistics.mean(train["original"][step][metric]))
      for step in train["ours"] if int(step) >= from_step)


def test_after_the_fix_every_configuration_has_three_seeds_a_side():
  configs = _load("results.json", AFTER)["configs"]
  assert set(configs) == {"tiny", "variant", *SHARED, STREAM}
  assert configs[STREAM]["original_runs_of"] == "tiny"
  assert configs[STREAM]["hparams"]["input_files_interleaved"] == 4
  assert configs[STREAM]["hparams"]["input_shuffle_buffer"] == 100
  for config in configs.values():
    assert config["seeds"] == {"original": [1, 2, 3], "ours": [1, 2, 3]}


def test_after_the_fix_benchmarks_readme_quotes_the_committed_results():
  claims = after_fix_claims()
  bench = _text("benchmarks", "README.md")
  for row in claims["TABLE"].split("\n"):
    assert row in bench
  before = [gap for name in SHARED
            for gap in _mlm_gaps(_load("results.json")["configs"][name])]
  assert min(before) > 0
  phrases = [
      f"pass {claims['SHARED']} of 32 checks (pure noise would pass about "
      f"{claims['NOISE32']}), the discriminator {claims['SHAREDDISC']} of 24",
      f"is {claims['MLMRANGE']} from the original's (before the fix: "
      f"+{min(before):.3f} to +{max(before):.3f}, above it at every point)",
      f"ours' final weights are {claims['TGAP_TINY']} nats from the "
      f"original's in `tiny_shared` ({claims['SEEDS_TINY']} for seeds 1-3)",
      f"and {claims['TGAP_VARIANT']} in `variant_shared` "
      f"({claims['SEEDS_VARIANT']})",
      f"metrics differ by at most {claims['DISCMAX']}",
      f"evaluated {claims['DRAWS']} times by each side",
      f"reads {claims['EN_MLM']} ± {claims['EN_MLM_SE']} nats of MLM loss "
      f"from the original's and {claims['EN_DISC']} ± {claims['EN_DISC_SE']}"
      " of disc loss",
      f"more than {claims['EN_ZMAX']} standard errors",
      f"move the MLM loss by {claims['EN_SD']} (standard deviation)",
      f"`tiny` passes {claims['OWN_TINY']} of 16 and `variant` "
      f"{claims['OWN_VARIANT']} (the discriminator {claims['OWN_DISC_TINY']} "
      f"and {claims['OWN_DISC_VARIANT']} of 12)",
      f"`tiny_original_stream` passes {claims['STREAM_PASS']} of 16",
      f"step 150 is {claims['STREAM_FIRST']} from the original's (ours' "
      f"default stream: {claims['TINY_FIRST']})",
      f"at step 600 it is still {claims['STREAM_LAST']}",
      f"differ by {claims['CURVES']} nats on average",
  ]
  for phrase in phrases:
    assert phrase in bench, phrase


def test_after_the_fix_the_gaps_are_noise():
  """What the account concludes: the training gap has both signs over the
  seeds and is within the original's spread; the evaluations agree."""
  cross = _load("cross_eval.json", AFTER)
  for name in SHARED:
    seeds = _training_gaps(_last(cross, name))
    assert min(seeds) < 0 < max(seeds), name
    assert abs(statistics.mean(seeds)) < 0.01, name
  metrics = _load("eval_noise.json", AFTER)["metrics"]
  assert max(abs(m["z"]) for m in metrics.values()) < 2.5
  evaluation = sorted(
      (_last(cross, name)["summary"]["masked_lm_loss"]["evaluation_gap"]
       for name in SHARED), reverse=True)
  assert all(gap < 1.5 * metrics["masked_lm_loss"]["ours_sd"]
             for gap in evaluation)
  assert ("so the " + " and ".join(f"+{gap:.3f}" for gap in evaluation)
          + ' "evaluation gaps"') in _text("benchmarks", "README.md")


def test_after_the_fix_readme_quotes_the_committed_results():
  claims = after_fix_claims()
  readme = _text("README.md")
  phrases = [
      f"pass {claims['SHARED']} of 32 checks against the original's seed "
      f"spread (pure noise would pass about {claims['NOISE32']})",
      f"ours' final generator is {claims['TGAP_TINY']} nats (MLM loss) from "
      f"the original's for the demo's recipe and {claims['TGAP_VARIANT']} "
      "for the variant, with seeds on both sides of zero",
      f"({claims['OWN_DISC_TINY']} and {claims['OWN_DISC_VARIANT']} of 12 "
      "discriminator checks pass)",
      f"the training MLM loss curves differ by {claims['CURVES']} nats on "
      "average with ours' default stream, the original's sizes and one "
      "shared order",
  ]
  for phrase in phrases:
    assert phrase in readme, phrase
