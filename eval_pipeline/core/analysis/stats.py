"""Paired statistics for comparing two runs, and estimators for repeated sampling.

Two runs of the same golden set answer the same cases, so comparisons are paired by case: McNemar
on the discordant pass/fail pairs and a bootstrap over case indices for score deltas. Pairing
removes the case-difficulty variance that an unpaired test would mistake for noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import comb
from statistics import fmean, pvariance

import numpy as np


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test of b successes in b + c trials at 1/2.

    Computed with integers so small samples get the exact value, not a normal approximation.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant pair counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def paired_bootstrap_ci(
    base: Sequence[float],
    head: Sequence[float],
    *,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """Mean of ``head - base`` and its percentile bootstrap interval, resampling cases.

    Resampling whole cases keeps each pair together; a fixed seed makes a CI gate reproducible.
    """
    if len(base) != len(head):
        raise ValueError(f"paired samples differ in length: {len(base)} vs {len(head)}")
    if not base:
        raise ValueError("no pairs to bootstrap")
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    deltas = np.asarray(head, dtype=float) - np.asarray(base, dtype=float)
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, len(deltas), size=(resamples, len(deltas)))
    means = deltas[indices].mean(axis=1)
    alpha = 1 - level
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(deltas.mean()), float(lo), float(hi)


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"passes must be between 0 and n={n}, got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased chance that at least one of k samples passes, from c passes in n samples."""
    _check_counts(n, c, k)
    return float(1 - Fraction(comb(n - c, k), comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: unbiased chance that all k samples pass — the reliability a user actually sees."""
    _check_counts(n, c, k)
    return float(Fraction(comb(c, k), comb(n, k)))


def flakiness(outcomes: Sequence[bool]) -> float:
    """Share of repeats that disagree with the case's majority outcome (0 = stable, 0.5 = coin)."""
    if not outcomes:
        raise ValueError("no repeats")
    passes = sum(bool(o) for o in outcomes)
    return min(passes, len(outcomes) - passes) / len(outcomes)


def variance_split(scores_by_repeat: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """Law of total variance over cases × repeats: how much spread is the cases, how much noise.

    ``within_cases`` is the mean variance of one case's repeated scores (sampling noise of the
    chatbot and judges); ``between_cases`` the variance of the per-case means (real difficulty).
    """
    groups = [list(map(float, v)) for v in scores_by_repeat.values() if len(v) > 0]
    if not groups:
        raise ValueError("no scores")
    total_n = sum(len(g) for g in groups)
    grand = sum(sum(g) for g in groups) / total_n
    within = sum(len(g) * pvariance(g) for g in groups) / total_n
    between = sum(len(g) * (fmean(g) - grand) ** 2 for g in groups) / total_n
    total = within + between
    return {
        "total": total,
        "between_cases": between,
        "within_cases": within,
        "noise_share": within / total if total > 0 else 0.0,
    }
