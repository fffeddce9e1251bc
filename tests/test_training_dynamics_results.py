"""README's and benchmarks/README.md's account of the side-by-side training
runs follows from the committed results of benchmarks/training_dynamics."""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "training_dynamics", "results",
                       "before_init_fix")
CHECKED = ("masked_lm_loss", "disc_loss", "disc_auc", "disc_accuracy")
DISCRIMINATOR = CHECKED[1:]
SHARED = ("tiny_shared", "variant_shared")
NO_DROPOUT = "tiny_shared_no_dropout"


def _load(name):
  with open(os.path.join(RESULTS, name)) as f:
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


def test_every_configuration_has_three_seeds_a_side():
  configs = _load("results.json")["configs"]
  assert set(configs) == {"tiny", "variant", *SHARED, NO_DROPOUT}
  for config in configs.values():
    assert config["seeds"] == {"original": [1, 2, 3], "ours": [1, 2, 3]}


def test_the_discriminator_counts_are_the_committed_ones():
  configs = _load("results.json")["configs"]
  readme = _text("README.md")
  bench = _text("benchmarks", "README.md")
  shared = sum(_passes(configs[name], DISCRIMINATOR) for name in SHARED)
  noise = round(configs["tiny_shared"]["null_pass_rate"] * 24)
  assert f"pass {shared} of 24 checks against" in readme
  assert f"pass {shared} of 24 checks in the two shared" in bench
  assert f"(pure noise would pass about {noise})" in readme
  assert f"pure noise would pass about {noise}" in bench
  own = [_passes(configs[name], DISCRIMINATOR) for name in ("tiny", "variant")]
  assert f"({own[0]} and {own[1]} of 12 discriminator checks pass)" in readme
  assert (f"{own[0]} of 12 pass in `tiny` and {own[1]} of 12 in `variant`"
          in bench)
  assert _passes(configs["tiny_shared"], DISCRIMINATOR) == 12  # "every one"
  for name, config in configs.items():
    assert (f"| {name} | {_passes(config, CHECKED)}/16 | "
            f"{_passes(config, DISCRIMINATOR)}/12 |") in bench


def test_the_generator_gap_is_the_committed_one():
  configs = _load("results.json")["configs"]
  shared = [configs[name] for name in (*SHARED, NO_DROPOUT)]
  gaps = [gap for config in shared for gap in _mlm_gaps(config)]
  assert min(gaps) > 0  # "above the original's at every evaluation"
  quoted = f"(+{min(gaps):.3f} to +{max(gaps):.3f} nats, about 1%"
  assert quoted in _text("README.md") and quoted in _text(
      "benchmarks", "README.md")
  failing = sum(not config["eval"][step]["masked_lm_loss"]["passed"]
                for config in shared for step in config["eval"])
  assert (f"outside the original's spread at {failing} of {len(gaps)} points"
          in _text("benchmarks", "README.md"))
  no_dropout = _mlm_gaps(configs[NO_DROPOUT])[-1]
  assert f"(+{no_dropout:.3f} at step 600 as each side evaluates itself" in (
      _text("benchmarks", "README.md"))


def test_the_cross_evaluation_is_the_committed_one():
  cross = _load("cross_eval.json")
  readme = _text("README.md")
  bench = _text("benchmarks", "README.md")
  tiny, variant, no_dropout = (_last(cross, name)
                               for name in (*SHARED, NO_DROPOUT))
  gap = lambda result: result["summary"]["masked_lm_loss"]["training_gap"]
  seeds = _training_gaps(tiny)
  assert all(value > 0 for value in seeds + _training_gaps(variant))
  assert (f"+{gap(tiny):.3f} nats behind the original's for the demo's "
          f"recipe (+{min(seeds):.3f} to +{max(seeds):.3f} over the 3 seeds)"
          in readme)
  assert f"and +{gap(variant):.3f} for the variant" in readme
  assert f"(with dropout off the gap is +{gap(no_dropout):.3f})" in readme
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
