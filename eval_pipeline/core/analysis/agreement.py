"""Inter-rater agreement: Krippendorff's α on interval scores and Cohen's κ on pass/fail.

α is the reliability measure for judge scores because it takes any number of raters, tolerates
missing ratings (a judge call that failed, a case a person did not label) and uses the distance
between scores rather than mere equality. κ answers the narrower question the gates ask: do two
raters put the same cases on the same side of a threshold? Both return None when undefined (no
pairable ratings, or no variation at all), never a made-up 0 or 1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TypeGuard

import numpy as np

Rating = float | None


def _present(value: Rating) -> TypeGuard[float]:
    return value is not None and not math.isnan(value)


def krippendorff_alpha_interval(reliability: Sequence[Sequence[Rating]]) -> float | None:
    """α for interval data; ``reliability[rater][unit]``, None or NaN where a rating is missing.

    With m_u ratings of unit u, n = Σ m_u over units with m_u ≥ 2 (units rated once cannot be
    paired and are dropped), and squared differences summed over ordered pairs:

        D_o = 1/n · Σ_u Σ_{i≠j in u} (v_i − v_j)² / (m_u − 1)
        D_e = 1/(n(n−1)) · Σ_{i≠j over all n values} (v_i − v_j)²
        α   = 1 − D_o / D_e

    Σ_{i≠j} (v_i − v_j)² over m values equals 2(m·Σv² − (Σv)²), which is what is computed.
    """
    width = max((len(row) for row in reliability), default=0)
    units = [
        np.array([row[u] for row in reliability if u < len(row) and _present(row[u])], dtype=float)
        for u in range(width)
    ]
    pairable = [values for values in units if len(values) >= 2]
    if not pairable:
        return None

    def pair_sum(values: np.ndarray) -> float:
        return float(2 * (len(values) * np.sum(values**2) - np.sum(values) ** 2))

    n = sum(len(values) for values in pairable)
    observed = sum(pair_sum(values) / (len(values) - 1) for values in pairable) / n
    expected = pair_sum(np.concatenate(pairable)) / (n * (n - 1))
    if expected <= 1e-15:
        return None
    return 1.0 - observed / expected


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """κ = (p_o − p_e) / (1 − p_e) for two raters' nominal labels of the same units."""
    if len(a) != len(b):
        raise ValueError(f"two raters need the same units: {len(a)} labels against {len(b)}")
    n = len(a)
    if n == 0:
        return None
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    p_e = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


def pass_fail_kappa(a: Sequence[Rating], b: Sequence[Rating], threshold: float) -> float | None:
    """κ on ``score ≥ threshold`` over the units both raters scored."""
    if len(a) != len(b):
        raise ValueError(f"two raters need the same units: {len(a)} scores against {len(b)}")
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if _present(x) and _present(y)]
    return cohen_kappa(
        [x >= threshold for x, _ in pairs],
        [y >= threshold for _, y in pairs],
    )
