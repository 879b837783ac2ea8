from __future__ import annotations

import random
from statistics import pvariance

import pytest
from scipy.stats import binomtest

from eval_pipeline.core.analysis.stats import (
    flakiness,
    mcnemar_exact,
    paired_bootstrap_ci,
    pass_at_k,
    pass_hat_k,
    variance_split,
)


def test_mcnemar_hand_computed_values() -> None:
    # n = 9 discordant pairs, tail = C(9,0) + C(9,1) = 10 → p = 2 * 10 / 512
    assert mcnemar_exact(1, 8) == 0.0390625
    assert mcnemar_exact(8, 1) == 0.0390625
    assert mcnemar_exact(0, 5) == 0.0625
    assert mcnemar_exact(4, 4) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


@pytest.mark.parametrize(("b", "c"), [(0, 1), (2, 9), (7, 3), (10, 30), (60, 40), (5, 6)])
def test_mcnemar_matches_scipy_binomial_test(b: int, c: int) -> None:
    expected = binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_bootstrap_of_a_constant_shift_is_the_shift() -> None:
    base = [0.0, 0.5, 0.25, 0.75, 1.0, 0.5]
    head = [b + 0.25 for b in base]
    assert paired_bootstrap_ci(base, head) == (0.25, 0.25, 0.25)


def test_bootstrap_is_paired_not_pooled() -> None:
    rng = random.Random(1)
    base = [rng.random() for _ in range(40)]
    head = [b + 0.05 + rng.uniform(-0.01, 0.01) for b in base]
    mean, lo, hi = paired_bootstrap_ci(base, head)
    # the case-to-case spread (~0.29) dwarfs the shift; only pairing makes it significant
    assert 0.04 < lo <= mean <= hi < 0.06


def test_bootstrap_is_deterministic_per_seed() -> None:
    base = [0.1, 0.9, 0.4, 0.6, 0.3, 0.8, 0.2]
    head = [0.3, 0.7, 0.5, 0.9, 0.2, 0.8, 0.6]
    first = paired_bootstrap_ci(base, head, seed=3)
    assert paired_bootstrap_ci(base, head, seed=3) == first
    assert paired_bootstrap_ci(base, head, seed=4) != first
    mean, lo, hi = first
    assert mean == pytest.approx(sum(head) / 7 - sum(base) / 7)
    assert lo < mean < hi


def test_bootstrap_narrower_interval_at_lower_level() -> None:
    base = [0.1, 0.9, 0.4, 0.6, 0.3, 0.8, 0.2, 0.5]
    head = [0.3, 0.7, 0.5, 0.9, 0.2, 0.8, 0.6, 0.5]
    _, lo95, hi95 = paired_bootstrap_ci(base, head, level=0.95)
    _, lo50, hi50 = paired_bootstrap_ci(base, head, level=0.50)
    assert lo95 < lo50 < hi50 < hi95


def test_bootstrap_rejects_unpaired_or_empty_input() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap_ci([0.1, 0.2], [0.3])
    with pytest.raises(ValueError):
        paired_bootstrap_ci([], [])


def test_pass_at_k_and_pass_hat_k_hand_computed() -> None:
    # n=5, c=2, k=2: C(3,2)/C(5,2) = 3/10 of pairs have no pass; C(2,2)/C(5,2) = 1/10 all pass
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_hat_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(5, 4, 2) == 1.0  # fewer failures than k: some pass is certain
    assert pass_hat_k(5, 1, 2) == 0.0  # fewer passes than k: all passing is impossible
    assert pass_at_k(4, 0, 4) == 0.0
    assert pass_hat_k(4, 4, 4) == 1.0


def test_pass_at_k_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_hat_k(3, 1, 4)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 0)


def test_flakiness_is_the_minority_share() -> None:
    assert flakiness([True, True, True, False]) == 0.25
    assert flakiness([False, False, True, False, False]) == 0.2
    assert flakiness([True] * 5) == 0.0
    assert flakiness([True, False]) == 0.5
    with pytest.raises(ValueError):
        flakiness([])


def test_variance_split_separates_case_difficulty_from_noise() -> None:
    stable = variance_split({"a": [1.0, 1.0], "b": [0.0, 0.0]})
    assert stable["between_cases"] == 0.25
    assert stable["within_cases"] == 0.0
    assert stable["noise_share"] == 0.0
    noisy = variance_split({"a": [0.0, 1.0], "b": [1.0, 0.0]})
    assert noisy["between_cases"] == 0.0
    assert noisy["within_cases"] == 0.25
    assert noisy["noise_share"] == 1.0


def test_variance_split_adds_up_to_the_total_variance() -> None:
    rng = random.Random(5)
    scores = {f"c{i}": [rng.random() for _ in range(rng.randint(1, 5))] for i in range(12)}
    split = variance_split(scores)
    flat = [s for v in scores.values() for s in v]
    assert split["total"] == pytest.approx(pvariance(flat))
    assert split["between_cases"] + split["within_cases"] == pytest.approx(split["total"])
