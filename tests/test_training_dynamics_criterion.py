"""The pass/fail rule of benchmarks/training_dynamics on constructed numbers."""

import importlib.util
import pathlib

import pytest
from scipy import stats

_PATH = (pathlib.Path(__file__).resolve().parent.parent / "benchmarks"
         / "training_dynamics" / "spread.py")
_SPEC = importlib.util.spec_from_file_location("dynamics_spread", _PATH)
spread = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(spread)


def test_a_gap_within_the_originals_range_passes():
  result = spread.compare([1.1, 1.3, 1.2], [1.0, 1.4, 1.0])  # range 0.4
  assert result["gap"] == pytest.approx(1.2 - 3.4 / 3)
  assert result["spread"] == pytest.approx(0.4)
  assert result["passed"]


def test_a_gap_beyond_the_originals_range_fails():
  result = spread.compare([2.0, 2.1, 1.9], [1.0, 1.2, 1.1])  # gap 0.9
  assert result["gap"] == pytest.approx(0.9)
  assert result["gap_in_sd"] == pytest.approx(9.0)
  assert not result["passed"]


def test_the_gap_equal_to_the_range_passes_and_signs_read_per_point():
  assert spread.compare([1.5], [1.0, 2.0])["passed"]
  assert spread.compare([2.5], [1.0, 2.0])["passed"]  # gap 1.0 = range
  assert spread.sign_pattern([0.1, -0.2, 0.0]) == "+-0"


def test_pure_noise_passes_at_the_documented_rates():
  assert spread.null_pass_rate(3, 3, trials=4000) == pytest.approx(0.86,
                                                                   abs=0.02)
  assert spread.null_pass_rate(4, 4, trials=4000) == pytest.approx(0.95,
                                                                   abs=0.02)
  assert spread.null_pass_rate(4, 4, shift=3.0, trials=4000) < 0.25


def test_the_difference_of_means_is_welchs():
  original = [5.47, 5.45, 5.49, 5.44, 5.48]
  ours = [5.46, 5.50, 5.51, 5.47]
  result = spread.difference_of_means(original, ours)
  assert result["difference"] == pytest.approx(
      sum(ours) / 4 - sum(original) / 5)
  welch = stats.ttest_ind(ours, original, equal_var=False)
  assert result["z"] == pytest.approx(welch.statistic)
  assert result["standard_error"] == pytest.approx(
      result["difference"] / welch.statistic)
