"""Means, 95% confidence intervals and paired differences over seeds.

Plain Python (no SciPy at run time): Student's t quantile comes from its
CDF, the regularized incomplete beta function evaluated by Lentz's
continued fraction, inverted by bisection. Tests compare every value with
`scipy.stats`.
"""

import dataclasses
import math

CONFIDENCE = 0.95
_EPSILON = 1e-15
_TINY = 1e-300
_MAX_TERMS = 400


def _beta_fraction(a, b, x):
  """The continued fraction of I_x(a, b) (modified Lentz)."""
  c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
  d = 1.0 / (d if abs(d) > _TINY else _TINY)
  result = d
  for m in range(1, _MAX_TERMS):
    for numerator in (
        m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
        -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
      d = 1.0 + numerator * d
      d = 1.0 / (d if abs(d) > _TINY else _TINY)
      c = 1.0 + numerator / c
      c = c if abs(c) > _TINY else _TINY
      result *= c * d
    if abs(c * d - 1.0) < _EPSILON:
      break
  return result


def regularized_beta(a, b, x):
  """I_x(a, b), the CDF of the Beta(a, b) distribution at x."""
  if x <= 0.0:
    return 0.0
  if x >= 1.0:
    return 1.0
  log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
               + a * math.log(x) + b * math.log1p(-x))
  if x < (a + 1.0) / (a + b + 2.0):
    return math.exp(log_front) * _beta_fraction(a, b, x) / a
  return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t, df):
  """P(T <= t) for Student's t with `df` degrees of freedom."""
  tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t * t))
  return 1.0 - tail if t > 0 else tail


def t_quantile(p, df):
  """The t with `t_cdf(t, df) == p` (0 < p < 1), by bisection."""
  if not 0.0 < p < 1.0:
    raise ValueError(f"p must be in (0, 1), got {p}")
  if p < 0.5:
    return -t_quantile(1.0 - p, df)
  low, high = 0.0, 1.0
  while t_cdf(high, df) < p:
    low, high = high, 2.0 * high
  for _ in range(200):
    middle = 0.5 * (low + high)
    if t_cdf(middle, df) < p:
      low = middle
    else:
      high = middle
    if high - low < 1e-13 * max(1.0, high):
      break
  return 0.5 * (low + high)


@dataclasses.dataclass(frozen=True)
class Estimate:
  """Mean of `n` values and its two-sided confidence interval.

  With one value the interval is unknown (NaN); `half_width` is the
  distance from the mean to either end.
  """
  mean: float
  low: float
  high: float
  n: int

  @property
  def half_width(self):
    return self.high - self.mean

  def excludes_zero(self):
    return self.low > 0.0 or self.high < 0.0

  def to_dict(self):
    return {"mean": self.mean, "ci_low": self.low, "ci_high": self.high,
            "n": self.n}


def mean_ci(values, confidence=CONFIDENCE):
  """Mean and Student-t confidence interval of `values` (seeds)."""
  values = [float(v) for v in values]
  n = len(values)
  if not n:
    raise ValueError("no values")
  mean = math.fsum(values) / n
  if n == 1:
    return Estimate(mean, math.nan, math.nan, 1)
  variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
  half = t_quantile(0.5 + confidence / 2.0, n - 1) * math.sqrt(variance / n)
  return Estimate(mean, mean - half, mean + half, n)


def paired_difference(first, second, confidence=CONFIDENCE):
  """Mean and CI of `first[i] - second[i]` (runs paired by seed)."""
  if len(first) != len(second):
    raise ValueError(f"{len(first)} values paired with {len(second)}")
  return mean_ci([a - b for a, b in zip(first, second)], confidence)
