"""The pass/fail rule: is ours within the original's seed-to-seed spread?

At one eval point and for one metric, with the original's per-seed values
o_1..o_n and ours x_1..x_m:

  gap    = mean(x) - mean(o)
  spread = max(o) - min(o)          (the range of the original's seeds)
  pass   iff |gap| <= spread

So the mean of ours must be no further from the original's mean than the
original's own seeds are from each other. With three seeds a side the
range is about 1.7 standard deviations of one run. How often a gap that is
pure seed noise passes depends on the seeds a side (`null_pass_rate`: about
86% with 3, 95% with 4, 98% with 5 for normal noise), so over many eval
points and metrics a few failures are expected by chance; a real shift of
three standard deviations fails four times in five with 4 seeds a side.
"""

import math
import random
import statistics


def mean(values):
  return sum(values) / len(values)


def stdev(values):
  return statistics.stdev(values) if len(values) > 1 else 0.0


def compare(ours, original):
  """The rule above on two lists of per-seed values; returns a dict."""
  if not ours or not original:
    raise ValueError("both sides need at least one seed")
  gap = mean(ours) - mean(original)
  spread = max(original) - min(original)
  sd = stdev(original)
  if sd > 0:
    gap_in_sd = gap / sd
  else:  # one seed, or seeds that agree exactly
    gap_in_sd = math.copysign(math.inf, gap) if gap else 0.0
  return {
      "ours_mean": mean(ours), "ours_min": min(ours), "ours_max": max(ours),
      "original_mean": mean(original), "original_min": min(original),
      "original_max": max(original), "original_sd": sd, "ours_sd": stdev(ours),
      "gap": gap, "spread": spread,
      # The gap in units of the original's one-run standard deviation.
      "gap_in_sd": gap_in_sd,
      "passed": abs(gap) <= spread,
  }


def sign_pattern(gaps):
  """'+', '-' or '0' per eval point: a gap of one sign at every point is
  worth a look even when each point passes."""
  return "".join("+" if g > 0 else "-" if g < 0 else "0" for g in gaps)


def null_pass_rate(n_ours, n_original, shift=0.0, trials=20000, seed=0):
  """How often `compare` passes when both sides' runs are normal with unit
  deviation and ours is off by `shift` deviations (0: pure noise)."""
  rng = random.Random(seed)
  passed = 0
  for _ in range(trials):
    ours = [rng.gauss(shift, 1.0) for _ in range(n_ours)]
    original = [rng.gauss(0.0, 1.0) for _ in range(n_original)]
    passed += compare(ours, original)["passed"]
  return passed / trials


def difference_of_means(original, ours):
  """Mean(ours) - mean(original) of two independent samples, with its
  standard error (unpooled: each side's own variance) and the difference in
  standard errors (Welch's t statistic)."""
  difference = mean(ours) - mean(original)
  error = math.sqrt(statistics.variance(original) / len(original)
                    + statistics.variance(ours) / len(ours))
  return {"difference": difference, "standard_error": error,
          "z": difference / error if error else 0.0}
